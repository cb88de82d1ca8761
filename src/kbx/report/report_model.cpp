// build_report_model: rows, totals and outcome counts derived from the store's raw records.
#include "kbx/report/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <span>

namespace kbx::report {

bool is_host_synchronising(const store::TimingRecord& timing) {
  if (!timing.kernel_busy_ms || timing.samples_ms.empty()) {
    return false;
  }
  double median_ms = stats::summarize(timing.samples_ms).median;
  return stats::host_synchronising(median_ms, *timing.kernel_busy_ms);
}

namespace {

using store::EvaluationRecord;
using store::TaskRecord;
using store::TimingRecord;
using store::WorkloadRecord;

constexpr const char* pending_outcome = "pending";

// The order outcomes are listed in; anything else follows by name.
constexpr std::array<const char*, 14> outcome_order{
    "ok",          "incorrect",      "not_triton",         "compile_error", "runtime_error",
    "timeout",     "crashed",        "limit_exceeded",     "protocol_violation", "tampered",
    "worker_lost", "unsupported",    "skipped",            pending_outcome};

// Reference timings by (session, task key, device), each read from the store once.
class ReferenceCache {
 public:
  explicit ReferenceCache(store::Database& db) : db_(db) {}

  /// The submission's own reference timings (taken in its GPU slot) where it has them, else the
  /// session's.
  const std::vector<TimingRecord>* find(std::int64_t session_id, const std::string& task_key,
                                        const std::string& device,
                                        const std::string& submission_id) {
    if (const auto* own = lookup(session_id, task_key, device, submission_id)) {
      return own;
    }
    return lookup(session_id, task_key, device, "");
  }

  /// The session's timings of the compile baseline on `device`, or nullptr.
  const std::vector<TimingRecord>* compiled(std::int64_t session_id, const std::string& task_key,
                                            const std::string& device) {
    auto key = std::make_tuple(session_id, task_key, device, std::string("|compile"));
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, db_.baseline_timings(session_id, task_key, "compile", device)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

 private:
  const std::vector<TimingRecord>* lookup(std::int64_t session_id, const std::string& task_key,
                                          const std::string& device,
                                          const std::string& submission_id) {
    auto key = std::make_tuple(session_id, task_key, device, submission_id);
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      it = cache_.emplace(key, db_.reference_timings(session_id, task_key, device, submission_id))
               .first;
    }
    return it->second ? &*it->second : nullptr;
  }

