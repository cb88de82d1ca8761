// Workers: the warm side of a session (zygote, worker pool, reference service, device labels,
// contracts), shared by `kbx eval`'s runner and `kbx serve`'s evaluation service.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kbx/compare/tolerance.h"
#include "kbx/run/evaluate.h"
#include "kbx/run/options.h"
#include "kbx/run/reference_service.h"
#include "kbx/sandbox/live_candidates.h"
#include "kbx/sandbox/worker_pool.h"
#include "kbx/sandbox/zygote.h"
#include "kbx/store/database.h"
#include "kbx/submit/source.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// Starts the Python zygote, the pool of warm candidate workers and the trusted reference workers
/// for `options` (which must outlive this), and records the session's environment (sandbox report,
/// devices) in `db`. Thread-safe after construction. Throws kbx::Error when they cannot start.
class Workers {
 public:
  Workers(const RunOptions& options, store::Database& db, std::int64_t session_id);
  ~Workers();
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  /// Evaluates one submission on `gpu` in a fresh candidate worker (run/evaluate.h), judged with
  /// `options` (the session's, or a copy that differs only in what one evaluation asks, such as
  /// perf off). A task whose precision contract does not parse is `skipped`. Never throws for
  /// anything the candidate does.
  EvaluationResult evaluate(const RunOptions& options, const submit::Submission& submission,
                            const std::string& submission_id, const suite::Task& task, int gpu);

  /// Times the task's reference on `gpu` if this session has not yet (exclusive GPU hold, every
  /// live candidate stopped meanwhile) and stores fresh timings; a no-op when already timed.
  void ensure_reference_timed(const suite::Task& task, int gpu);

  /// Times `baseline` (not eager: "compile") of the task's reference on `gpu` (the caller holds
  /// the GPU exclusively) and stores it, also when it failed (an error row per workload, so the
  /// report says why). Returns the failure's text, or "" when every workload timed.
  std::string time_baseline(const suite::Task& task, int gpu, const std::string& baseline);

  /// "cuda:0 NVIDIA H200" or "cpu (...)": the device label evaluations on `gpu` carry.
  [[nodiscard]] const std::string& label(int gpu) const { return labels_.at(gpu); }
  [[nodiscard]] sandbox::WorkerPool& pool() { return *pool_; }
  [[nodiscard]] ReferenceService& references() { return *references_; }
  [[nodiscard]] sandbox::LiveCandidates& live() { return live_; }

 private:
  [[nodiscard]] Json sandbox_config() const;
  [[nodiscard]] std::filesystem::path make_compile_cache_root() const;
  Json sandbox_report();
  void record_environment();
  const compare::Contract* contract_for(const suite::Task& task, std::string& error);

  const RunOptions& options_;
  store::Database& db_;
  std::int64_t session_id_;
  std::filesystem::path compile_cache_;  ///< the shared compile cache's root; empty: none
  std::unique_ptr<sandbox::Zygote> zygote_;
  std::unique_ptr<sandbox::WorkerPool> pool_;
  std::unique_ptr<ReferenceService> references_;
  std::map<int, std::string> labels_;
  std::map<int, double> l2_flush_bytes_;  // by GPU: EvalContext::l2_flush_bytes
  sandbox::LiveCandidates live_;
  std::mutex mutex_;
  std::map<std::string, compare::Contract> contracts_;
  std::map<std::string, bool> timed_;  ///< task key @ gpu whose reference this session timed
};

}  // namespace kbx::run
