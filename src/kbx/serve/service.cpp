// EvaluationService: admission (parse, resolve, dedupe, queue), evaluation threads, answers.
#include "kbx/serve/service.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "kbx/common/error.h"
#include "kbx/common/version.h"
#include "kbx/report/exports.h"
#include "kbx/report/report_model.h"
#include "kbx/run/runner.h"
#include "kbx/submit/source.h"
#include "kbx/suite/task_json.h"

namespace kbx::serve {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string now_iso8601_ms() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms % 1000));
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The GPU of the evaluation thread running a job (jobs are closures that do not carry it).
thread_local int current_gpu = 0;

Answer error_answer(int status, std::string message) {
  return Answer{status, Json{{"error", std::move(message)}}, std::nullopt};
}

Json case_json(const store::CaseRecord& c) {
  return Json{{"index", c.index},
              {"name", c.name},
              {"status", c.status},
              {"reason", c.reason},
              {"detail", c.detail},
              {"path", c.path},
              {"err_abs_max", c.err_abs_max},
              {"err_rel_max", c.err_rel_max},
              {"mismatch_count", c.mismatch_count},
              {"first_mismatch_index", c.first_mismatch_index},
              {"time_ms", c.time_ms}};
}

/// The verdict: kbx-results.json's record of the submission (without its code), with the
/// per-case results, the stage times, the device and the candidate's last output.
Json verdict_json(const report::SubmissionRow& row, const store::EvaluationRecord& e) {
  Json v = report::submission_record_json(row, false);
  v.erase("code");
  v.erase("in_metrics_json");
  v.erase("origin");
  v["device"] = e.device;
  v["rules"] = e.rules;
  v["task_version"] = e.task_version;
  v["stages"] = Json{{"time_queue_ms", e.time_queue_ms},     {"time_load_ms", e.time_load_ms},
                     {"time_cases_ms", e.time_cases_ms},     {"time_compare_ms", e.time_compare_ms},
                     {"time_perf_ms", e.time_perf_ms},       {"time_total_ms", e.time_total_ms}};
  v["cases"] = Json::array();
  for (const auto& c : e.cases) {
    v["cases"].push_back(case_json(c));
  }
  v["log_tail"] = e.log_tail;
  return v;
}

}  // namespace

/// An evaluation waiting in the queue or running.
struct EvaluationService::Pending {
  submit::Submission submission;
  std::string id;
  const suite::Task* task = nullptr;
  bool perf = false;
  int timeout_s = 0;  ///< the request's shorter stage deadline; 0: the server's
  std::promise<Answer> promise;
};

/// A request resolved against the suite: its task, submission and id.
struct EvaluationService::Prepared {
  const suite::Task* task = nullptr;
  submit::Submission submission;
  std::string id;
  bool perf = false;
  int timeout_s = 0;
  std::string served_from;
};

EvaluationService::EvaluationService(ServiceOptions options, const suite::Suite& suite,
                                     std::vector<std::string> argv)
    : options_(std::move(options)),
      no_perf_(options_.run),
      suite_(suite),
      queue_(options_.queue_capacity),
      started_(Clock::now()) {
  no_perf_.perf = false;
  fs::create_directories(options_.run.out_dir);
  db_ = store::Database::open(options_.run.out_dir / "kbx.db");
  run::check_identity(*db_, options_.run, suite_);
  db_->close_lost_sessions();
  store::SessionRecord session;
  session.started_at = now_iso8601_ms();
  session.status = "running";
  session.kbx_version = kbx::version_string();
  session.argv = std::move(argv);
  session_id_ = db_->begin_session(session);
  done_ = db_->evaluated_task_versions();
  try {
    workers_ = std::make_unique<run::Workers>(options_.run, *db_, session_id_);
  } catch (...) {
    db_->end_session(session_id_, "failed");
    throw;
  }
  const auto& gpus = options_.run.gpus;
  for (int t = 0; t < std::max(1, options_.run.jobs); ++t) {
    int gpu = gpus[static_cast<std::size_t>(t) % gpus.size()];
    threads_.emplace_back([this, gpu] { thread_main(gpu); });
  }
}