  store::Database& db_;
  std::map<std::tuple<std::int64_t, std::string, std::string, std::string>,
           std::optional<std::vector<TimingRecord>>>
      cache_;
};

std::string category_of(const std::string& task_key, const TaskRecord* task) {
  if (task != nullptr && !task->category.empty()) {
    return task->category;
  }
  auto slash = task_key.find('/');
  return slash == std::string::npos ? "(none)" : task_key.substr(0, slash);
}

const TimingRecord* find_timing(const std::vector<TimingRecord>* timings, int workload) {
  if (timings == nullptr) {
    return nullptr;
  }
  auto it = std::find_if(timings->begin(), timings->end(),
                         [&](const TimingRecord& t) { return t.workload == workload; });
  return it == timings->end() ? nullptr : &*it;
}

const WorkloadRecord* find_workload(const TaskRecord* task, int index) {
  if (task == nullptr) {
    return nullptr;
  }
  auto it = std::find_if(task->workloads.begin(), task->workloads.end(),
                         [&](const WorkloadRecord& w) { return w.index == index; });
  return it == task->workloads.end() ? nullptr : &*it;
}

// Amount per second in units of `unit` (1e9 for GB/s, 1e12 for TFLOP/s); 0 without a time.
double per_second(double amount, double unit, double time_ms) {
  return time_ms > 0 ? amount / unit / (time_ms / 1e3) : 0;
}

// A time that can divide and be divided: samples with a positive, finite median.
bool usable_time(const stats::Summary& ms) {
  return ms.n > 0 && std::isfinite(ms.median) && ms.median > 0;
}

// The workload's CUDA-graph figures, from each side's graph samples and errors.
void fill_graph(WorkloadRow& w, const TimingRecord& candidate, const TimingRecord* reference) {
  w.graph_ms = stats::summarize(candidate.graph_samples_ms);
  w.graph_error = candidate.graph_error;
  if (reference != nullptr) {
    w.ref_graph_ms = stats::summarize(reference->graph_samples_ms);
    w.ref_graph_error = reference->graph_error;
  }
  if (usable_time(w.graph_ms) && usable_time(w.ref_graph_ms)) {
    w.graph_speedup = w.ref_graph_ms.median / w.graph_ms.median;
  }
}

WorkloadRow make_workload_row(const TimingRecord& candidate, const TimingRecord* reference,
                              const WorkloadRecord* model) {
  WorkloadRow w;
  w.index = candidate.workload;
  if (model != nullptr) {
    w.params = model->params;
    w.bytes = model->bytes;
    w.flops = model->flops;
    w.input_size = model->input_size;
    w.dtype = model->dtype;
  }
  w.candidate_ms = stats::summarize(candidate.samples_ms);
  if (reference != nullptr) {
    w.reference_ms = stats::summarize(reference->samples_ms);
  }
  double median_ms = w.candidate_ms.median;
  w.gbs = per_second(w.bytes, 1e9, median_ms);
  w.tflops = per_second(w.flops, 1e12, median_ms);
  w.speedup = median_ms > 0 && w.reference_ms.n > 0 ? w.reference_ms.median / median_ms : 0;
  w.host_synchronising = reference != nullptr && is_host_synchronising(*reference);
  w.timed_by_bracket = candidate.timed_by_bracket;
  fill_graph(w, candidate, reference);
  return w;
}

}  // namespace

std::string sampling_outcome(const stats::Summary& ms, bool timed_by_bracket) {
  if (timed_by_bracket) {
    return "brackets";
  }
  // A hair of slack: the worker stops on the same figure computed in Python.
  return ms.median_ci_rel <= stats::kMedianCiTarget * (1 + 1e-9) ? "ci" : "budget";
}

SamplingCounts count_sampling(const ReportModel& model) {
  SamplingCounts c;
  for (const SubmissionRow& r : model.rows) {
    if (!r.perf_ok) {
      continue;
    }
    for (const WorkloadRow& w : r.workloads) {
      ++c.timed;
      std::string outcome = sampling_outcome(w.candidate_ms, w.timed_by_bracket);
      if (outcome == "ci") {
        ++c.met;
      } else if (outcome == "brackets") {
        ++c.brackets;
      } else if (c.widest_at.empty() || !(w.candidate_ms.median_ci_rel <= c.widest)) {
        c.widest = w.candidate_ms.median_ci_rel;
        c.widest_at = fmt::format("{} workload {}", r.file, w.index);
      }
    }
  }
  return c;
}

namespace {

// Why an evaluation marked perf_ok has no usable timings in the store; empty when it has them.
std::string missing_perf_data(const SubmissionRow& row, const EvaluationRecord& e) {
  if (row.workloads.empty()) {
    return "no candidate timings";
  }
  if (e.reference_session_id == 0) {
    return "no reference session";
  }
  for (const WorkloadRow& w : row.workloads) {
    if (!usable_time(w.candidate_ms)) {
      return fmt::format("no usable candidate samples for workload {}", w.index);
    }
    if (!usable_time(w.reference_ms)) {
      return fmt::format("no usable reference samples for workload {} in session {}", w.index,
                         e.reference_session_id);
    }
  }
  return {};
}

// KernelBench-X's per-submission aggregates: sums of medians, rates and the speedup as ratios of
// sums, avg_speedup the mean of the workloads' speedups.
void fill_aggregates(SubmissionRow& row) {
  double bytes = 0;
  double flops = 0;
  std::vector<double> speedups;
  for (const WorkloadRow& w : row.workloads) {
    row.runtime_ms += w.candidate_ms.median;
    row.ref_runtime_ms += w.reference_ms.median;
    bytes += w.bytes;
    flops += w.flops;
    speedups.push_back(w.speedup);
  }
  row.gbs = per_second(bytes, 1e9, row.runtime_ms);
  row.tflops = per_second(flops, 1e12, row.runtime_ms);
  row.speedup = row.ref_runtime_ms / row.runtime_ms;
  row.avg_speedup = stats::arithmetic_mean(speedups);
}

// The CUDA-graph speedup: sums of graph medians over the workloads both sides replayed.
void fill_graph_aggregates(SubmissionRow& row) {
  double reference_ms = 0;
  double candidate_ms = 0;
  for (const WorkloadRow& w : row.workloads) {
    if (w.graph_speedup > 0) {
      reference_ms += w.ref_graph_ms.median;
      candidate_ms += w.graph_ms.median;
      row.graph_workloads += 1;
    }
  }
  if (row.graph_workloads > 0) {
    row.graph_speedup = reference_ms / candidate_ms;
  }
}

// The speedup's interval and verdict from the raw samples, seeded by the task key.
void fill_speedup_verdict(SubmissionRow& row, std::span<const stats::WorkloadSamples> samples,
                          stats::SpeedupBootstrap& bootstrap) {
  row.speedup_ci = bootstrap.interval(samples, stats::seed_for(row.file));
  row.host_synchronising = std::any_of(row.workloads.begin(), row.workloads.end(),
                                       [](const WorkloadRow& w) { return w.host_synchronising; });
  if (row.speedup_ci) {
    row.speedup_ci = stats::widen(*row.speedup_ci, row.host_synchronising
                                                       ? stats::host_synchronising_margin
                                                       : stats::slot_margin);
  }
  row.speedup_verdict = stats::judge_speedup(true, row.speedup_ci);
}

// Why a workload has no usable compile-baseline samples; empty when it has.
std::string compile_gap(const WorkloadRow& w, const TimingRecord* compiled) {
  if (compiled == nullptr) {
    return fmt::format("no torch.compile timing for workload {}", w.index);
  }
  if (compiled->status != "ok") {
    return fmt::format("workload {}: {}", w.index, compiled->error);
  }
  if (!usable_time(stats::summarize(compiled->samples_ms))) {
    return fmt::format("no usable torch.compile samples for workload {}", w.index);
  }
  return {};
}

// The speedup against the compile baseline (`compiled`: its timings in the evaluation's reference
// session), for a perf_ok row whose baseline timed every workload; else compile_note says why.
// The same sums, bootstrap, widening and verdict as against eager.
void fill_vs_compile(SubmissionRow& row, const EvaluationRecord& e,
                     const std::vector<TimingRecord>* compiled,
                     stats::SpeedupBootstrap& bootstrap) {
  if (compiled == nullptr || !row.perf_ok) {
    return;
  }
  BaselineSpeedup b;
  std::vector<stats::WorkloadSamples> samples;
  std::vector<double> speedups;
  for (std::size_t i = 0; i < row.workloads.size(); ++i) {
    WorkloadRow& w = row.workloads[i];
    const TimingRecord* c = find_timing(compiled, w.index);
    if (std::string gap = compile_gap(w, c); !gap.empty()) {
      row.compile_note = "torch.compile baseline: " + gap;
      return;
    }
    w.compile_ms = stats::summarize(c->samples_ms);
    w.compile_speedup = w.compile_ms.median / w.candidate_ms.median;
    b.ref_runtime_ms += w.compile_ms.median;
    speedups.push_back(w.compile_speedup);
    samples.push_back({e.timings[i].samples_ms, c->samples_ms});
    b.host_synchronising =
        b.host_synchronising || w.host_synchronising || is_host_synchronising(*c);
  }
  b.speedup = b.ref_runtime_ms / row.runtime_ms;
  b.avg_speedup = stats::arithmetic_mean(speedups);
  b.speedup_ci = bootstrap.interval(samples, stats::seed_for(row.file + "|compile"));
  if (b.speedup_ci) {
    b.speedup_ci = stats::widen(*b.speedup_ci, b.host_synchronising
                                                   ? stats::host_synchronising_margin
                                                   : stats::slot_margin);
  }
  b.speedup_verdict = stats::judge_speedup(true, b.speedup_ci);
  row.vs_compile = b;
}

void fill_evaluation(SubmissionRow& row, const EvaluationRecord& e, const TaskRecord* task,
                     ReferenceCache& references, stats::SpeedupBootstrap& bootstrap) {
  row.call_ok = e.call_ok;
  row.exe_ok = e.exe_ok;
  row.triton_ok = e.triton_ok;
  row.outcome = e.outcome;
  row.reason = e.reason;
  row.detail = e.detail;
  row.perf_note = e.perf_note;
  row.time_total_ms = e.time_total_ms;
  const auto* reference =
      e.reference_session_id != 0
          ? references.find(e.reference_session_id, row.file, e.device, e.submission_id)
          : nullptr;
  std::vector<stats::WorkloadSamples> samples;
  for (const TimingRecord& t : e.timings) {
    const TimingRecord* reference_timing = find_timing(reference, t.workload);
    row.workloads.push_back(
        make_workload_row(t, reference_timing, find_workload(task, t.workload)));
    if (reference_timing != nullptr) {
      samples.push_back({t.samples_ms, reference_timing->samples_ms});
    }
  }
  if (!e.perf_ok) {
    return;
  }
  std::string missing = missing_perf_data(row, e);
  if (!missing.empty()) {
    row.perf_note = "perf data incomplete in the store: " + missing;
    return;
  }
  row.perf_ok = true;
  fill_aggregates(row);
  fill_graph_aggregates(row);
  fill_speedup_verdict(row, samples, bootstrap);
  fill_vs_compile(row, e, references.compiled(e.reference_session_id, row.file, e.device),
                  bootstrap);
}

SubmissionRow make_row(const store::SubmissionRecord& s, const TaskRecord* task,
                       const EvaluationRecord* e, ReferenceCache& references,
                       stats::SpeedupBootstrap& bootstrap) {
  SubmissionRow row;
  row.file = s.task_key;
  row.category = category_of(s.task_key, task);
  row.submission_id = s.id;
  row.origin = s.origin;
  row.code = s.code;
  if (task != nullptr && !task->workloads.empty()) {
    row.dtype = task->workloads.front().dtype;
  }
  row.outcome = pending_outcome;
  if (e != nullptr) {
    fill_evaluation(row, *e, task, references, bootstrap);
  }
  return row;
}

void count_verdict(Totals::VerdictCounts& counts, stats::SpeedupVerdict verdict) {
  switch (verdict) {
    case stats::SpeedupVerdict::faster:
      counts.faster += 1;
      break;
    case stats::SpeedupVerdict::same:
      counts.same += 1;
      break;
    case stats::SpeedupVerdict::slower:
      counts.slower += 1;
      break;
    case stats::SpeedupVerdict::ambiguous:
      counts.ambiguous += 1;
      break;
    case stats::SpeedupVerdict::none:
      counts.none += 1;
      break;
  }
}

// fast_p for p = 1, 1.5, 2: a correct row's win counts where its interval's low end clears p.
void count_fast_p(Totals& t, const SubmissionRow& r) {
  if (!r.exe_ok || r.speedup_verdict != stats::SpeedupVerdict::faster || !r.speedup_ci) {
    return;
  }
  double low = r.speedup_ci->low;
  t.fast_1_pass += low > 1 ? 1 : 0;
  t.fast_1_5_pass += low > 1.5 ? 1 : 0;
  t.fast_2_pass += low > 2 ? 1 : 0;
}

// The totals against the compile baseline: its verdicts over every row, the rest over rows with it.
void count_vs_compile(Totals::Baseline& t, const std::vector<const SubmissionRow*>& rows) {
  std::vector<double> speedups;
  for (const SubmissionRow* r : rows) {
    const auto& b = r->vs_compile;
    count_verdict(t.verdicts, b ? b->speedup_verdict : stats::SpeedupVerdict::none);
    if (!b) {
      continue;
    }
    t.timed += 1;
    speedups.push_back(b->speedup);
    if (r->exe_ok && b->speedup_verdict == stats::SpeedupVerdict::faster && b->speedup_ci) {
      t.fast_1_pass += b->speedup_ci->low > 1 ? 1 : 0;
      t.fast_1_5_pass += b->speedup_ci->low > 1.5 ? 1 : 0;
      t.fast_2_pass += b->speedup_ci->low > 2 ? 1 : 0;
    }
  }
  t.geomean_speedup = stats::geometric_mean(speedups);
}

// The CUDA-graph totals over the perf_ok rows (Totals::Graph).
void count_graph(Totals::Graph& t, const std::vector<const SubmissionRow*>& rows) {
  std::vector<double> graph;
  std::vector<double> eager;
  std::set<std::string> tasks;
  for (const SubmissionRow* r : rows) {
    if (!r->perf_ok) {
      continue;
    }
    for (const WorkloadRow& w : r->workloads) {
      t.failed_workloads += w.graph_error.empty() && w.ref_graph_error.empty() ? 0 : 1;
    }
    if (!r->graph_speedup) {
      continue;
    }
    t.timed += 1;
    t.workloads += r->graph_workloads;
    tasks.insert(r->file);
    graph.push_back(*r->graph_speedup);
    eager.push_back(r->speedup);
  }
  t.tasks = static_cast<int>(tasks.size());
  t.geomean_speedup = stats::geometric_mean(graph);
  t.eager_geomean_speedup = stats::geometric_mean(eager);
}

}  // namespace

Totals make_totals(const std::vector<const SubmissionRow*>& rows) {
  Totals t;
  t.total = static_cast<int>(rows.size());
  double reference_ms = 0;
  double candidate_ms = 0;
  std::vector<double> speedups;
  for (const SubmissionRow* r : rows) {
    t.call_pass += r->call_ok ? 1 : 0;
    t.exe_pass += r->exe_ok ? 1 : 0;
    count_verdict(t.verdicts, r->speedup_verdict);
    count_fast_p(t, *r);
    if (!r->perf_ok) {
      continue;
    }
    t.perf_pass += 1;
    t.faster_than_reference += r->speedup > 1 ? 1 : 0;
    speedups.push_back(r->speedup);
    for (const WorkloadRow& w : r->workloads) {
      reference_ms += w.reference_ms.median;
      candidate_ms += w.candidate_ms.median;
    }
  }
  t.avg_speedup_global = candidate_ms > 0 ? reference_ms / candidate_ms : 0;
  t.avg_speedup_per_task = stats::arithmetic_mean(speedups);
  t.geomean_speedup = stats::geometric_mean(speedups);
  count_vs_compile(t.vs_compile, rows);
  count_graph(t.graph, rows);
  return t;
}

namespace {

std::vector<std::pair<std::string, Totals>> category_totals(
    const std::vector<SubmissionRow>& rows) {
  std::map<std::string, std::vector<const SubmissionRow*>> groups;
  for (const SubmissionRow& r : rows) {
    groups[r.category].push_back(&r);
  }
  std::vector<std::pair<std::string, Totals>> out;
  out.reserve(groups.size());
  for (const auto& [name, members] : groups) {
    out.emplace_back(name, make_totals(members));
  }
  return out;
}

std::vector<std::pair<std::string, int>> count_outcomes(const std::vector<SubmissionRow>& rows) {
  std::map<std::string, int> counts;
  for (const SubmissionRow& r : rows) {
    counts[r.outcome] += 1;
  }
  std::vector<std::pair<std::string, int>> out;
  for (const char* name : outcome_order) {
    if (auto it = counts.find(name); it != counts.end()) {
      out.emplace_back(it->first, it->second);
      counts.erase(it);
    }
  }
  out.insert(out.end(), counts.begin(), counts.end());  // unknown outcomes, by name
  return out;
}

std::vector<store::InputErrorRecord> distinct_input_errors(store::Database& db) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<store::InputErrorRecord> out;
  for (auto& e : db.input_errors()) {
    if (seen.emplace(e.origin, e.message).second) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

// The environment of the latest session that recorded one (an interrupted start may not have).
Json latest_environment(store::Database& db) {
  auto sessions = db.sessions();
  for (auto it = sessions.rbegin(); it != sessions.rend(); ++it) {
    if (!it->env.empty()) {
      return it->env;
    }
  }
  return Json::object();
}

// The devices evaluations ran on, in order of first use ("cuda:0 NVIDIA H200").
std::string devices_of(const std::vector<EvaluationRecord>& evaluations) {
  std::vector<std::string> devices;
  for (const EvaluationRecord& e : evaluations) {
    if (!e.device.empty() && std::find(devices.begin(), devices.end(), e.device) == devices.end()) {
      devices.push_back(e.device);
    }
  }
  return fmt::format("{}", fmt::join(devices, ", "));
}

// How far a row got: correct, ran, failed, not evaluated.
int progress_rank(const SubmissionRow& r) {
  if (r.exe_ok) {
    return 3;
  }
  if (r.call_ok) {
    return 2;
  }
  return r.outcome == pending_outcome ? 0 : 1;
}

// The rows metrics.json keeps, one per task in order of first appearance.
std::vector<std::size_t> rows_kept_per_task(const std::vector<SubmissionRow>& rows) {
  std::vector<std::size_t> kept;
  std::map<std::string, std::size_t> slot_of_task;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto [it, fresh] = slot_of_task.emplace(rows[i].file, kept.size());
    if (fresh) {
      kept.push_back(i);
    } else if (keep_for_task(rows[i], rows[kept[it->second]])) {
      kept[it->second] = i;
    }
  }
  return kept;
}

// The run's baselines from its identity ({"eager"} before the choice existed; a merged run's
// `{"combined": [...]}` counts each), with compile added when a row has compile timings.
std::vector<std::string> run_baselines(store::Database& db,
                                       const std::vector<SubmissionRow>& rows) {
  std::vector<std::string> out{"eager"};
  auto add = [&out](const Json& list) {
    for (const Json& name : list.is_array() ? list : Json::array()) {
      if (name.is_string() &&
          std::find(out.begin(), out.end(), name.get<std::string>()) == out.end()) {
        out.push_back(name.get<std::string>());
      }
    }
  };
  if (auto config = db.run_config(); config && config->contains("baselines")) {
    const Json& b = (*config)["baselines"];
    add(b);
    if (b.is_object() && b.contains("combined") && b["combined"].is_array()) {
      for (const Json& one : b["combined"]) {
        add(one);
      }
    }
  }
  bool compiled = std::any_of(rows.begin(), rows.end(), [](const SubmissionRow& r) {
    return r.vs_compile.has_value() || !r.compile_note.empty();
  });
  if (compiled) {
    add(Json::array({"compile"}));
  }
  return out;
}

// Whether the run is in CUDA-graph mode: its identity says so (a merged run's too), or a stored
// timing of a row has graph samples or a graph error.
bool has_graph_mode(store::Database& db, const std::vector<SubmissionRow>& rows) {
  if (auto config = db.run_config(); config && config->contains("graph_max_ms")) {
    return true;
  }
  return std::any_of(rows.begin(), rows.end(), [](const SubmissionRow& r) {
    return std::any_of(r.workloads.begin(), r.workloads.end(),
                       [](const WorkloadRow& w) { return w.has_graph_figures(); });
  });
}

std::optional<double> number_or_null(const Json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) {
    return j[key].get<double>();
  }
  return std::nullopt;
}

// The ceilings of the environment's devices, when every device that has them has the same ones
// (one GPU model); null otherwise.
Json ceilings_of(const Json& environment) {
  Json found;
  if (!environment.contains("devices") || !environment["devices"].is_array()) {
    return found;
  }
  for (const Json& d : environment["devices"]) {
    if (!d.is_object() || !d.contains("ceilings") || !d["ceilings"].is_object()) {
      continue;
    }
    if (found.is_null()) {
      found = d["ceilings"];
    } else if (found.value("name", "") != d["ceilings"].value("name", "")) {
      return Json();
    }
  }
  return found;
}

std::optional<double> ratio(double achieved, const Json& ceilings, const char* what,
                            const std::string& dtype) {
  const Json* peak = nullptr;
  if (dtype.empty()) {
    peak = ceilings.contains(what) && ceilings[what].is_number() ? &ceilings[what] : nullptr;
  } else if (ceilings.contains(what) && ceilings[what].is_object() &&
             ceilings[what].contains(dtype) && ceilings[what][dtype].is_number()) {
    peak = &ceilings[what][dtype];
    // A float32 kernel may use the tensor cores (tl.dot with tf32x3 keeps float32 accuracy):
    // its roof is the TF32 matmul's, when that was measured and is higher.
    const Json& tf32 = ceilings[what].value("tfloat32", Json());
    if (dtype == "float32" && tf32.is_number() && tf32.get<double>() > peak->get<double>()) {
      peak = &ceilings[what]["tfloat32"];
    }
  }
  if (peak == nullptr || peak->get<double>() <= 0 || achieved <= 0) {
    return std::nullopt;
  }
  return achieved / peak->get<double>();
}

void apply_ceilings(ReportModel& model) {
  model.ceilings = ceilings_of(model.environment);
  if (model.ceilings.is_null()) {
    return;
  }
  auto over = [](const std::optional<double>& u) { return u && *u > 1.0; };
  for (SubmissionRow& row : model.rows) {
    if (!row.perf_ok) {
      continue;
    }
    for (WorkloadRow& w : row.workloads) {
      w.bandwidth_utilisation = ratio(w.gbs, model.ceilings, "copy_gbs", "");
      w.compute_utilisation = ratio(w.tflops, model.ceilings, "matmul_tflops", w.dtype);
      row.utilisation_suspect = row.utilisation_suspect || over(w.bandwidth_utilisation) ||
                                over(w.compute_utilisation);
    }
    row.bandwidth_utilisation = ratio(row.gbs, model.ceilings, "copy_gbs", "");
    row.compute_utilisation = ratio(row.tflops, model.ceilings, "matmul_tflops", row.dtype);
    row.utilisation_suspect = row.utilisation_suspect || over(row.bandwidth_utilisation) ||
                              over(row.compute_utilisation);
  }
}

}  // namespace

