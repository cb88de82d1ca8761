// Renderers of a ReportModel: KernelBench-X's metrics.json and summary.json, kbx's results, the
// table.
#pragma once

#include <filesystem>
#include <string>

#include "kbx/common/json.h"
#include "kbx/report/report_model.h"

namespace kbx::report {

/// metrics.json exactly as the public KernelBench-X harness writes it: an object keyed by task file
/// ("Math/softmax.py"), one record per task (the submission ReportModel::task_rows keeps), with
/// call_ok, exe_ok, perf_ok, method, speedup, avg_speedup, runtime_ms, gbs, tflops, dtype,
/// performance [{input_size, ms, "GB/s", TFLOPS}], error, code, code_quality, maintainability;
/// "N/A" for a missing figure (docs/metrics.md).
Json metrics_json(const ReportModel& model);

/// summary.json exactly as the public harness writes it: total (distinct tasks), call_pass,
/// call_rate, exe_pass, exe_rate, perf_pass, perf_rate (rates in percent, one decimal),
/// avg_speedup_global, avg_speedup_per_task ("N/A" without a timed task).
Json summary_json(const ReportModel& model);

/// kbx's totals over every submission: the public fields (rates as fractions) plus
/// geomean_speedup, faster_than_reference, speedup_verdicts, fast_p, categories, outcomes, input
/// errors, code-quality tool and note, environment, device and labels. `kbx summary --json`.
Json kbx_summary_json(const ReportModel& model);

/// kbx-results.json: {"format": "kbx-results/1", "summary": kbx_summary_json, "submissions":
/// [one record per submission, in source order, with its workloads, interval and verdict]}.
Json kbx_results_json(const ReportModel& model);

/// One submission's record of kbx-results.json (`in_metrics_json` says whether metrics.json keeps
/// it for its task).
Json submission_record_json(const SubmissionRow& row, bool in_metrics_json);

/// kbx-results.csv: the scalar fields of each submission record, one line each, with a header.
std::string kbx_results_csv(const ReportModel& model);

/// Writes metrics.json, summary.json, kbx-results.json and kbx-results.csv into `dir`, each
/// atomically (temporary file, then rename).
void write_exports(const ReportModel& model, const std::filesystem::path& dir);

/// The per-category table printed at the end of `kbx eval` and by `kbx summary`.
std::string render_terminal_summary(const ReportModel& model, bool color);

}  // namespace kbx::report
