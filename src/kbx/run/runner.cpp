// run_eval(): plan, warm workers, evaluation threads, and storing each result as it lands.
#include "kbx/run/runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "kbx/common/hash.h"
#include "kbx/common/strings.h"
#include "kbx/common/version.h"
#include "kbx/compare/tolerance.h"
#include "kbx/report/exports.h"
#include "kbx/report/report_model.h"
#include "kbx/run/code_quality.h"
#include "kbx/run/evaluate.h"
#include "kbx/run/reference_service.h"
#include "kbx/run/trace_timing.h"
#include "kbx/run/workers.h"
#include "kbx/sandbox/worker_pool.h"
#include "kbx/sandbox/zygote.h"

namespace kbx::run {
namespace {

namespace fs = std::filesystem;

std::string now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

/// Refuses to resume a run that was made with different judging options.
void check_identity(store::Database& db, const RunOptions& options, const suite::Suite& suite) {
  Json want = options.identity();
  if (options.shard.active()) {
    want["suite_version"] = suite_fingerprint(suite.tasks);
  }
  auto have = db.run_config();
  if (!have) {
    db.set_run_config(want);
    return;
  }
  if (have->contains("baselines") && !want.contains("baselines")) {
    want["baselines"] = options.baselines;  // eager alone: refused below, a resume keeps them
  }
  if (have->contains("graph_max_ms") && !want.contains("graph_max_ms")) {
    want["graph_max_ms"] = nullptr;  // without --graph: refused below, a resume keeps graph mode
  }
  if (have->contains("fail_fast") && !want.contains("fail_fast")) {
    want["fail_fast"] = false;  // without --fail-fast: refused below, a resume keeps it
  }
  bool timed_anywhere = true;  // the run chose no CPUs: `--timing-cpus any`, or kbx before it
  for (const char* key : {"timing_cpus", "fast_cpus", "spread_cpus"}) {
    if (have->contains(key)) {
      timed_anywhere = false;
      if (!want.contains(key)) {
        want[key] = nullptr;  // timed on other CPUs than this command asks: refused below
      }
    }
  }
  if (timed_anywhere && want.contains("spread_cpus")) {
    throw Error(ErrorKind::usage,
                "'{}' holds a run whose samples were timed where the system put each process "
                "(kbx before --timing-cpus spread became the default); resume it with "
                "--timing-cpus any, or use another -o folder",
                options.out_dir.string());
  }
  if (have->contains("cuda_connections") && !want.contains("cuda_connections")) {
    want["cuda_connections"] = 0;  // as kbx's environment has it: refused below
  }
  if (want.contains("cuda_connections") && !have->contains("cuda_connections")) {
    throw Error(ErrorKind::usage,
                "'{}' holds a run timed with the CUDA connections kbx's environment set (kbx "
                "before --cuda-connections, or --cuda-connections 0); resume it with "
                "--cuda-connections 0, or use another -o folder",
                options.out_dir.string());
  }
  for (const auto& [key, value] : want.items()) {
    if (key == "rules" && !have->contains(key) && value == "kbx") {
      continue;  // a run made before rule sets existed used kbx's rules
    }
    if (!have->contains(key) || (*have)[key] != value) {
      throw Error(ErrorKind::usage,
                  "'{}' holds a run made with {}={}, but this command asks for {}={}; use another "
                  "-o folder, or repeat the original options to resume it",
                  options.out_dir.string(), key, have->value(key, Json()).dump(), key, value.dump());
    }
  }
}

namespace {

struct PlanItem {
  submit::Submission submission;
  std::string id;
  const suite::Task* task = nullptr;
};

// The shapes of every tensor in a resolved call template, depth first, and the first one's dtype
// (what the public harness reports as a workload's input_size and dtype).
void collect_tensor_inputs(const Json& value, Json& shapes, std::string& dtype) {
  if (value.is_object() && value.size() == 1 && value.contains("tensor")) {
    const Json& spec = value["tensor"];
    shapes.push_back(spec.value("shape", Json::array()));
    if (dtype.empty() && spec.contains("dtype") && spec["dtype"].is_string()) {
      dtype = spec["dtype"].get<std::string>();
    }
    return;
  }
  if (value.is_array() || value.is_object()) {
    for (const Json& item : value) {
      collect_tensor_inputs(item, shapes, dtype);
    }
  }
}

store::WorkloadRecord workload_record(const suite::Workload& w) {
  store::WorkloadRecord r{w.index, w.params, w.bytes, w.flops, Json::array(), ""};
  collect_tensor_inputs(w.args, r.input_size, r.dtype);
  collect_tensor_inputs(w.kwargs, r.input_size, r.dtype);
  return r;
}

}  // namespace

store::TaskRecord task_record(const suite::Task& t) {
  store::TaskRecord r;
  r.key = t.key;
  r.category = t.category;
  r.entry = t.entry;
  r.version = t.version;
  r.case_count = static_cast<int>(t.cases.size());
  for (const auto& w : t.workloads) {
    r.workloads.push_back(workload_record(w));
  }
  return r;
}

namespace {

/// Everything that lives for the evaluation part of a run.
class Session {
 public:
  Session(const RunOptions& options, store::Database& db, std::int64_t session_id,
          ProgressSink& progress, const std::atomic<bool>& stop)
      : options_(options), db_(db), session_id_(session_id), progress_(progress), stop_(stop) {}

