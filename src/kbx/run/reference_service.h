// ReferenceService: trusted reference outputs (cached on disk) and reference timings (per session).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kbx/common/output_leaf.h"
#include "kbx/common/result.h"
#include "kbx/run/options.h"
#include "kbx/run/replies.h"
#include "kbx/sandbox/worker_pool.h"
#include "kbx/store/records.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// What the reference produced for one case.
struct ReferenceCase {
  std::vector<OutputLeaf> outputs;
  std::vector<OutputLeaf> canonical;  ///< its canonical form (tasks with a canonical function)
  std::vector<OutputLeaf> magnitude;  ///< float64 magnitudes (tasks with an error bound)
  /// The same call computed at the task's own precision, not upcast (exact-reference tasks, perf
  /// rechecks only): how far a correct working-precision computation lands from the exact result.
  std::vector<OutputLeaf> working;
  bool raised = false;                ///< the case expects an error and the reference raised it
};

/// The reference's results for every case of a task, in case order.
using CaseOutputs = std::vector<ReferenceCase>;

/// A reference timing reply as `--reference-timing cached` keeps it on disk.
std::string cached_timings_text(const suite::Task& task, const Json& reply_header);

/// Timings read back from cached_timings_text(), validated like a fresh reply (decode_timings,
/// the stream check); nullopt when the text is torn or foreign, holds another number of
/// workloads than `workload_count`, or any workload failed.
std::optional<std::vector<store::TimingRecord>> parse_cached_timings(const std::string& text,
                                                                     std::size_t workload_count);

/// One error record per workload of `task`, each saying `why` (a baseline whose timing request
/// failed as a whole: the worker died or timed out while torch.compile ran, say).
std::vector<store::TimingRecord> failed_timings(const suite::Task& task, const std::string& why);

/// "workload N: error" for the first workload of `timings` that did not time, "" when all did.
std::string first_timing_failure(const std::vector<store::TimingRecord>& timings);

/// Whether any timed workload of `timings` holds a share of host time (stats::holds_host_share
/// on its samples' median and kernel busy time): the host's state moves such samples, so they
/// are timed with worker starts kept off the host (WorkerPool::QuietStarts), and a reference
/// timed earlier is timed again next to each candidate (evaluate.cpp).
bool any_host_share(const std::vector<store::TimingRecord>& timings);

/// The workloads of `timings` that hold a share of host time (as any_host_share), by index: a
/// reference timed earlier has these, and only these, timed again next to each candidate (its
/// GPU-bound workloads keep the earlier timing, as every other task's do).
std::vector<int> host_share_workloads(const std::vector<store::TimingRecord>& timings);

/// Which of `lanes` reference workers on a GPU times the task `task_key`: a fixed hash of the
/// key, so a task's reference is timed by the same lane in every run, and the tasks spread over
/// the lanes.
std::size_t timing_lane_index(const std::string& task_key, std::size_t lanes);

/// The lanes (timing_lane_index) that time `tasks`' references, each once, in the order of the
/// tasks that first need them.
std::vector<std::size_t> timing_lane_indices(const std::vector<const suite::Task*>& tasks,
                                             std::size_t lanes);

/// Owns the trusted reference workers: per GPU up to max_output_workers() of them, for the
/// cases' outputs, canonical forms and perf rechecks, so that evaluations in flight do not queue
/// behind one worker (`kbx suite check --seeds`, many jobs). Each task's reference is timed by
/// one of them, timing_lane_index() of its key: every process times short workloads with its own
/// fixed offset (about 0.3 us a sample between some processes, sessions 35 and 40: the time
/// between the events and the kernel, not the kernel's), and one worker timing every task put
/// the same offset on the whole suite's references; spread over the workers, each task draws its
/// own, as each candidate's process does. A reference worker never loads a submission.
/// Outputs are cached in cache_dir by task version, case, seed, device and torch version;
/// timings are taken once per task per session. Thread-safe; callers hold the GPU lock
/// (shared for outputs, exclusive for timings).
class ReferenceService {
 public:
  /// `triton_version` joins the timing cache's key of the compile baseline (inductor's kernels
  /// are Triton's); eager's key and the output cache's stay on torch's version.
  ReferenceService(sandbox::WorkerPool& pool, const RunOptions& options, std::string torch_version,
                   std::string triton_version = "");

