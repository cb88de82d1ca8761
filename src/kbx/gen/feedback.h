// Feedback: what kbx tells a model about its previous candidate, from the stored verdict.
#pragma once

#include <string>

#include "kbx/report/report_model.h"
#include "kbx/store/records.h"

namespace kbx::gen {

/// The most bytes of feedback (details and log tails are cut to fit).
constexpr std::size_t max_feedback_bytes = 2000;

/// One paragraph for the model: the compile or runtime error with its detail, the first case
/// that did not match with its error figures (max abs and rel error, elements outside tolerance,
/// first index), the outcome and reason for other failures, or for a correct candidate its
/// per-workload speedups over PyTorch eager (`row` may be null: no timings).
std::string feedback_for(const store::EvaluationRecord& evaluation,
                         const report::SubmissionRow* row);

}  // namespace kbx::gen
