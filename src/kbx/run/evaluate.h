// evaluate(): one submission through load -> cases -> compare -> perf, ending in one outcome.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kbx/compare/tolerance.h"
#include "kbx/sandbox/gpu_lock.h"
#include "kbx/run/options.h"
#include "kbx/run/reference_service.h"
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
};

struct EvaluationResult {
  store::EvaluationRecord record;
  /// Reference timings this evaluation took (to be stored before the record).
  std::optional<std::vector<store::TimingRecord>> fresh_reference_timings;
};

/// Evaluates one submission in a fresh candidate worker, which is killed afterwards.
/// Never throws for anything the candidate does; throws kbx::Error only when kbx itself cannot
/// go on (the zygote is gone, workers cannot start).
EvaluationResult evaluate(const EvalContext& ctx, const submit::Submission& submission,
                          const std::string& submission_id, const suite::Task& task,
                          const compare::Contract& contract);

}  // namespace kbx::run