std::string ReportModel::method() const {
  auto it = labels.find("method");
  return it == labels.end() ? "" : it->second;
}

bool ReportModel::has_compile_baseline() const {
  return std::find(baselines.begin(), baselines.end(), "compile") != baselines.end();
}

bool keep_for_task(const SubmissionRow& a, const SubmissionRow& b) {
  if (progress_rank(a) != progress_rank(b)) {
    return progress_rank(a) > progress_rank(b);
  }
  if (a.perf_ok != b.perf_ok) {
    return a.perf_ok;
  }
  return a.perf_ok && a.speedup > b.speedup;
}

void attach_code_quality(ReportModel& model, const Json& reply) {
  const Json* results =
      reply.contains("results") && reply["results"].is_object() ? &reply["results"] : nullptr;
  if (reply.contains("radon") && reply["radon"].is_string()) {
    model.code_quality_tool = "radon " + reply["radon"].get<std::string>();
  }
  model.code_quality_note = reply.value("note", std::string());
  for (SubmissionRow& row : model.rows) {
    if (results == nullptr || !results->contains(row.submission_id)) {
      continue;
    }
    const Json& r = (*results)[row.submission_id];
    if (!r.is_object()) {
      continue;
    }
    row.code_quality.complexity = number_or_null(r, "code_quality");
    row.code_quality.maintainability = number_or_null(r, "maintainability");
    row.code_quality.error = r.value("error", std::string());
  }
  if (model.code_quality_note.empty() && results == nullptr) {
    model.code_quality_note = "the code-quality step gave no results";
  }
}