  void run(const std::vector<PlanItem>& items, int total_in_plan, int already_done) {
    for (const auto& item : items) {
      ++unfinished_[item.task->key];
    }
    start_workers();
    time_references(items);
    done_ = already_done;
    total_ = total_in_plan;
    std::vector<std::thread> threads;
    int jobs = std::max(1, std::min<int>(options_.jobs, static_cast<int>(items.size())));
    for (int t = 0; t < jobs; ++t) {
      int gpu = options_.gpus[static_cast<std::size_t>(t) % options_.gpus.size()];
      threads.emplace_back([this, &items, gpu] { thread_main(items, gpu); });
    }
    for (auto& th : threads) {
      th.join();
    }
    if (failure_) {
      std::rethrow_exception(failure_);
    }
  }

  [[nodiscard]] int evaluated() const { return evaluated_; }

 private:
  void start_workers() {
    progress_.on_status(fmt::format("starting the Python worker ({}) ...", options_.python));
    workers_ = std::make_unique<Workers>(options_, db_, session_id_);
  }

  /// Times the reference of every planned task on every GPU before any candidate runs, so no
  /// candidate process is alive while a reference is timed (one thread per GPU): eager first for
  /// every task (not with --reference-timing adjacent or interleaved, which time it in each submission's
  /// slot), then the compile baseline for every task when the run has it.
  void time_references(const std::vector<PlanItem>& items) {
    const bool eager = !options_.reference_per_submission();
    const bool compile = options_.compile_baseline();
    if (!options_.perf || options_.device != "cuda" || (!eager && !compile)) {
      return;
    }
    std::vector<const suite::Task*> tasks;
    for (const auto& item : items) {
      if (!item.task->workloads.empty() &&
          std::find(tasks.begin(), tasks.end(), item.task) == tasks.end()) {
        tasks.push_back(item.task);
      }
    }
    if (tasks.empty()) {
      return;
    }
    progress_.on_status(fmt::format("timing the references of {} task{}{} ...", tasks.size(),
                                    tasks.size() == 1 ? "" : "s",
                                    compile ? (eager ? " (eager, then torch.compile)"
                                                     : " (torch.compile)")
                                            : ""));
    std::vector<std::thread> threads;
    std::exception_ptr failure;
    std::mutex failure_mutex;
    for (int gpu : options_.gpus) {
      threads.emplace_back([&, gpu] {
        try {
          time_references_on(tasks, gpu, eager, compile);
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mutex);
          failure = failure ? failure : std::current_exception();
        }
      });
    }
    for (auto& t : threads) {
      t.join();
    }
    if (failure) {
      std::rethrow_exception(failure);
    }
    if (options_.reference_timing == "cached") {
      std::size_t baselines = (eager ? 1 : 0) + (compile ? 1 : 0);
      progress_.on_status(fmt::format("reference timings: {} of {} from the cache ({})",
                                      workers_->references().timings_from_cache(),
                                      tasks.size() * options_.gpus.size() * baselines,
                                      (options_.cache_dir / "timings").string()));
    }
    if (int quiet = workers_->references().timings_taken_quiet(); quiet > 0) {
      progress_.on_status(fmt::format(
          "reference timings: {} taken again with worker starts held off the host (their calls "
          "wait for the host)",
          quiet));
    }
  }