EvaluationService::~EvaluationService() {
  shut_down();
  for (auto& t : threads_) {
    t.join();
  }
  db_->end_session(session_id_, "finished");
}

void EvaluationService::shut_down() {
  stopping_.store(true);
  queue_.close();
}

// ---- admission ----------------------------------------------------------------------------

Answer EvaluationService::evaluate(const std::string& body, const RequestInfo& info) {
  auto start = Clock::now();
  auto parsed = parse_evaluate_request(body, options_.limits);
  if (auto* problem = std::get_if<RequestProblem>(&parsed)) {
    Answer a = error_answer(problem->status, problem->message);
    record_evaluate(info, a, nullptr, nullptr, start);
    return a;
  }
  const auto& request = std::get<EvaluateRequest>(parsed);
  Prepared prepared;
  std::shared_future<Answer> verdict;
  if (auto refused = admit(request, prepared, verdict)) {
    record_evaluate(info, *refused, prepared.task != nullptr ? &prepared : nullptr, &request,
                    start);
    return *refused;
  }
  Answer a;
  if (prepared.served_from == "store") {
    a = answer_for(prepared.id, "store");
  } else if (verdict.wait_for(std::chrono::seconds(options_.wait_s)) ==
             std::future_status::ready) {
    a = verdict.get();
    if (a.status == 200 && prepared.served_from == "joined") {
      a.body["served_from"] = "joined";
    }
  } else {
    a = error_answer(504, fmt::format("no verdict within {} s (kbx serve --wait); the evaluation "
                                      "goes on and is stored: send the same request again later",
                                      options_.wait_s));
  }
  record_evaluate(info, a, &prepared, &request, start);
  return a;
}

/// Resolves the task, derives the submission and either finds its verdict in the store, joins
/// the evaluation in flight, or queues a new one. Returns an answer when the request stops here.
std::optional<Answer> EvaluationService::admit(const EvaluateRequest& request, Prepared& p,
                                               std::shared_future<Answer>& verdict) {
  const suite::Task* task = suite_.find(request.task);
  if (task == nullptr) {
    task = suite_.find(request.task + ".py");
  }
  if (task == nullptr) {
    return error_answer(400, fmt::format("field 'task': {} (GET /v1/tasks lists the keys)",
                                         suite_.unknown_key_message(request.task)));
  }
  p.task = task;
  p.perf = options_.run.perf && request.perf.value_or(true);
  const int server_timeout_s = std::max(options_.run.load_timeout_s, options_.run.cases_timeout_s);
  const int asked_s = request.timeout_s.value_or(0);
  p.timeout_s = asked_s < server_timeout_s ? asked_s : 0;
  // Read as `kbx eval` reads a submission. The slot keeps a verdict without perf, or with a
  // shorter deadline, apart from the server's default verdict on the same code.
  std::string code = submit::cut_at_separator(submit::strip_fences(request.code));
  std::string slot = p.perf || !options_.run.perf ? "serve" : "serve/no-perf";
  if (p.timeout_s > 0) {
    slot += fmt::format("/timeout={}", p.timeout_s);
  }
  p.submission = submit::Submission{task->key, std::move(code), "kbx serve", slot, 0};
  p.id = run::submission_id(p.submission);
  if (stopping()) {
    return Answer{503, Json{{"error", "kbx serve is shutting down; retry against its successor"}},
                  5};
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto d = done_.find(p.id); d != done_.end() && d->second == task->version) {
    p.served_from = "store";
    return std::nullopt;
  }
  if (auto f = in_flight_.find(p.id); f != in_flight_.end()) {
    p.served_from = "joined";
    verdict = f->second;
    return std::nullopt;
  }
  auto job = std::make_shared<Pending>();
  job->submission = p.submission;
  job->id = p.id;
  job->task = task;
  job->perf = p.perf;
  job->timeout_s = p.timeout_s;
  verdict = job->promise.get_future().share();
  if (!queue_.try_push([this, job] { run_job(job, current_gpu); })) {
    rejected_full_.fetch_add(1);
    return Answer{429,
                  Json{{"error", fmt::format("the evaluation queue is full ({} waiting, kbx serve "
                                             "--queue); retry after the Retry-After seconds",
                                             queue_.capacity())}},
                  retry_after_s()};
  }
  in_flight_.emplace(p.id, verdict);
  p.served_from = "evaluated";
  return std::nullopt;
}

