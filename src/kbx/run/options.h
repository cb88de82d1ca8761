// RunOptions: everything `kbx eval` was asked to do, as a plain value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/result.h"
#include "kbx/common/trace.h"
#include "kbx/run/shard.h"
#include "kbx/stats/summary.h"

namespace kbx::run {

/// Timing settings sent with each `time` request (docs/worker-protocol.md). warmup_ms and
/// ci_budget_ms are what every suite measurement since session 29 used (`--warmup-ms 2
/// --ci-budget-ms 40`; docs/perf.md), so a run with the defaults gets the measured speed and
/// repeatability; until session 36 the defaults were 5 and 60 ms.
struct TimingSettings {
  double warmup_ms = 2;
  int warmup_min_calls = 2;
  int min_samples = 10;
  int max_samples = 100;
  double budget_ms = 20;
  /// Adaptive sampling (docs/metrics.md "Adaptive sampling"): more rounds after the planned
  /// samples until the median's 95% interval is within ci_target of it, ci_budget_ms of wall
  /// time per workload are spent, or ci_max_samples are taken. 0 turns it off.
  double ci_target = stats::kMedianCiTarget;
  double ci_budget_ms = 40;
  int ci_max_samples = 2000;
  bool flush_l2 = true;
  double spin_up_ms = 50;  ///< GPU kept busy before the first workload, so clocks leave idle
  /// `kbx doctor --timing`: the reference worker also times each workload with Triton's
  /// do_bench, and the reference service writes both medians to <out>/timer-check.jsonl.
  bool do_bench = false;
  /// CUDA-graph mode (`kbx eval --graph`, docs/metrics.md "CUDA-graph mode"): each workload whose
  /// eager median sample is below graph_max_ms is also captured into a CUDA graph and its replays
  /// timed, reported beside eager and never mixed into it.
  bool graph = false;
  double graph_max_ms = 0.05;
  /// `--timing-cpus fast`: the process being timed measures its CPUs and runs on the fastest while
  /// it is timed (the worker's host_cpus.FastCpus; docs/metrics.md "Host CPUs"). Off by default
  /// until measured to help.
  bool fast_cpus = false;
  /// `--timing-cpus spread` (the default): each sample of a call whose samples include host work
  /// runs on the next of the process's CPUs (the worker's host_cpus.SpreadCpus; docs/metrics.md
  /// "Host CPUs"). On an H200 (session 33) it took such references' per-workload difference
  /// between two runs from a median 10.6% (`any`) to 3.9%. Off with `--timing-cpus any|fast|LIST`.
  bool spread_cpus = true;
  /// `--long-call-samples N`: a GPU-bound call so long that min_samples of it outlast a 50 ms
  /// round takes what fills the round, at least N (1-5; the worker's plan_samples). Calls whose
  /// samples hold the host's share keep 5. 5 by default, as every suite measurement to date.
  int long_call_samples = 5;
  /// `--short-call-budget-ms MS`: the adaptive rounds' budget for GPU-bound calls under 20 us at
  /// their fastest warm-up call (the worker's sampling_budget_ms); 0: ci_budget_ms, as for every
  /// call, which every suite measurement to date used.
  double short_call_budget_ms = 0;