  void time_references_on(const std::vector<const suite::Task*>& tasks, int gpu, bool eager,
                          bool compile) {
    if (options_.reference_timing != "cached") {
      // The tasks' references are timed over all the GPU's reference workers (timing_lane_index):
      // their starts at once now, rather than each inside the first timing hold that needs it.
      sandbox::ExclusiveGpuHold hold(workers_->pool().gpu_lock(gpu));
      workers_->references().start_timing_workers(gpu);
    }
    for (const auto* task : tasks) {
      if (!eager || stop_.load()) {
        break;
      }
      sandbox::ExclusiveGpuHold hold(workers_->pool().gpu_lock(gpu));
      bool fresh = false;
      auto begin = Trace::Clock::now();
      auto timings = workers_->references().timings(*task, gpu, fresh);
      if (timings && fresh) {
        trace_time_request(options_.trace, "exclusive " + workers_->label(gpu), task->key,
                           Json{{"side", "reference"}}, begin, Trace::Clock::now(),
                           timings.value());
        db_.save_reference_timings(session_id_, task->key, timings.value(), workers_->label(gpu));
      }
    }
    if (options_.reference_timing == "cached" && eager && !stop_.load()) {
      // A task whose reference holds a host share has it timed again next to each candidate
      // (evaluate.cpp), by its lane's worker, which a run reading the timings from the cache has
      // not started: those lanes start now, at once, rather than each inside the exclusive hold
      // of the first such candidate, while the GPU waits.
      std::vector<const suite::Task*> host_share;
      for (const auto* task : tasks) {
        auto timings = workers_->references().cached_timings(*task, gpu);
        if (timings && any_host_share(timings.value())) {
          host_share.push_back(task);
        }
      }
      if (!host_share.empty()) {
        sandbox::ExclusiveGpuHold hold(workers_->pool().gpu_lock(gpu));
        workers_->references().start_timing_workers(gpu, &host_share);
      }
    }
    for (const auto* task : tasks) {
      if (!compile || stop_.load()) {
        break;
      }
      sandbox::ExclusiveGpuHold hold(workers_->pool().gpu_lock(gpu));
      std::string error = workers_->time_baseline(*task, gpu, baseline_compile);
      if (!error.empty()) {
        progress_.on_status(fmt::format("{}: no torch.compile baseline: {}", task->key,
                                        first_line(error)));
      }
    }
  }

  void thread_main(const std::vector<PlanItem>& items, int gpu) {
    try {
      while (!stop_.load() && !failed_.load()) {
        std::size_t i = next_.fetch_add(1);
        if (i >= items.size()) {
          return;
        }
        evaluate_one(items[i], gpu);
        task_item_done(*items[i].task);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_) {
        failure_ = std::current_exception();
      }
      failed_.store(true);
    }
  }