  /// Reference outputs for the task's cases (computed on `gpu` on a cache miss).
  Result<std::shared_ptr<const CaseOutputs>> case_outputs(const suite::Task& task, int gpu);

  /// Drops the case outputs kept for `task` (on every GPU): the runner calls it once the task's
  /// last planned evaluation is done, so a session's memory holds only the tasks in flight (with
  /// `kbx suite check --seeds N` a task's outputs are N times its cases).
  void forget(const suite::Task& task);

  /// Reference outputs for `calls` (perf rechecks: perf-sized calls with their own seeds),
  /// computed now on a free output worker and never cached. One entry per call, in order; for
  /// exact-reference tasks each entry also holds its working-precision output.
  Result<CaseOutputs> fresh_outputs(const suite::Task& task, int gpu,
                                    const std::vector<suite::ResolvedCall>& calls);

  /// Canonical forms of a candidate's outputs for `calls` (cases of a task with a canonical
  /// function), computed by the trusted reference worker. One result per call, in order.
  Result<std::vector<CaseResult>> canonicalize(const suite::Task& task, int gpu,
                                               const std::vector<suite::ResolvedCall>& calls,
                                               const std::vector<const std::vector<OutputLeaf>*>& outputs);

  /// Reference timings for the task on `gpu`, taken on first use (a failure is kept too). `fresh`
  /// tells whether this call took them (so the caller stores them). The runner takes them all
  /// before any candidate starts: the reference is never timed while a candidate is alive.
  /// `baseline` is eager (the reference as it is) or compile (torch.compile of it, default mode,
  /// compiled before its warm-up so compilation is never timed; docs/metrics.md "Baselines").
  Result<std::vector<store::TimingRecord>> timings(const suite::Task& task, int gpu, bool& fresh,
                                                   const std::string& baseline = baseline_eager);

  /// Timings taken now and not kept (`--reference-timing adjacent`: one set per submission), of
  /// the workloads whose indices are in `only`, or of all when it is empty.
  Result<std::vector<store::TimingRecord>> timings_now(const suite::Task& task, int gpu,
                                                       const std::vector<int>& only);

  /// The timings (or the failure) timings() kept; an internal error if it never ran for the task.
  Result<std::vector<store::TimingRecord>> cached_timings(const suite::Task& task, int gpu);

