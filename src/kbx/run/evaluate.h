// evaluate(): one submission through load -> cases -> compare -> perf, ending in one outcome.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kbx/compare/tolerance.h"
#include "kbx/sandbox/gpu_lock.h"
#include "kbx/sandbox/live_candidates.h"
#include "kbx/run/options.h"
#include "kbx/run/reference_service.h"
#include "kbx/run/replies.h"
#include "kbx/sandbox/worker_pool.h"
#include "kbx/sandbox/zygote.h"
#include "kbx/store/records.h"
#include "kbx/submit/source.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// What evaluate() needs from the run; all references outlive the call.
struct EvalContext {
  const RunOptions& options;
  sandbox::Zygote& zygote;
  sandbox::WorkerPool& pool;
  ReferenceService& references;
  sandbox::GpuLock& gpu_lock;
  int gpu = 0;
  std::int64_t session_id = 0;
  std::string device_label;  ///< "cuda:0 NVIDIA H200" or "cpu"
  sandbox::LiveCandidates* live = nullptr;  ///< the run's live candidates (optional)
  /// The bytes of the L2 flush each candidate worker runs before a sample (the device's L2, from
  /// a trusted worker's start); 0: no flush to check (the CPU, --no-flush-l2, an unknown L2).
  double l2_flush_bytes = 0;
};

/// The candidate's worker as the judge sees it: a channel whose every reply is untrusted.
class CandidateChannel {
 public:
  virtual ~CandidateChannel() = default;
  /// Sends a request and waits for its one reply (or why none came) until `deadline`.
  virtual sandbox::Reply request(const sandbox::Frame& frame, sandbox::Clock::time_point deadline) = 0;
  /// Kills the candidate's process group.
  virtual void kill() = 0;
  /// How the process ended, once known, waiting up to `wait`.
  virtual std::optional<sandbox::ExitStatus> exit_status(std::chrono::milliseconds wait) = 0;
  /// The last bytes the candidate printed.
  virtual std::string log_tail(std::size_t max_bytes) = 0;
  /// The candidate's process (and process group) id; 0 when there is no process.
  virtual int pid() { return 0; }
};

/// The trusted side the judge consults for one GPU: reference outputs, canonical forms, timings.
class ReferenceSide {
 public:
  virtual ~ReferenceSide() = default;
  virtual Result<std::shared_ptr<const CaseOutputs>> case_outputs(const suite::Task& task) = 0;
  virtual Result<std::vector<CaseResult>> canonicalize(
      const suite::Task& task, const std::vector<suite::ResolvedCall>& calls,
      const std::vector<const std::vector<OutputLeaf>*>& outputs) = 0;
  virtual Result<std::vector<store::TimingRecord>> timings(const suite::Task& task, bool& fresh) = 0;
  /// Timings taken now, never cached (`--reference-timing adjacent`), of the workloads whose
  /// indices are in `only`, or of all when it is empty.
  virtual Result<std::vector<store::TimingRecord>> timings_now(const suite::Task& task,
                                                               const std::vector<int>& only) = 0;
  /// Outputs for perf-sized calls, computed now (perf rechecks).
  virtual Result<CaseOutputs> fresh_outputs(const suite::Task& task,
                                            const std::vector<suite::ResolvedCall>& calls) = 0;
};

/// What evaluate_candidate() needs besides the candidate: all references outlive the call.
struct JudgeContext {
  const RunOptions& options;
  ReferenceSide& references;
  sandbox::GpuLock& gpu_lock;
  std::int64_t session_id = 0;
  std::string device_label;
  sandbox::LiveCandidates* live = nullptr;  ///< frozen while this candidate is timed (optional)
  /// A fresh candidate worker for the later rounds of `--reference-timing interleaved` (each
  /// round's candidate is a new process); without it such a run times one round, as adjacent.
  std::function<std::unique_ptr<CandidateChannel>()> fresh_candidate{};
  /// Keeps worker starts off the host until the returned token is dropped
  /// (sandbox::WorkerPool::quiet_starts): taken around the candidate's timing when the task's
  /// reference has a host-synchronising workload (`--reference-timing session` and `cached`,
  /// where the reference was timed so too, and is timed again right after the candidate unless
  /// it was timed in the same hold); without it the candidate is timed as it comes.
  std::function<std::shared_ptr<void>()> quiet_host{};
  /// EvalContext::l2_flush_bytes: the flush find_flush_violation checks for (0: none).
  double l2_flush_bytes = 0;
};

struct EvaluationResult {
  store::EvaluationRecord record;
  /// Reference timings this evaluation took (to be stored before the record).
  std::optional<std::vector<store::TimingRecord>> fresh_reference_timings;
  /// The fresh timings belong to this submission alone (taken in its GPU slot).
  bool reference_for_submission = false;
};

/// Evaluates one submission through `candidate` (already started): load, cases, compare, perf.
/// Kills the candidate at the end. Never throws for anything the candidate sends.
EvaluationResult evaluate_candidate(const JudgeContext& ctx, CandidateChannel& candidate,
                                    const submit::Submission& submission,
                                    const std::string& submission_id, const suite::Task& task,
                                    const compare::Contract& contract);

/// Evaluates one submission in a fresh candidate worker, which is killed afterwards.
/// Never throws for anything the candidate does; throws kbx::Error only when kbx itself cannot
/// go on (the zygote is gone, workers cannot start).
EvaluationResult evaluate(const EvalContext& ctx, const submit::Submission& submission,
                          const std::string& submission_id, const suite::Task& task,
                          const compare::Contract& contract);

}  // namespace kbx::run
