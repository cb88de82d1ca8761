// Renderers of a ReportModel: KernelBench-X-compatible JSON and the terminal table.
#pragma once

#include <filesystem>
#include <string>

#include "kbx/common/json.h"
#include "kbx/report/report_model.h"

namespace kbx::report {

/// metrics.json: one object per submission with KernelBench-X's fields
/// (file, call_ok, exe_ok, perf_ok, runtime_ms, gbs, tflops, speedup) plus kbx's own, among them
/// speedup_ci_low and speedup_ci_high (null without an interval) and speedup_verdict.
Json metrics_json(const ReportModel& model);

/// summary.json: total, call_pass, call_rate, exe_pass, exe_rate, perf_pass, perf_rate,
/// avg_speedup_global, avg_speedup_per_task, then kbx's geomean_speedup, faster_than_reference,
/// speedup_verdicts (rows per verdict) and fast_0, fast_1, fast_1_5, fast_2 (docs/metrics.md),
/// plus per-category blocks and the environment.
Json summary_json(const ReportModel& model);

/// Writes both files into `dir` atomically (temporary file, then rename).
void write_json_exports(const ReportModel& model, const std::filesystem::path& dir);

/// The per-category table printed at the end of `kbx eval` and by `kbx summary`.
std::string render_terminal_summary(const ReportModel& model, bool color);

}  // namespace kbx::report