int EvaluationService::retry_after_s() const {
  double per_eval_s = eval_ms_mean_.load() / 1000.0;
  double wait = per_eval_s * static_cast<double>(queue_.depth()) /
                std::max(1, options_.run.jobs);
  return std::clamp(static_cast<int>(std::ceil(wait)), 1, 300);
}

// ---- evaluation threads -------------------------------------------------------------------

void EvaluationService::thread_main(int gpu) {
  while (auto job = queue_.pop()) {
    current_gpu = gpu;
    (*job)();
  }
}

void EvaluationService::run_job(const std::shared_ptr<Pending>& job, int gpu) {
  running_.fetch_add(1);
  auto start = Clock::now();
  Answer answer;
  try {
    if (stopping()) {
      throw Error(ErrorKind::busy, "kbx serve is shutting down; retry against its successor");
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (tasks_stored_.insert(job->task->key).second) {
        db_->upsert_task(run::task_record(*job->task));
      }
    }
    db_->upsert_submission({job->id, job->task->key, "kbx serve", 0, job->submission.code});
    run::RunOptions options = run_options(job->perf);
    if (job->timeout_s > 0) {
      options.load_timeout_s = std::min(options.load_timeout_s, job->timeout_s);
      options.cases_timeout_s = std::min(options.cases_timeout_s, job->timeout_s);
    }
    if (options.perf && options.device == "cuda" &&
        (!options.reference_per_submission() || options.compile_baseline()) &&
        !job->task->workloads.empty()) {
      workers_->ensure_reference_timed(*job->task, gpu);
    }
    auto result = workers_->evaluate(options, job->submission, job->id, *job->task, gpu);
    if (result.fresh_reference_timings) {
      db_->save_reference_timings(session_id_, job->task->key, *result.fresh_reference_timings,
                                  workers_->label(gpu),
                                  result.reference_for_submission ? job->id : std::string());
    }
    if (result.record.outcome == "cancelled") {
      throw Error(ErrorKind::busy, "kbx serve was stopped during this evaluation; retry");
    }
    db_->save_evaluation(result.record);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_[job->id] = job->task->version;
    }
    evaluated_.fetch_add(1);
    double ms = ms_since(start);
    double mean = eval_ms_mean_.load();
    eval_ms_mean_.store(mean == 0 ? ms : 0.9 * mean + 0.1 * ms);
    answer = answer_for(job->id, "evaluated");
  } catch (const Error& e) {
    // Workers fail to start once the stop flag cancels their reads: that is the stop, not a fault.
    const bool stop = e.kind() == ErrorKind::busy || stopping();
    answer = stop ? Answer{503, Json{{"error", stop && e.kind() != ErrorKind::busy
                                                   ? "kbx serve is shutting down; retry"
                                                   : e.what()}},
                           5}
                  : error_answer(500, e.what());
    std::lock_guard<std::mutex> lock(mutex_);
    last_failure_ = stop ? last_failure_ : e.what();
  } catch (const std::exception& e) {
    answer = error_answer(500, fmt::format("internal error: {}", e.what()));
    std::lock_guard<std::mutex> lock(mutex_);
    last_failure_ = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(job->id);
  }
  job->promise.set_value(std::move(answer));
  running_.fetch_sub(1);
}

