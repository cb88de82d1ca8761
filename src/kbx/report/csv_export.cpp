// kbx-results.csv: one line per submission, the scalar fields of kbx-results.json (RFC 4180).
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "kbx/report/exports.h"
#include "kbx/report/csv.h"

namespace kbx::report {
namespace {

constexpr const char* header =
    "file,category,submission_id,origin,outcome,reason,call_ok,exe_ok,triton_ok,perf_ok,"
    "runtime_ms,ref_runtime_ms,speedup,avg_speedup,speedup_ci_low,speedup_ci_high,"
    "speedup_verdict,gbs,tflops,code_quality,maintainability,in_metrics_json,detail";

// Appended (after detail, so the columns above keep their places) in runs with the compile
// baseline.
constexpr const char* compile_header =
    ",compile_ref_runtime_ms,speedup_vs_compile,speedup_vs_compile_ci_low,"
    "speedup_vs_compile_ci_high,speedup_vs_compile_verdict";

// Appended last in runs in CUDA-graph mode (docs/metrics.md "CUDA-graph mode").
constexpr const char* graph_header = ",graph_speedup,graph_workloads";

std::string number(bool present, double value) {
  return present ? fmt::format("{}", value) : std::string();
}

std::string number(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

std::string flag(bool value) { return value ? "true" : "false"; }

std::vector<std::string> compile_fields(const SubmissionRow& r) {
  const auto& b = r.vs_compile;
  std::optional<double> low;
  std::optional<double> high;
  if (b && b->speedup_ci) {
    low = b->speedup_ci->low;
    high = b->speedup_ci->high;
  }
  return {number(b.has_value(), b ? b->ref_runtime_ms : 0),
          number(b.has_value(), b ? b->speedup : 0), number(low), number(high),
          std::string(stats::to_string(b ? b->speedup_verdict : stats::SpeedupVerdict::none))};
}

std::string csv_line(const SubmissionRow& r, bool kept, bool compile, bool graph) {
  std::optional<double> low;
  std::optional<double> high;
  if (r.speedup_ci) {
    low = r.speedup_ci->low;
    high = r.speedup_ci->high;
  }
  std::vector<std::string> fields{
      r.file,
      r.category,
      r.submission_id,
      r.origin,
      r.outcome,
      r.reason,
      flag(r.call_ok),
      flag(r.exe_ok),
      flag(r.triton_ok),
      flag(r.perf_ok),
      number(r.perf_ok, r.runtime_ms),
      number(r.perf_ok, r.ref_runtime_ms),
      number(r.perf_ok, r.speedup),
      number(r.perf_ok, r.avg_speedup),
      number(low),
      number(high),
      std::string(stats::to_string(r.speedup_verdict)),
      number(r.perf_ok, r.gbs),
      number(r.perf_ok, r.tflops),
      number(r.code_quality.complexity),
      number(r.code_quality.maintainability),
      flag(kept),
      r.detail,
  };
  if (compile) {
    auto more = compile_fields(r);
    fields.insert(fields.end(), more.begin(), more.end());
  }
  if (graph) {
    fields.push_back(number(r.graph_speedup));
    fields.push_back(std::to_string(r.graph_workloads));
  }
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    line += (i == 0 ? "" : ",") + csv_field(fields[i]);
  }
  return line + "\n";
}

}  // namespace

std::string kbx_results_csv(const ReportModel& model) {
  std::vector<bool> kept(model.rows.size(), false);
  for (std::size_t i : model.task_rows) {
    kept[i] = true;
  }
  const bool compile = model.has_compile_baseline();
  std::string out = std::string(header) + (compile ? compile_header : "") +
                    (model.graph_mode ? graph_header : "") + "\n";
  for (std::size_t i = 0; i < model.rows.size(); ++i) {
    out += csv_line(model.rows[i], kept[i], compile, model.graph_mode);
  }
  return out;
}

}  // namespace kbx::report
