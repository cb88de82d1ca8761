// Task: one KernelBench-X task as data (docs/suite-format.md), with its calls resolved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kbx/common/json.h"

namespace kbx::suite {

/// A call with every expression evaluated and its seed fixed: what the worker receives.
struct ResolvedCall {
  int index = 0;
  std::string name;         ///< the case name, or "perf/<index>"
  std::uint64_t seed = 0;   ///< 63-bit, derived from task key, name and the run's seed
  Json args = Json::array();
  Json kwargs = Json::object();
  /// Exception class names one of which the call must raise (empty: it must return).
  std::vector<std::string> raises;
  std::string then;  ///< the task's `then` method (Task::then)
  int then_calls = 1;  ///< TestCase::then_calls (perf workloads: 1)
  /// Random inputs drawn on the run's device, as timing draws a perf workload's (the perf
  /// recheck: gigabytes drawn on the CPU took seconds); test cases draw on the CPU, the same on
  /// every device.
  bool draw_on_device = false;
};

/// One perf workload: its parameters, its call template resolved, and its models evaluated.
struct Workload {
  int index = 0;
  Json params = Json::object();
  Json args = Json::array();
  Json kwargs = Json::object();
  double bytes = 0;
  double flops = 0;
};

struct TestCase {
  std::string name;
  Json args = Json::array();
  Json kwargs = Json::object();
  std::vector<std::string> raises;  ///< "raises": the call must fail with one of these types
  /// "kbx_only": a case kbx adds beyond the public tests' calls (an edge shape, a non-contiguous
  /// view, another dtype or argument); `--rules kernelbenchx` does not run it (apply_rules).
  bool kbx_only = false;
  /// "then_calls": how many times the task's `then` method is called after the call (default 1);
  /// before each call after the first the worker redraws every argument's .grad (Task::then).
  int then_calls = 1;
};

struct Task {
  std::string key;  ///< "Math/softmax.py"
  std::string entry;
  std::string category;
  int difficulty = 0;
  std::string signature;
  std::string description;
  std::string notes;
  std::vector<std::string> dtypes;
  Json precision = "default";
  /// The public harness's contract where it differs from `precision` (the Quantization tasks'
  /// metrics with absolute RMSE), used under --rules kernelbenchx; null when the same.
  Json kernelbenchx_precision = nullptr;
  std::vector<int> mutated_args;
  std::vector<std::string> mutated_kwargs;  ///< keyword arguments written in place ("out")
  /// A function of reference.py giving the canonical form that outputs are judged by (non-unique
  /// and random results), run only in the trusted reference worker; empty when none.
  std::string canonical;
  /// A method of the returned object that the worker calls, without arguments, right after each
  /// call (cases and perf alike), as part of it: "step" for Optimizer/Adam, whose entry builds an
  /// optimiser that the public perf template then steps. A case may call it several times
  /// (TestCase::then_calls), with fresh gradients drawn from the case's seed between calls, so
  /// that the optimiser's state (moments, step count) is exercised. Empty when none.
  std::string then;
  std::vector<std::string> errata;  ///< where kbx deliberately differs from the public benchmark
  /// Negative controls of `kbx suite check` that cannot fail for this task, with the reason
  /// ("float16": "the sign of a float16 is the sign of the float32 it came from").
  std::map<std::string, std::string> control_exemptions;
  /// Judge against the reference evaluated in float64 and rounded to its normal output dtypes
  /// (task.json "exact_reference"): for results whose float32 rounding error is near the tolerance.
  bool exact_reference = false;
  /// Judge returned tensors' requires_grad flags too (task.json "compare_requires_grad"): for
  /// factory functions whose requires_grad argument sets the result's (Random/logspace, rand).
  bool compare_requires_grad = false;
  std::vector<TestCase> cases;
  /// `kbx suite check --seeds N` repeats the cases N times with other seeds (run/suite_check.cpp):
  /// then a request to a worker carries one draw's cases (calls_per_request), so the replies of
  /// many draws never meet the frame limit at once. 1 for a task as loaded.
  int draws = 1;
  /// Whether resolve_cases appends the recheck case (kbx's rules; apply_rules turns it off).
  bool recheck = true;
  std::vector<Workload> workloads;  ///< empty when the task has no perf section
  std::string bytes_model;          ///< the perf.bytes expression
  std::string flops_model;          ///< the perf.flops expression
  Json perf_spec = nullptr;         ///< task.json's "perf" as written (apply_perf_scale)
  std::filesystem::path dir;        ///< the task's folder
  std::string version;              ///< sha256 of task.json bytes + reference.py bytes