ReportModel build_report_model(store::Database& db) {
  std::map<std::string, TaskRecord> tasks;
  for (auto& t : db.tasks()) {
    tasks.emplace(t.key, std::move(t));
  }
  auto evaluations = db.evaluations();
  std::map<std::string, const EvaluationRecord*> by_submission;
  for (const EvaluationRecord& e : evaluations) {
    by_submission[e.submission_id] = &e;
  }
  ReferenceCache references(db);
  stats::SpeedupBootstrap bootstrap;
  ReportModel model;
  for (const auto& s : db.submissions()) {
    auto task = tasks.find(s.task_key);
    auto e = by_submission.find(s.id);
    model.rows.push_back(make_row(s, task == tasks.end() ? nullptr : &task->second,
                                  e == by_submission.end() ? nullptr : e->second, references,
                                  bootstrap));
  }
  std::map<std::string, const store::GenerationRecord*> generated;
  auto generations = db.generations();
  for (const auto& g : generations) {
    if (!g.submission_id.empty()) {
      generated.emplace(g.submission_id, &g);  // the first (round, candidate) that made it
    }
  }
  for (SubmissionRow& r : model.rows) {
    if (auto g = generated.find(r.submission_id); g != generated.end()) {
      r.labels = {{"method", g->second->method},
                  {"model", g->second->model},
                  {"round", std::to_string(g->second->round)},
                  {"candidate", std::to_string(g->second->candidate)}};
      r.parent_submission_id = g->second->parent_submission_id;
    }
  }
  std::vector<const SubmissionRow*> all;
  for (const SubmissionRow& r : model.rows) {
    all.push_back(&r);
  }
  model.categories = category_totals(model.rows);
  model.overall = make_totals(all);
  model.task_rows = rows_kept_per_task(model.rows);
  std::vector<const SubmissionRow*> kept;
  for (std::size_t i : model.task_rows) {
    kept.push_back(&model.rows[i]);
  }
  model.task_totals = make_totals(kept);
  model.outcomes = count_outcomes(model.rows);
  model.input_errors = distinct_input_errors(db);
  model.environment = latest_environment(db);
  apply_ceilings(model);
  model.device = devices_of(evaluations);
  if (auto config = db.run_config(); config && config->contains("labels")) {
    for (const auto& [key, value] : (*config)["labels"].items()) {
      if (value.is_string()) {
        model.labels[key] = value.get<std::string>();
      }
    }
  }
  if (auto config = db.run_config(); config && config->contains("perf_scale") &&
                                     (*config)["perf_scale"].is_number()) {
    model.perf_scale = (*config)["perf_scale"].get<double>();
  }
  model.baselines = run_baselines(db, model.rows);
  model.graph_mode = has_graph_mode(db, model.rows);
  return model;
}

std::optional<SubmissionRow> build_submission_row(store::Database& db,
                                                  const std::string& submission_id) {
  auto submission = db.submission(submission_id);
  if (!submission) {
    return std::nullopt;
  }
  std::optional<TaskRecord> task;
  for (auto& t : db.tasks()) {
    if (t.key == submission->task_key) {
      task = std::move(t);
    }
  }
  auto evaluation = db.evaluation(submission_id);
  ReferenceCache references(db);
  stats::SpeedupBootstrap bootstrap;
  return make_row(*submission, task ? &*task : nullptr, evaluation ? &*evaluation : nullptr,
                  references, bootstrap);
}

}  // namespace kbx::report