  /// True for a worker that died while kbx is being stopped: the same signal most likely killed
  /// it (scancel, a batch system's time limit, or `kill` of the job signal every process of the
  /// job, workers included), so its verdict would blame the candidate for kbx's stop. Such an
  /// evaluation is abandoned like an interrupted one and redone on resume. kbx's own signal may
  /// land a moment after the worker's, so a death waits up to 2 s for the stop flag.
  bool killed_by_stop(const store::EvaluationRecord& r) const {
    const bool died = r.outcome == "worker_lost" ||
                      (r.outcome == "crashed" && (r.reason == "SIGTERM" || r.reason == "SIGKILL" ||
                                                  r.reason == "SIGINT" || r.reason == "SIGHUP"));
    for (int i = 0; died && i < 20 && !stop_.load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return died && stop_.load();
  }

  /// Counts down the task's planned evaluations; after its last one, its kept reference outputs
  /// are dropped (ReferenceService::forget).
  void task_item_done(const suite::Task& task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--unfinished_[task.key] > 0) {
        return;
      }
    }
    workers_->references().forget(task);
  }

  void evaluate_one(const PlanItem& item, int gpu) {
    EvaluationResult result =
        workers_->evaluate(options_, item.submission, item.id, *item.task, gpu);
    if (result.fresh_reference_timings) {  // stored even if this evaluation is abandoned:
      // later evaluations of the task in this session point at them (or, taken in this
      // submission's slot, its own evaluation does).
      db_.save_reference_timings(session_id_, item.task->key, *result.fresh_reference_timings,
                                 workers_->label(gpu),
                                 result.reference_for_submission ? item.id : std::string());
    }
    if (result.record.outcome == "cancelled" || killed_by_stop(result.record)) {
      return;  // not stored: the next session redoes it
    }
    db_.save_evaluation(result.record);
    std::lock_guard<std::mutex> lock(mutex_);
    ++evaluated_;
    progress_.on_evaluated(item.task->key, result.record, ++done_, total_);
  }

  const RunOptions& options_;
  store::Database& db_;
  std::int64_t session_id_;
  ProgressSink& progress_;
  const std::atomic<bool>& stop_;
  std::unique_ptr<Workers> workers_;
  std::mutex mutex_;
  std::map<std::string, int> unfinished_;  // task key -> planned evaluations not done yet
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::exception_ptr failure_;
  int done_ = 0;
  int total_ = 0;
  int evaluated_ = 0;
};

/// The submissions this process evaluates: those --tasks selects, and of them this shard's part.
struct Selection {
  std::vector<submit::Submission> mine;
  std::size_t total = 0;  ///< selected by --tasks, over all shards
};

Selection select_submissions(const RunOptions& options, const suite::Suite& suite,
                             std::vector<submit::Submission> submissions) {
  Selection out;
  std::vector<submit::Submission> selected;
  for (auto& s : submissions) {
    if (task_selected(options.tasks_pattern, s.task_key)) {
      selected.push_back(std::move(s));
    }
  }
  out.total = selected.size();
  if (!options.shard.active()) {
    out.mine = std::move(selected);
    return out;
  }
  // One item per distinct id: a submission repeated in SOURCE lands on one shard only.
  const bool timed = options.perf && options.device == "cuda";
  std::vector<ShardItem> items;
  std::map<std::string, std::size_t> item_of_id;
  std::vector<std::string> ids;
  for (const auto& s : selected) {
    ids.push_back(submission_id(s));
    if (item_of_id.emplace(ids.back(), items.size()).second) {
      const suite::Task& task = *suite.find(s.task_key);
      items.push_back(
          {ids.back(), s.task_key, submission_cost(task, timed), task_setup_cost(task, timed)});
    }
  }
  auto shard_of = assign_shards(items, options.shard.count);
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (shard_of[item_of_id.at(ids[i])] == options.shard.index) {
      out.mine.push_back(std::move(selected[i]));
    }
  }
  return out;
}

}  // namespace

std::string submission_id(const submit::Submission& submission) {
  return sha256_hex(fmt::format("{}\n{}\n{}", submission.task_key, submission.slot,
                                submission.code))
      .substr(0, 32);
}

bool task_selected(const std::string& pattern_list, const std::string& key) {
  if (trim(pattern_list).empty()) {
    return true;
  }
  for (const auto& p : split(pattern_list, ',')) {
    std::string pattern(trim(p));
    if (!pattern.empty() && (glob_match(pattern, key) || glob_match(pattern + ".py", key))) {
      return true;
    }
  }
  return false;
}

