// Finding a report model's rows, for the report's tests.
#pragma once

#include <stdexcept>
#include <string>

#include "kbx/report/report_model.h"

namespace kbx::report::rows {

/// The row of submission `id` (throws, failing the test, when the model has none).
inline const SubmissionRow& row_of(const ReportModel& m, const std::string& id) {
  for (const auto& r : m.rows) {
    if (r.submission_id == id) {
      return r;
    }
  }
  throw std::runtime_error("no row " + id);
}

}  // namespace kbx::report::rows
