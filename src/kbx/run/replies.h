// Worker messages for the run (docs/worker-protocol.md): resolved calls out, replies decoded back.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/output_leaf.h"
#include "kbx/common/result.h"
#include "kbx/run/outcome.h"
#include "kbx/sandbox/protocol.h"
#include "kbx/store/records.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// The `workloads` of a `time` request: each call's index, name, seed, args and kwargs.
Json calls_json(const std::vector<suite::ResolvedCall>& calls);

/// The `cases` of a `run_cases` request: calls_json plus the arguments to send back after the
/// call (all of them, positional and keyword, with the task's mutated keyword arguments) and each
/// case's `raises`. Without `all_arguments` (perf rechecks, whose arguments are large) only the
/// arguments the task writes into come back. For the trusted reference worker (`for_reference`) also `exact`, `canonical`
/// and `bound` as the task asks; a candidate worker is never sent those.
Json cases_json(const suite::Task& task, const std::vector<suite::ResolvedCall>& calls,
                bool for_reference, bool all_arguments = true);

/// True when the task's precision has an error bound (the reference then sends magnitudes).
bool has_error_bound(const suite::Task& task);

/// One entry of a `cases` reply.
struct CaseResult {
  int index = 0;
  CaseStatus status = CaseStatus::not_run;
  double time_ms = 0;
  std::int64_t triton_launches = 0;
  /// Candidates: whether Triton's work reached the returned tensors (absent: nothing to say,
  /// e.g. no non-empty tensor came back), and the PyTorch operators the call ran.
  std::optional<bool> triton_output;
  std::int64_t torch_ops = 0;
  std::vector<store::KernelUse> kernels;  ///< candidates: what the call ran (stage "cases")
  std::vector<OutputLeaf> outputs;
  std::vector<OutputLeaf> canonical;  ///< reference worker, tasks with a canonical function
  std::vector<OutputLeaf> magnitude;  ///< reference worker, tasks with an error bound
  Json error = Json::object();  ///< the worker's error object when status == "error"

  /// The exception class names of an error result (its class and bases).
  [[nodiscard]] std::vector<std::string> error_types() const;
  /// True when this error result raised one of `names`.
  [[nodiscard]] bool raised_one_of(const std::vector<std::string>& names) const;
};

/// The `results` of a `canonical` reply: per case, the canonical leaves or the error.
Result<std::vector<CaseResult>> decode_canonical_results(const sandbox::Frame& reply);

/// The `results` of a `cases` reply, with tensors decoded. Errors are protocol errors: a reply
/// that is not well-formed (unknown status or dtype, a tensor that does not fit its payload, a
/// negative or non-finite count or time). Whether it answers the request is judge.h's question.
Result<std::vector<CaseResult>> decode_case_results(const sandbox::Frame& reply);

/// A `kernels` list of a reply: at most max_inventory_names entries, each a name (at most 256
/// bytes), a known origin, a launch count and, on the GPU, a finite non-negative time.
constexpr std::size_t max_inventory_names = 80;
/// A timing result's `phase_ms` (informative: where the request's time went) has at most this many
/// entries.
constexpr std::size_t max_timing_phases = 8;
/// The phase names kept from `phase_ms` (others are ignored: the figures are informational).
constexpr std::array<std::string_view, 7> known_timing_phases{
    "setup", "inputs", "warmup", "samples", "brackets", "inventory", "graph"};
Result<std::vector<store::KernelUse>> decode_kernels(const Json& kernels, const std::string& stage);

/// A timing result's `graph_samples_ms` has at most this many entries (the worker's limit on
/// ci_max_samples), and its `graph_error` is cut to this many bytes.
constexpr std::size_t max_graph_samples = 100'000;
constexpr std::size_t max_graph_error_bytes = 200;

/// The `results` of a `timings` reply as timing records. An ok result's optional CUDA-graph
/// figures (`graph_samples_ms`: finite positive numbers; `graph_error`: a string; not both) are
/// checked like the samples; anything else there is a protocol error.
Result<std::vector<store::TimingRecord>> decode_timings(const sandbox::Frame& reply);

/// "TypeError: softmax() missing 1 required positional argument: 'dim'" from a worker error.
std::string describe_worker_error(const Json& error);

}  // namespace kbx::run