RunSummary run_eval(const RunOptions& options, const suite::Suite& suite, ProgressSink& progress,
                    const std::atomic<bool>& stop) {
  fs::create_directories(options.out_dir);
  {
    auto db = store::Database::open(options.out_dir / "kbx.db");
    check_identity(*db, options, suite);  // before SOURCE is read: a mismatch costs nothing
  }
  return run_submissions(options, suite, submit::read_source(options.source, suite), progress, stop);
}

RunSummary run_submissions(const RunOptions& options, const suite::Suite& suite,
                           submit::SourceContents contents, ProgressSink& progress,
                           const std::atomic<bool>& stop) {
  fs::create_directories(options.out_dir);
  auto db = store::Database::open(options.out_dir / "kbx.db");
  check_identity(*db, options, suite);

  // The caller holds the folder's lock, so a session still "running" belongs to a dead process.
  if (int lost = db->close_lost_sessions(); lost > 0) {
    progress.on_status(fmt::format(
        "{} earlier session{} in this folder ended without closing (killed or crashed); what {} "
        "stored is kept",
        lost, lost == 1 ? "" : "s", lost == 1 ? "it" : "they"));
  }
  store::SessionRecord session;
  session.started_at = now_iso8601();
  session.status = "running";
  session.kbx_version = kbx::version_string();
  session.argv = options.argv;
  std::int64_t session_id = db->begin_session(session);

  RunSummary summary;
  for (const auto& p : contents.problems) {
    db->add_input_error({session_id, p.origin, p.message});
    progress.on_input_problem(p);
  }
  summary.input_problems = static_cast<int>(contents.problems.size());
  for (const auto& note : contents.notes) {
    progress.on_status("note: " + note);
  }

  auto finished = db->evaluated_task_versions();
  std::vector<PlanItem> pending;
  std::map<std::string, int> stale_by_task;
  std::map<std::string, bool> tasks_seen;
  auto selected = select_submissions(options, suite, std::move(contents.submissions));
  if (options.shard.active()) {
    progress.on_status(fmt::format("shard {}: {} of the {} selected submissions",
                                   options.shard.label(), selected.mine.size(), selected.total));
  }
  for (auto& s : selected.mine) {
    const suite::Task* task = suite.find(s.task_key);
    if (!tasks_seen[task->key]) {
      db->upsert_task(task_record(*task));
      tasks_seen[task->key] = true;
    }
    std::string id = submission_id(s);
    db->upsert_submission({id, s.task_key, s.origin, s.ordinal, s.code});
    ++summary.planned;
    auto done = finished.find(id);
    if (done != finished.end() && done->second == task->version) {
      ++summary.already_done;
    } else {
      if (done != finished.end()) {
        ++stale_by_task[task->key];  // its verdict was made against another version of the task
      }
      pending.push_back({std::move(s), id, task});
    }
  }
  for (const auto& [key, count] : stale_by_task) {
    summary.reevaluated_stale += count;
    progress.on_status(fmt::format(
        "{}: the task changed since {} stored verdict{}; re-evaluating {}", key, count,
        count == 1 ? "" : "s", count == 1 ? "it" : "them"));
  }
  progress.on_start(summary.planned, summary.already_done);

  if (!pending.empty()) {
    Session s(options, *db, session_id, progress, stop);
    try {
      s.run(pending, summary.planned, summary.already_done);
    } catch (...) {
      db->end_session(session_id, "failed");
      throw;
    }
    summary.evaluated = s.evaluated();
  }
  summary.interrupted = stop.load();
  db->end_session(session_id, summary.interrupted ? "interrupted" : "finished");
  auto model = report::build_report_model(*db);
  CodeQualityStep quality{options.python, options.worker_path};
  report::attach_code_quality(model, measure_code_quality(quality, model));
  if (!model.code_quality_note.empty()) {
    progress.on_status("note: " + model.code_quality_note);
  }
  report::write_exports(model, options.out_dir);
  return summary;
}

}  // namespace kbx::run