  /// How many tasks' timings came from the timing cache so far (`--reference-timing cached`).
  int timings_from_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    return timings_from_cache_;
  }
  /// How many tasks' reference timings were taken again with worker starts held off the host
  /// (a host-synchronising workload: timings()).
  int timings_taken_quiet() {
    std::lock_guard<std::mutex> lock(mutex_);
    return timings_taken_quiet_;
  }

  /// The reference worker's device description on `gpu` (starts the worker if needed).
  Json device_info(int gpu);

  /// Starts every reference worker of `gpu` that is not running yet, all at once, and waits for
  /// them: the runner calls it before the references are timed, so the workers that time them
  /// do not start one after another inside the timing holds. A worker that fails to start is left
  /// to the lane's first request, which starts it again and reports the failure. With `only`,
  /// just the workers that time those tasks (timing_lane_index): a run that reads the timings
  /// from the cache starts the lanes its host-share tasks time their references on again.
  void start_timing_workers(int gpu, const std::vector<const suite::Task*>* only = nullptr);

 private:
  struct Lane {
    std::mutex mutex;
    std::unique_ptr<sandbox::Worker> worker;
    std::map<std::string, int> handles;  // task key -> module handle in the worker
    std::string device_name;
  };

  Lane& lane(int gpu);
  /// Every lane of `gpu` (made up to max_output_workers(), the first one lane(gpu)); with `turn`,
  /// also the next turn for output_lane.
  std::vector<Lane*> all_lanes(int gpu, std::size_t* turn);
  /// The lane that times `task` on `gpu` (timing_lane_index).
  Lane& timing_lane(const suite::Task& task, int gpu);
  /// A lane for correctness work (cases, canonical forms), locked: a free one if any, lane(gpu)
  /// last, else the next in turn once it is free.
  std::unique_lock<std::mutex> output_lane(int gpu, Lane*& chosen);
  /// Reference workers per GPU (correctness work, and the timings spread over them):
  /// RunOptions::reference_workers when set;
  /// else the jobs per GPU, at most 4 (each holds a CUDA context and its own cached memory); one
  /// on the CPU, where they would share the candidates' cores.
  [[nodiscard]] std::size_t max_output_workers() const;
  /// The case outputs this session already holds for the task on `gpu`, or null.
  std::shared_ptr<const CaseOutputs> kept_outputs(const suite::Task& task, int gpu);
  sandbox::Worker& worker(Lane& lane, int gpu);  // requires lane.mutex
  /// The GPU's description from any reference worker started on it so far, else from `lane`'s
  /// (started if needed; requires lane.mutex).
  Json known_device(Lane& lane, int gpu);
  /// `--rules kernelbenchx`: references at the task's own precision, no magnitudes for bounds.
  [[nodiscard]] bool public_rules() const { return options_.rules == "kernelbenchx"; }
  Result<int> load(Lane& lane, int gpu, const suite::Task& task);
  Result<sandbox::Frame> call(Lane& lane, int gpu, const sandbox::Frame& request, int timeout_s,
                              const std::string& what);
  /// Times the task's reference now; with `cache_to`, a reply whose every workload timed ok is
  /// also written there (`--reference-timing cached`).
  Result<std::vector<store::TimingRecord>> take_timings(
      Lane& lane, const suite::Task& task, int gpu, const std::filesystem::path* cache_to,
      const std::string& baseline = baseline_eager, const std::vector<int>& only = {});
  /// The `time` request for the task's workloads (those in `only` when it is not empty); for the
  /// compile baseline it names the baseline, its mode and the folder torch.compile keeps its
  /// caches in (cache_dir/torch-compile).
  sandbox::Frame time_request(int handle, const suite::Task& task, const std::string& baseline,
                              const std::vector<int>& only = {}) const;
  /// Where `--reference-timing cached` keeps the task's timings on this GPU (requires lane.mutex):
  /// cache_dir/timings, keyed by the task and its version, the device (name, UUID, driver,
  /// CUDA), torch, kbx's version and commit, the seed and the timing settings; a baseline other
  /// than eager and its mode join the key.
  std::filesystem::path timing_cache_path(Lane& lane, int gpu, const suite::Task& task,
                                          const std::string& baseline = baseline_eager);
  /// Appends each workload's two medians (kbx's samples, do_bench) to <out>/timer-check.jsonl.
  void record_timer_check(const suite::Task& task, int gpu,
                          const std::vector<store::TimingRecord>& timings);
  /// parse_cached_timings() of the file at `path`; nullopt when there is none.
  std::optional<std::vector<store::TimingRecord>> read_cached_timings(
      const std::filesystem::path& path, const suite::Task& task);
  /// Runs `calls` in the reference worker (requires lane.mutex) and checks each result: an
  /// error where the case must return, or the wrong error where it must raise, is a suite error.
  /// With `working_too` (exact-reference tasks), each call runs a second time at the task's own
  /// precision and that output goes into ReferenceCase::working.
  Result<CaseOutputs> run_cases(Lane& lane, int gpu, const suite::Task& task,
                                const std::vector<suite::ResolvedCall>& calls, bool all_arguments,
                                int timeout_s, const std::string& what, bool working_too = false);
  std::filesystem::path cache_path(const suite::Task& task, const suite::ResolvedCall& c,
                                   const std::string& device_name) const;

  sandbox::WorkerPool& pool_;
  const RunOptions& options_;
  std::string torch_version_;
  std::string triton_version_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<Lane>> lanes_;                    // the first lane per GPU
  std::map<int, std::vector<std::unique_ptr<Lane>>> extra_lanes_;  // the others, per GPU
  std::size_t next_lane_ = 0;
  std::map<std::string, std::shared_ptr<const CaseOutputs>> outputs_;  // key@gpu
  std::map<std::string, std::vector<store::TimingRecord>> timings_;     // key@gpu[|baseline]
  std::map<std::string, Error> timing_errors_;                          // key@gpu[|baseline]
  std::map<int, Json> devices_;  // the GPU's description, from its first reference worker
  int timings_from_cache_ = 0;
  int timings_taken_quiet_ = 0;
};

}  // namespace kbx::run
