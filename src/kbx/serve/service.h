// EvaluationService: kbx serve's evaluation side, with no HTTP in it. A request body goes in, a
// status and a JSON answer come out; verdicts come from run/ (the same pipeline as `kbx eval`).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/run/options.h"
#include "kbx/run/workers.h"
#include "kbx/serve/job_queue.h"
#include "kbx/serve/request.h"
#include "kbx/store/database.h"
#include "kbx/suite/suite.h"

namespace kbx::serve {

struct ServiceOptions {
  /// Device, GPUs, jobs (evaluation threads, spread over the GPUs), the default perf setting,
  /// timeouts, seed, rules and the store folder (run.out_dir), as for `kbx eval`.
  run::RunOptions run;
  RequestLimits limits;
  std::size_t queue_capacity = 64;  ///< evaluations waiting for a thread; beyond: 429
  int wait_s = 900;                 ///< the longest a request waits for its verdict; then 504
  /// The flag that cancels the sandbox's reads (sandbox::set_cancel_flag), if any: once it is set
  /// the service is stopping, so no evaluation starts and one that fails answers 503, not 500.
  const std::atomic<bool>* cancel = nullptr;
};

/// An HTTP answer: status, JSON body, and for 429/503 the seconds to wait before a retry.
struct Answer {
  int status = 200;
  Json body = Json::object();
  std::optional<int> retry_after_s;
};

/// Who sent a request (for the store).
struct RequestInfo {
  std::string remote_addr;
  std::string method;
  std::string path;
};

/// Owns the store's session, the warm workers, the bounded queue and `run.jobs` evaluation
/// threads. Identical code for the same task (and perf setting) is evaluated once: a request for
/// it is answered from the store, or joins the evaluation in flight. Every request is recorded in
/// the store (table serve_requests). Thread-safe. A candidate that crashes or hangs ends only its
/// own worker (the verdict says so); the service keeps serving.
class EvaluationService {
 public:
  /// Opens (or resumes) the store in options.run.out_dir, whose identity must match, starts a
  /// session and the workers. The caller holds the folder's lock. Throws kbx::Error.
  EvaluationService(ServiceOptions options, const suite::Suite& suite,
                    std::vector<std::string> argv);
  ~EvaluationService();
  EvaluationService(const EvaluationService&) = delete;
  EvaluationService& operator=(const EvaluationService&) = delete;

  /// POST /v1/evaluate: the verdict (200), or 400/413 for a malformed request, 429 when the
  /// queue is full, 503 while shutting down, 504 when the verdict takes longer than wait_s.
  Answer evaluate(const std::string& body, const RequestInfo& info);
  /// GET /v1/tasks: every task's summary (as `kbx suite list --json`).
  [[nodiscard]] Answer tasks() const;
  /// GET /v1/tasks/{key}: one task's detail (as `kbx suite show --json`); 404 when unknown.
  [[nodiscard]] Answer task(const std::string& key) const;
  /// GET /v1/health: queue depth and capacity, evaluations in flight, threads, device, counts.
  [[nodiscard]] Answer health() const;
  /// Records a request answered without a verdict (GETs, 401s, 404s).
  void record(const RequestInfo& info, int status, const std::string& error);

  /// Stops taking evaluations (503 from now on) and lets the threads finish; idempotent.
  void shut_down();

 private:
  struct Pending;
  struct Prepared;

  void thread_main(int gpu);
  void run_job(const std::shared_ptr<Pending>& job, int gpu);
  Answer answer_for(const std::string& submission_id, const std::string& served_from) const;
  std::optional<Answer> admit(const EvaluateRequest& request, Prepared& prepared,
                              std::shared_future<Answer>& verdict);
  void record_evaluate(const RequestInfo& info, const Answer& answer, const Prepared* prepared,
                       const EvaluateRequest* request, std::chrono::steady_clock::time_point start);
  [[nodiscard]] int retry_after_s() const;
  [[nodiscard]] bool stopping() const {
    return stopping_.load() || (options_.cancel != nullptr && options_.cancel->load());
  }
  [[nodiscard]] const run::RunOptions& run_options(bool perf) const {
    return perf ? options_.run : no_perf_;
  }

  ServiceOptions options_;
  run::RunOptions no_perf_;
  const suite::Suite& suite_;
  std::unique_ptr<store::Database> db_;
  std::int64_t session_id_ = 0;
  std::unique_ptr<run::Workers> workers_;
  JobQueue queue_;
  std::vector<std::thread> threads_;
  std::chrono::steady_clock::time_point started_;

  mutable std::mutex mutex_;
  std::map<std::string, std::string> done_;  ///< submission id -> task version of its verdict
  std::map<std::string, std::shared_future<Answer>> in_flight_;
  std::set<std::string> tasks_stored_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_{0};
  std::atomic<std::int64_t> evaluated_{0};
  std::atomic<std::int64_t> answered_{0};
  std::atomic<std::int64_t> rejected_full_{0};
  std::atomic<double> eval_ms_mean_{0};
  std::string last_failure_;  ///< an evaluation kbx itself could not finish (guarded by mutex_)
};

}  // namespace kbx::serve
