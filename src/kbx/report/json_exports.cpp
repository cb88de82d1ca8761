// metrics.json and summary.json: KernelBench-X's field names first, then kbx's own.
#include <filesystem>
#include <string>
#include <system_error>

#include "kbx/common/error.h"
#include "kbx/common/files.h"
#include "kbx/report/exports.h"

namespace kbx::report {
namespace {

double rate(int pass, int total) { return total > 0 ? static_cast<double>(pass) / total : 0.0; }

Json verdicts_json(const Totals::VerdictCounts& v) {
  Json j = Json::object();
  j["faster"] = v.faster;
  j["same"] = v.same;
  j["slower"] = v.slower;
  j["ambiguous"] = v.ambiguous;
  j["none"] = v.none;
  return j;
}

Json workload_json(const WorkloadRow& w) {
  Json j = Json::object();
  j["index"] = w.index;
  j["params"] = w.params;
  j["bytes"] = w.bytes;
  j["flops"] = w.flops;
  j["runtime_ms"] = w.candidate_ms.median;
  j["runtime_ms_q1"] = w.candidate_ms.q1;
  j["runtime_ms_q3"] = w.candidate_ms.q3;
  j["n_samples"] = w.candidate_ms.n;
  j["ref_runtime_ms"] = w.reference_ms.median;
  j["gbs"] = w.gbs;
  j["tflops"] = w.tflops;
  j["speedup"] = w.speedup;
  j["host_synchronising"] = w.host_synchronising;
  return j;
}

Json row_json(const SubmissionRow& r) {
  Json j = Json::object();
  j["file"] = r.file;  // KernelBench-X's fields
  j["call_ok"] = r.call_ok;
  j["exe_ok"] = r.exe_ok;
  j["perf_ok"] = r.perf_ok;
  j["runtime_ms"] = r.runtime_ms;
  j["gbs"] = r.gbs;
  j["tflops"] = r.tflops;
  j["speedup"] = r.speedup;
  j["category"] = r.category;  // kbx's
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
  j["submission_id"] = r.submission_id;
  j["origin"] = r.origin;
  if (!r.labels.empty()) {  // a generated candidate's method, model, round and candidate
    j["labels"] = r.labels;
  }
  j["workloads"] = Json::array();
  for (const WorkloadRow& w : r.workloads) {
    j["workloads"].push_back(workload_json(w));
  }
  return j;
}

Json totals_json(const Totals& t) {
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
  return j;
}

std::string dump_file(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

Json metrics_json(const ReportModel& model) {
  Json out = Json::array();
  for (const SubmissionRow& r : model.rows) {
    out.push_back(row_json(r));
  }
  return out;
}

Json summary_json(const ReportModel& model) {
  Json out = totals_json(model.overall);
  out["categories"] = Json::object();
  for (const auto& [name, totals] : model.categories) {
    out["categories"][name] = totals_json(totals);
  }
  out["outcomes"] = Json::object();
  for (const auto& [outcome, count] : model.outcomes) {
    out["outcomes"][outcome] = count;
  }
  out["input_errors"] = Json::array();
  for (const auto& e : model.input_errors) {
    out["input_errors"].push_back({{"origin", e.origin}, {"message", e.message}});
  }
  out["environment"] = model.environment;
  out["device"] = model.device;
  out["labels"] = model.labels;
  return out;
}

void write_json_exports(const ReportModel& model, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error(ErrorKind::io, "cannot create the report folder '{}': {}", dir.string(),
                ec.message());
  }
  write_file_atomic(dir / "metrics.json", dump_file(metrics_json(model)));
  write_file_atomic(dir / "summary.json", dump_file(summary_json(model)));
}

}  // namespace kbx::report