  /// "softmax" for "Math/softmax.py".
  [[nodiscard]] std::string stem() const;
  [[nodiscard]] std::filesystem::path reference_path() const { return dir / "reference.py"; }
  /// Names a submission may define, in lookup order: entry, stem, kernel_function.
  [[nodiscard]] std::vector<std::string> entry_names() const;
};

/// The seed of a case or workload: fnv1a64("<key>|<what>|<base_seed>") & (2^63 - 1), where
/// `what` is "case|<name>", "recheck|<name>" or "perf|<index>". tools/check_task.py computes the same.
std::uint64_t derive_seed(const std::string& key, const std::string& what, std::uint64_t base_seed);

/// The task's cases, resolved for a run with `base_seed`, then (task.recheck) the recheck: the
/// first case that returns, again, named "<name>/recheck", with its own seed ("recheck|<name>").
std::vector<ResolvedCall> resolve_cases(const Task& task, std::uint64_t base_seed);

/// How many of the task's resolved calls one run_cases or canonicalize request carries: all of them
/// for a loaded task, one draw's cases (at least 1) for a task with draws > 1.
std::size_t calls_per_request(const Task& task);

/// `count` calls cut into the [begin, end) ranges that one request each carries
/// (calls_per_request); one range for a loaded task, none for no calls.
std::vector<std::pair<std::size_t, std::size_t>> request_ranges(const Task& task, std::size_t count);

/// v[begin, end) as a vector of its own: one request_ranges batch of calls (or of what goes with them).
template <typename T>
std::vector<T> slice(const std::vector<T>& v, std::size_t begin, std::size_t end) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(begin),
                        v.begin() + static_cast<std::ptrdiff_t>(end));
}

/// Shrinks every perf workload to about `scale` of its bytes (`kbx eval --perf-scale`, for GPUs
/// with less memory): the parameters that size its inputs (those in tensor shapes and builder
/// parameters) are multiplied by one factor per workload, the largest whose byte model gives at
/// most `scale` x the original (sizes rounded, at least 1, kept on their power-of-two multiple up
/// to 16). The task's version gets "+perf-scale=<scale>", so caches, resumes and merges never mix
/// scaled and full workloads. No-op at 1; throws Error(usage) outside (0, 1].
void apply_perf_scale(Task& task, double scale);

/// The cases a rule set runs: under "kernelbenchx" (the public harness's rules) only the cases
/// that mirror the public tests' calls, without kbx's recheck, so a verdict rests on the calls the
/// public harness makes; "kbx" keeps every case. The task's version stays: a run records its rule
/// set, and reference outputs are kept per case. Throws Error(suite) where no case is left.
void apply_rules(Task& task, std::string_view rules);

/// Keeps the cases whose names match one of `patterns` (comma-separated globs; `kbx suite check
/// --cases`), without the recheck, so a check can run a task's new cases alone. Each case keeps its
/// inputs (a case's seed comes from its name). The task's version gets "+cases=<patterns>", so a
/// resumed folder never counts a check of other cases. Returns whether any case is left; a no-op
/// on an empty list.
bool select_cases(Task& task, std::string_view patterns);

/// The task's perf workloads as calls, resolved for a run with `base_seed`.
std::vector<ResolvedCall> resolve_workloads(const Task& task, std::uint64_t base_seed);

}  // namespace kbx::suite
