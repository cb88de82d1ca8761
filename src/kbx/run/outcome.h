// Outcome and CaseStatus: the typed verdicts the judge works with (stored as their names).
#pragma once

#include <optional>
#include <string_view>

namespace kbx::run {

/// How one evaluation ended (docs/architecture.md, "Outcomes").
enum class Outcome {
  ok,                  ///< every case matches, Triton did the work
  incorrect,           ///< a case differs from the reference
  not_triton,          ///< correct, but no Triton kernel did the work
  compile_error,       ///< the module or a Triton kernel did not compile or import
  runtime_error,       ///< a case raised
  timeout,             ///< a stage ran past its wall-clock limit
  crashed,             ///< the candidate's process died (signal, exit, GPU fault)
  limit_exceeded,      ///< the candidate hit a sandbox limit (CPU time, file size, processes, ...)
  protocol_violation,  ///< the candidate's process sent a reply the protocol does not allow
  tampered,            ///< changed state it must leave alone (torch's flags), or a GPU helper process
  worker_lost,         ///< the worker went away without a verdict
  skipped,             ///< kbx could not judge it (task data, reference error)
  cancelled,           ///< kbx was interrupted; redone on resume
};

std::string_view to_string(Outcome outcome);
std::optional<Outcome> parse_outcome(std::string_view name);

/// The status of one case in a worker's `cases` reply.
enum class CaseStatus { ok, error, not_run };

std::string_view to_string(CaseStatus status);
std::optional<CaseStatus> parse_case_status(std::string_view name);

}  // namespace kbx::run