Answer EvaluationService::answer_for(const std::string& submission_id,
                                     const std::string& served_from) const {
  auto row = report::build_submission_row(*db_, submission_id);
  auto record = db_->evaluation(submission_id);
  if (!row || !record) {
    return error_answer(500, fmt::format("the verdict on submission {} is missing from the store",
                                         submission_id));
  }
  return Answer{200,
                Json{{"submission_id", submission_id},
                     {"served_from", served_from},
                     {"verdict", verdict_json(*row, *record)}},
                std::nullopt};
}

// ---- recording ----------------------------------------------------------------------------

void EvaluationService::record_evaluate(const RequestInfo& info, const Answer& answer,
                                        const Prepared* prepared, const EvaluateRequest* request,
                                        Clock::time_point start) {
  answered_.fetch_add(1);
  store::ServeRequestRecord r;
  r.session_id = session_id_;
  r.received_at = now_iso8601_ms();
  r.remote_addr = info.remote_addr;
  r.method = info.method;
  r.path = info.path;
  r.status = answer.status;
  if (request != nullptr) {
    r.task_key = request->task;
    r.label = request->label;
    r.metadata = request->metadata;
  }
  if (prepared != nullptr && answer.status == 200) {
    r.task_key = prepared->task->key;
    r.submission_id = prepared->id;
    r.served_from = answer.body.value("served_from", prepared->served_from);
    r.outcome = answer.body["verdict"].value("outcome", "");
  }
  r.perf = prepared != nullptr && prepared->perf;
  if (answer.status != 200) {
    r.error = answer.body.value("error", "");
  }
  r.time_total_ms = ms_since(start);
  db_->add_serve_request(r);
}

void EvaluationService::record(const RequestInfo& info, int status, const std::string& error) {
  store::ServeRequestRecord r;
  r.session_id = session_id_;
  r.received_at = now_iso8601_ms();
  r.remote_addr = info.remote_addr;
  r.method = info.method;
  r.path = info.path;
  r.status = status;
  r.error = error;
  db_->add_serve_request(r);
}

// ---- tasks and health ---------------------------------------------------------------------

Answer EvaluationService::tasks() const {
  Json out = Json::array();
  for (const auto& t : suite_.tasks) {
    out.push_back(suite::task_summary_json(t));
  }
  return Answer{200, out, std::nullopt};
}

Answer EvaluationService::task(const std::string& key) const {
  const suite::Task* t = suite_.find(key);
  if (t == nullptr) {
    t = suite_.find(key + ".py");
  }
  if (t == nullptr) {
    return error_answer(404, suite_.unknown_key_message(key));
  }
  return Answer{200, suite::task_detail_json(*t), std::nullopt};
}

Answer EvaluationService::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto& o = options_.run;
  Json gpus = Json::array();
  for (int g : o.gpus) {
    gpus.push_back(Json{{"index", g}, {"label", workers_->label(g)}});
  }
  Json h{{"status", stopping_.load() ? "stopping" : "ok"},
         {"queue_depth", queue_.depth()},
         {"queue_capacity", queue_.capacity()},
         {"in_flight", running_.load()},
         {"workers", std::max(1, o.jobs)},
         {"device", o.device},
         {"gpus", gpus},
         {"perf", o.perf && o.device == "cuda"},
         {"evaluated", evaluated_.load()},
         {"verdicts_stored", done_.size()},
         {"answered", answered_.load()},
         {"rejected_queue_full", rejected_full_.load()},
         {"uptime_s", std::chrono::duration<double>(Clock::now() - started_).count()},
         {"kbx_version", kbx::version_string()}};
  if (!last_failure_.empty()) {
    h["last_failure"] = last_failure_;
  }
  return Answer{200, h, std::nullopt};
}

}  // namespace kbx::serve
