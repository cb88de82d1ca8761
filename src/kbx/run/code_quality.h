// The code-quality step: radon over the submissions' source text, in a trusted process of its own.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>

#include "kbx/common/json.h"
#include "kbx/report/report_model.h"

namespace kbx::run {

/// Where and how to run python/kbx_worker/code_quality.py.
struct CodeQualityStep {
  std::string python = "python3";
  std::filesystem::path worker_path;  ///< the folder holding the kbx_worker package
  std::chrono::seconds timeout{120};
};

/// Runs the step once over the source of every row, with its request, reply and log in a fresh
/// folder under $TMPDIR (removed afterwards) (never in a candidate's process: it only
/// parses the text) and returns its reply, or a reply with no results and a note saying why
/// (no Python, a timeout, a crash). Never throws for the step's own failures.
Json measure_code_quality(const CodeQualityStep& step, const report::ReportModel& model);

}  // namespace kbx::run