  /// The `settings` object of a time request. Fields that are off (do_bench, graph, fast_cpus,
  /// spread_cpus) or at their default (long_call_samples, short_call_budget_ms) are left out, so
  /// the timing cache's keys, which hash it, stay as they were before those fields existed (spread_cpus is on by default: its keys are new).
  [[nodiscard]] Json to_json() const;
};

/// The baselines a candidate's speedup is taken against (docs/metrics.md, "Baselines"): PyTorch
/// eager always; "compile" is `torch.compile(entry)` in its default mode, timed by the same
/// trusted reference worker with the same settings.
inline constexpr const char* baseline_eager = "eager";
inline constexpr const char* baseline_compile = "compile";
/// The torch.compile mode of the compile baseline (sent to the worker, part of its cache key).
inline constexpr const char* compile_baseline_mode = "default";
/// Rounds of `--reference-timing interleaved`: candidate, reference, candidate, reference.
inline constexpr int interleaved_rounds = 2;

/// `--baseline eager|compile|eager,compile`: eager first and always; "compile" alone means
/// eager and compile. A usage error names anything else.
Result<std::vector<std::string>> parse_baselines(const std::string& list);

struct RunOptions {
  std::filesystem::path source;
  std::filesystem::path out_dir;
  std::filesystem::path suite_root;
  std::filesystem::path worker_path;  ///< folder holding the kbx_worker package
  std::filesystem::path cache_dir;    ///< reference outputs cache
  /// Whether reference case outputs are read from and written to cache_dir/reference (off for
  /// `kbx suite check --no-output-cache`: draws that are never asked for again would only fill the
  /// disk). Timings and torch.compile's caches stay in cache_dir either way. Not part of the identity.
  bool cache_reference_outputs = true;
  /// Trusted reference workers per GPU for case outputs and canonical forms (0: the default rule,
  /// ReferenceService::max_output_workers). Not part of the identity.
  int reference_workers = 0;
  /// `kbx eval --worker-start-hold shared|none`: whether each candidate worker's start holds the
  /// GPU lock shared (the default), so no timing run overlaps another process creating its CUDA
  /// context, or takes no hold. Session 35 (an H100): with unheld starts, 8 of 74 and 9 of 56
  /// GPU-bound workloads over 1 ms timed while starts ran beside them read 0.60-0.94x of their
  /// reference, none of the 100-174 timed without one; with held starts none of 174. Unheld starts
  /// save about 22 s of a cached suite run (session 34's test of small and compute-bound calls
  /// had seen no disturbance). Session 36: every slowed workload had overlapped a start's
  /// `cuda_context` phase, none of those beside only its Triton driver glue, so the hold covers
  /// the context's creation alone (PoolConfig::start_hold). Not part of the identity.
  bool worker_start_hold = true;
  /// `kbx eval --cuda-connections N`: CUDA_DEVICE_MAX_CONNECTIONS for every worker on CUDA (the
  /// hardware work queues a context gets; the driver's default is 8), 0 to leave it as kbx's own
  /// environment has it. 1 makes a context cheaper to create: on session 37's H100, 246 ms
  /// alone instead of 303, and bursts of 8 at once 549 ms a context's creation instead of 1,107,
  /// which is the part of a worker's start the driver serialises and no timing run may overlap
  /// (PoolConfig::start_hold). A process's streams then share one queue: work on a side stream
  /// no longer runs concurrently with the default stream's. Part of the identity on CUDA with
  /// perf, and of the reference timings' cache key (the worker reports it in its device).
  int cuda_connections = 1;
  /// The compile cache candidates share on CUDA (python/kbx_worker/compile_cache.py): empty for
  /// the default (kbx-compile-cache in the temporary folder), "off" for none.
  std::filesystem::path compile_cache;
  std::string python = "python3";
  std::string device = "cpu";         ///< "cuda" or "cpu"
  std::vector<int> gpus{0};
  int jobs = 1;                       ///< evaluations in flight at once
  int threads_per_worker = 1;
  std::string tasks_pattern;          ///< comma-separated globs over task keys; empty = all
  bool require_triton = true;
  bool perf = true;
  /// Confine candidate workers (docs/security.md); off only for debugging, and recorded.
  bool sandbox = true;
  std::uint64_t seed = 0;
  /// "kbx" (strict: Triton must do the work, mutated arguments compared, kbx's contracts) or
  /// "kernelbenchx" (the public harness's rules with kbx's references; docs/errata.md).
  std::string rules = "kbx";
  /// What the run is (method, model, round, ... from `kbx eval --method/--model/--round/--label`):
  /// part of its identity, so analyses can group runs and a resume cannot relabel them.
  std::map<std::string, std::string> labels;
  /// "session": each task's reference is timed once per session and GPU, before any candidate
  /// starts. "adjacent": for each submission, in the same GPU slot right after its candidate was
  /// timed and killed, so both meet the same clocks, temperature and host state. "interleaved":
  /// as adjacent, in interleaved_rounds rounds (candidate, reference, candidate, reference, ...),
  /// each round's candidate a fresh process, the rounds' samples pooled (docs/metrics.md).
  /// "cached": as session, the timings kept across runs.
  std::string reference_timing = "session";
  /// Whether each submission's reference is timed in its own GPU slot (adjacent, interleaved).
  [[nodiscard]] bool reference_per_submission() const {
    return reference_timing == "adjacent" || reference_timing == "interleaved";
  }
  /// The baselines timed (parse_baselines): {"eager"} or {"eager", "compile"}. Part of the
  /// identity when it holds more than eager, so a resume cannot add or drop one.
  std::vector<std::string> baselines{baseline_eager};
  /// `kbx eval --fail-fast`: a submission's cases run one per request and stop at the first that
  /// fails (the rest recorded `not_run`): the verdict says not ok as before, sooner, but names that
  /// case's failure where a full run may name another (an error in a later case outranks a
  /// mismatch). Part of the identity when on.
  bool fail_fast = false;
  int load_timeout_s = 120;
  int cases_timeout_s = 300;
  int perf_timeout_s = 600;
  TimingSettings timing;
  /// `--timing-cpus`: every time request's process (candidate or reference worker) pinned to these
  /// CPUs while it is timed (sandbox::PinnedCpus); empty: wherever the kernel schedules it.
  std::vector<int> timing_cpus;
  /// `--perf-scale`: every perf workload shrunk to about this fraction of its bytes
  /// (suite::apply_perf_scale), for a GPU with less memory; 1 = the suite's workloads.
  double perf_scale = 1;
  std::vector<std::string> argv;      ///< recorded with the session
  /// `kbx eval --shard I/N`: evaluate only this shard's part of the planned submissions
  /// (run/shard.h); the shard, the --tasks selection and the suite's fingerprint join the identity.
  Shard shard;
  /// `kbx eval --trace FILE`: where the run's wall time went (common/trace.h); null: no trace.
  /// Not part of the identity.
  Trace* trace = nullptr;

  /// The options that must not change when a run is resumed (device, seed, triton rule, ...).
  [[nodiscard]] Json identity() const;
  /// Whether the run times the torch.compile baseline too.
  [[nodiscard]] bool compile_baseline() const;
};

}  // namespace kbx::run
