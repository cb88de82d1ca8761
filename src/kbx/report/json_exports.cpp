// The exports: metrics.json and summary.json exactly as KernelBench-X writes them, and kbx's own
// kbx-results.json (every submission, every figure) and kbx-results.csv.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <system_error>

#include "kbx/common/error.h"
#include "kbx/common/files.h"
#include "kbx/report/exports.h"

namespace kbx::report {
namespace {

const Json not_available = "N/A";  // the public harness's mark for a missing figure

double rate(int pass, int total) { return total > 0 ? static_cast<double>(pass) / total : 0.0; }

// A percentage rounded to one decimal, as the public summary writes its rates.
double percent(int pass, int total) { return std::round(rate(pass, total) * 1000.0) / 10.0; }

Json number_or_na(bool present, double value) { return present ? Json(value) : not_available; }

Json optional_or_na(const std::optional<double>& v) { return v ? Json(*v) : not_available; }

Json optional_or_null(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// PyTorch's name for a dtype, as str(torch.float32) prints it.
Json torch_dtype(const std::string& dtype) {
  return dtype.empty() ? not_available : Json("torch." + dtype);
}

Json verdicts_json(const Totals::VerdictCounts& v) {
  Json j = Json::object();
  j["faster"] = v.faster;
  j["same"] = v.same;
  j["slower"] = v.slower;
  j["ambiguous"] = v.ambiguous;
  j["none"] = v.none;
  return j;
}

// ---- metrics.json and summary.json (the public shape) ------------------------------------

Json performance_entry(const WorkloadRow& w) {
  Json j = Json::object();
  j["input_size"] = w.input_size.empty() ? not_available : w.input_size;
  j["ms"] = w.candidate_ms.median;
  j["GB/s"] = w.gbs;
  j["TFLOPS"] = w.tflops;
  return j;
}

// What went wrong, for the public record's `error`: empty for a correct submission.
std::string error_text(const SubmissionRow& r) {
  if (r.exe_ok) {
    return "";
  }
  if (r.outcome == "pending") {
    return "pending: not evaluated yet";
  }
  std::string text = r.outcome;
  if (!r.reason.empty()) {
    text += " (" + r.reason + ")";
  }
  if (!r.detail.empty()) {
    text += ": " + r.detail;
  }
  return text;
}

Json public_record(const SubmissionRow& r, const std::string& method) {
  Json j = Json::object();
  j["call_ok"] = r.call_ok;
  j["exe_ok"] = r.exe_ok;
  j["perf_ok"] = r.perf_ok;
  j["method"] = method;
  j["speedup"] = number_or_na(r.perf_ok, r.speedup);
  j["avg_speedup"] = number_or_na(r.perf_ok, r.avg_speedup);
  j["runtime_ms"] = number_or_na(r.perf_ok, r.runtime_ms);
  j["gbs"] = number_or_na(r.perf_ok, r.gbs);
  j["tflops"] = number_or_na(r.perf_ok, r.tflops);
  j["dtype"] = torch_dtype(r.dtype);
  j["performance"] = Json::array();
  if (r.perf_ok) {
    for (const WorkloadRow& w : r.workloads) {
      j["performance"].push_back(performance_entry(w));
    }
  }
  j["error"] = error_text(r);
  j["code"] = r.code;
  j["code_quality"] = optional_or_na(r.code_quality.complexity);
  j["maintainability"] = optional_or_na(r.code_quality.maintainability);
  return j;
}

// ---- kbx-results.json ---------------------------------------------------------------------

Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json ratio_or_null(bool present, double value) { return present ? Json(value) : Json(nullptr); }

// The CUDA-graph figures of a workload (a run in graph mode): null medians and speedup where a
// side has no graph samples; each side's error only when there is one.
void add_graph(Json& j, const WorkloadRow& w) {
  j["graph_runtime_ms"] = ratio_or_null(w.graph_ms.n > 0, w.graph_ms.median);
  j["ref_graph_runtime_ms"] = ratio_or_null(w.ref_graph_ms.n > 0, w.ref_graph_ms.median);
  j["graph_speedup"] = ratio_or_null(w.graph_speedup > 0, w.graph_speedup);
  if (!w.graph_error.empty()) {
    j["graph_error"] = w.graph_error;
  }
  if (!w.ref_graph_error.empty()) {
    j["ref_graph_error"] = w.ref_graph_error;
  }
}

Json workload_json(const WorkloadRow& w, bool compile, bool graph) {
  Json j = Json::object();
  j["index"] = w.index;
  j["params"] = w.params;
  j["input_size"] = w.input_size;
  j["dtype"] = w.dtype;
  j["bytes"] = w.bytes;
  j["flops"] = w.flops;
  j["runtime_ms"] = w.candidate_ms.median;
  j["runtime_ms_q1"] = w.candidate_ms.q1;
  j["runtime_ms_q3"] = w.candidate_ms.q3;
  j["n_samples"] = w.candidate_ms.n;
  j["median_ci_rel"] = finite_or_null(w.candidate_ms.median_ci_rel);
  j["sampling"] = sampling_outcome(w.candidate_ms, w.timed_by_bracket);
  j["ref_runtime_ms"] = w.reference_ms.median;
  j["ref_n_samples"] = w.reference_ms.n;
  j["ref_median_ci_rel"] = finite_or_null(w.reference_ms.median_ci_rel);
  j["gbs"] = w.gbs;
  j["tflops"] = w.tflops;
  j["speedup"] = w.speedup;
  j["host_synchronising"] = w.host_synchronising;
  j["bandwidth_utilisation"] = optional_or_null(w.bandwidth_utilisation);
  j["compute_utilisation"] = optional_or_null(w.compute_utilisation);
  if (compile) {  // the run has the compile baseline: its median and the speedup against it
    j["compile_runtime_ms"] = ratio_or_null(w.compile_ms.n > 0, w.compile_ms.median);
    j["speedup_vs_compile"] = ratio_or_null(w.compile_ms.n > 0, w.compile_speedup);
  }
  if (graph) {
    add_graph(j, w);
  }
  return j;
}

// The speedup against torch.compile (a run with `--baseline eager,compile`); null figures and
// the verdict `none` where the row has none, with compile_note saying why.
void add_vs_compile(Json& j, const SubmissionRow& r) {
  const auto& b = r.vs_compile;
  j["compile_ref_runtime_ms"] = b ? Json(b->ref_runtime_ms) : Json(nullptr);
  j["speedup_vs_compile"] = b ? Json(b->speedup) : Json(nullptr);
  j["avg_speedup_vs_compile"] = b ? Json(b->avg_speedup) : Json(nullptr);
  j["speedup_vs_compile_ci_low"] = b && b->speedup_ci ? Json(b->speedup_ci->low) : Json(nullptr);
  j["speedup_vs_compile_ci_high"] = b && b->speedup_ci ? Json(b->speedup_ci->high) : Json(nullptr);
  j["speedup_vs_compile_verdict"] =
      std::string(stats::to_string(b ? b->speedup_verdict : stats::SpeedupVerdict::none));
  j["compile_note"] = r.compile_note;
}

Json row_json(const SubmissionRow& r, bool kept, bool compile, bool graph) {
  Json j = Json::object();
  j["file"] = r.file;
  j["call_ok"] = r.call_ok;
  j["exe_ok"] = r.exe_ok;
  j["perf_ok"] = r.perf_ok;
  j["runtime_ms"] = r.runtime_ms;
  j["gbs"] = r.gbs;
  j["tflops"] = r.tflops;
  j["speedup"] = r.speedup;
  j["avg_speedup"] = r.avg_speedup;
  j["category"] = r.category;
  j["outcome"] = r.outcome;
  j["reason"] = r.reason;
  j["detail"] = r.detail;
  j["triton_ok"] = r.triton_ok;
  j["perf_note"] = r.perf_note;
  j["ref_runtime_ms"] = r.ref_runtime_ms;
  j["speedup_ci_low"] = r.speedup_ci ? Json(r.speedup_ci->low) : Json(nullptr);  // no interval
  j["speedup_ci_high"] = r.speedup_ci ? Json(r.speedup_ci->high) : Json(nullptr);
  j["speedup_verdict"] = std::string(stats::to_string(r.speedup_verdict));
  j["host_synchronising"] = r.host_synchronising;
  j["bandwidth_utilisation"] = optional_or_null(r.bandwidth_utilisation);
  j["compute_utilisation"] = optional_or_null(r.compute_utilisation);
  j["utilisation_suspect"] = r.utilisation_suspect;
  if (compile) {
    add_vs_compile(j, r);
  }
  if (graph) {  // CUDA-graph mode: beside the eager speedup, never mixed into it
    j["graph_speedup"] = r.graph_speedup ? Json(*r.graph_speedup) : Json(nullptr);
    j["graph_workloads"] = r.graph_workloads;
  }
  j["code_quality"] = optional_or_null(r.code_quality.complexity);
  j["maintainability"] = optional_or_null(r.code_quality.maintainability);
  j["code_quality_error"] = r.code_quality.error;
  j["in_metrics_json"] = kept;
  j["submission_id"] = r.submission_id;
  j["origin"] = r.origin;
  if (!r.labels.empty()) {  // a generated candidate's method, model, round and candidate
    j["labels"] = r.labels;
  }
  j["workloads"] = Json::array();
  for (const WorkloadRow& w : r.workloads) {
    j["workloads"].push_back(workload_json(w, compile, graph));
  }
  j["code"] = r.code;
  return j;
}

Json vs_compile_json(const Totals& t) {
  const Totals::Baseline& b = t.vs_compile;
  Json j = Json::object();
  j["timed"] = b.timed;
  j["geomean_speedup"] = b.geomean_speedup;
  j["speedup_verdicts"] = verdicts_json(b.verdicts);
  j["fast_1"] = rate(b.fast_1_pass, t.total);
  j["fast_1_5"] = rate(b.fast_1_5_pass, t.total);
  j["fast_2"] = rate(b.fast_2_pass, t.total);
  return j;
}

Json graph_json(const Totals::Graph& g) {
  Json j = Json::object();
  j["timed"] = g.timed;
  j["tasks"] = g.tasks;
  j["workloads"] = g.workloads;
  j["geomean_speedup"] = g.timed > 0 ? Json(g.geomean_speedup) : Json(nullptr);
  j["eager_geomean_speedup"] = g.timed > 0 ? Json(g.eager_geomean_speedup) : Json(nullptr);
  j["failed_workloads"] = g.failed_workloads;
  return j;
}

Json totals_json(const Totals& t, bool compile, bool graph) {
  Json j = Json::object();
  j["total"] = t.total;
  j["call_pass"] = t.call_pass;
  j["call_rate"] = rate(t.call_pass, t.total);
  j["exe_pass"] = t.exe_pass;
  j["exe_rate"] = rate(t.exe_pass, t.total);
  j["perf_pass"] = t.perf_pass;
  j["perf_rate"] = rate(t.perf_pass, t.total);
  j["avg_speedup_global"] = t.avg_speedup_global;
  j["avg_speedup_per_task"] = t.avg_speedup_per_task;
  j["geomean_speedup"] = t.geomean_speedup;
  j["faster_than_reference"] = t.faster_than_reference;
  j["speedup_verdicts"] = verdicts_json(t.verdicts);
  j["fast_0"] = rate(t.exe_pass, t.total);  // fast_p: shares of all rows, wins by the interval
  j["fast_1"] = rate(t.fast_1_pass, t.total);
  j["fast_1_5"] = rate(t.fast_1_5_pass, t.total);
  j["fast_2"] = rate(t.fast_2_pass, t.total);
  if (compile) {
    j["vs_compile"] = vs_compile_json(t);
  }
  if (graph) {
    j["graph"] = graph_json(t.graph);
  }
  return j;
}

std::string dump_file(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

Json metrics_json(const ReportModel& model) {
  Json out = Json::object();
  std::string method = model.method();
  for (std::size_t i : model.task_rows) {
    const SubmissionRow& r = model.rows[i];
    auto own = r.labels.find("method");  // a generated candidate's own method label wins
    out[r.file] = public_record(r, own != r.labels.end() ? own->second : method);
  }
  return out;
}

Json summary_json(const ReportModel& model) {
  const Totals& t = model.task_totals;
  Json j = Json::object();
  j["total"] = t.total;
  j["call_pass"] = t.call_pass;
  j["call_rate"] = percent(t.call_pass, t.total);
  j["exe_pass"] = t.exe_pass;
  j["exe_rate"] = percent(t.exe_pass, t.total);
  j["perf_pass"] = t.perf_pass;
  j["perf_rate"] = percent(t.perf_pass, t.total);
  j["avg_speedup_global"] = number_or_na(t.perf_pass > 0, t.avg_speedup_global);
  j["avg_speedup_per_task"] = number_or_na(t.perf_pass > 0, t.avg_speedup_per_task);
  return j;
}

Json kbx_summary_json(const ReportModel& model) {
  const bool compile = model.has_compile_baseline();
  Json out = totals_json(model.overall, compile, model.graph_mode);
  out["tasks"] = model.task_totals.total;
  out["baselines"] = model.baselines;
  out["categories"] = Json::object();
  for (const auto& [name, totals] : model.categories) {
    out["categories"][name] = totals_json(totals, compile, model.graph_mode);
  }
  out["outcomes"] = Json::object();
  for (const auto& [outcome, count] : model.outcomes) {
    out["outcomes"][outcome] = count;
  }
  out["input_errors"] = Json::array();
  for (const auto& e : model.input_errors) {
    out["input_errors"].push_back({{"origin", e.origin}, {"message", e.message}});
  }
  out["code_quality_tool"] = model.code_quality_tool;
  out["code_quality_note"] = model.code_quality_note;
  out["environment"] = model.environment;
  out["device"] = model.device;
  out["ceilings"] = model.ceilings;
  out["utilisation_suspect"] = static_cast<int>(std::count_if(
      model.rows.begin(), model.rows.end(), [](const SubmissionRow& r) { return r.utilisation_suspect; }));
  out["labels"] = model.labels;
  out["perf_scale"] = model.perf_scale;
  return out;
}

Json kbx_results_json(const ReportModel& model) {
  std::vector<bool> kept(model.rows.size(), false);
  for (std::size_t i : model.task_rows) {
    kept[i] = true;
  }
  Json out = Json::object();
  out["format"] = "kbx-results/1";
  out["summary"] = kbx_summary_json(model);
  out["submissions"] = Json::array();
  for (std::size_t i = 0; i < model.rows.size(); ++i) {
    out["submissions"].push_back(
        row_json(model.rows[i], kept[i], model.has_compile_baseline(), model.graph_mode));
  }
  return out;
}

void write_exports(const ReportModel& model, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::io, "cannot create the report folder '{}': {}", dir.string(),
                ec.message());
  }
  write_file_atomic(dir / "metrics.json", dump_file(metrics_json(model)));
  write_file_atomic(dir / "summary.json", dump_file(summary_json(model)));
  write_file_atomic(dir / "kbx-results.json", dump_file(kbx_results_json(model)));
  write_file_atomic(dir / "kbx-results.csv", kbx_results_csv(model));
}

Json submission_record_json(const SubmissionRow& row, bool in_metrics_json) {
  bool graph = std::any_of(row.workloads.begin(), row.workloads.end(),
                           [](const WorkloadRow& w) { return w.has_graph_figures(); });
  return row_json(row, in_metrics_json, row.vs_compile.has_value() || !row.compile_note.empty(),
                  graph);
}

}  // namespace kbx::report
