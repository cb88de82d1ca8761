// ReportModel: everything a report shows, derived from the store alone (reports never run code).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/stats/bootstrap.h"
#include "kbx/stats/speedup_verdict.h"
#include "kbx/stats/summary.h"
#include "kbx/store/database.h"

namespace kbx::report {

/// One perf workload of one evaluated submission, with statistics derived from raw samples.
/// True when a timing's GPU was busy for under half of its median sample and idle for more than
/// 50 us of it: the call waits for the host between kernels, so its time moves with the host's
/// state from one slot or run to the next by far more than its samples' spread shows.
bool is_host_synchronising(const store::TimingRecord& timing);

struct WorkloadRow {
  int index = 0;
  Json params = Json::object();
  double bytes = 0;
  double flops = 0;
  Json input_size =
      Json::array();  ///< the tensor arguments' shapes; empty in stores before schema 6
  std::string dtype;  ///< the first tensor argument's dtype ("float32"), or empty
  stats::Summary candidate_ms;
  stats::Summary reference_ms;
  double gbs = 0;      ///< bytes / candidate median
  double tflops = 0;   ///< flops / candidate median
  double speedup = 0;  ///< reference median / candidate median
  /// gbs over the device's measured copy bandwidth, and tflops over its measured matrix
  /// throughput for this workload's dtype (ReportModel::ceilings); absent without them.
  std::optional<double> bandwidth_utilisation;
  std::optional<double> compute_utilisation;
  /// The reference's timed call leaves the GPU idle for most of its span (host work between its
  /// kernels: LAPACK steps, a synchronising check), see is_host_synchronising().
  bool host_synchronising = false;
  /// The candidate's samples are bracket timings (its work escaped the timed stream).
  bool timed_by_bracket = false;
  /// The compile baseline's samples (torch.compile of the reference; n == 0 without them) and
  /// compile median / candidate median (0 without).
  stats::Summary compile_ms;
  double compile_speedup = 0;
  /// CUDA-graph mode (docs/metrics.md "CUDA-graph mode"): the candidate's and the reference's
  /// samples of graph replays (n == 0 without), reference graph median / candidate graph median
  /// (0 unless both sides have samples), and why a side's capture or replay failed (empty
  /// otherwise). Informative: never part of speedup, perf_ok or any verdict.
  stats::Summary graph_ms;
  stats::Summary ref_graph_ms;
  double graph_speedup = 0;
  std::string graph_error;
  std::string ref_graph_error;

  /// Whether either side was captured as a CUDA graph or failed to be (the run was in graph mode).
  [[nodiscard]] bool has_graph_figures() const {
    return graph_ms.n > 0 || ref_graph_ms.n > 0 || !graph_error.empty() ||
           !ref_graph_error.empty();
  }
};

/// The speedup against a baseline other than eager (the compile baseline), with the same
/// definitions, interval and verdict rules as the speedup against eager (docs/metrics.md).
struct BaselineSpeedup {
  double ref_runtime_ms = 0;  ///< sum over workloads of the baseline's medians
  double speedup = 0;         ///< sum of baseline medians / sum of candidate medians
  double avg_speedup = 0;     ///< mean over workloads of baseline median / candidate median
  std::optional<stats::Interval> speedup_ci;  ///< widened like the eager speedup's
  stats::SpeedupVerdict speedup_verdict = stats::SpeedupVerdict::none;
  bool host_synchronising = false;  ///< a workload's eager or compiled call is host-bound
};

/// How a side's sampling of a workload ended, read from its samples (docs/metrics.md "Adaptive
/// sampling"): "ci" when the median's 95% interval is within stats::kMedianCiTarget, "brackets"
/// for bracket timings, "budget" otherwise (the worker stopped at its time or sample limit).
std::string sampling_outcome(const stats::Summary& ms, bool timed_by_bracket);

/// How sampling ended over the candidates' timed workloads of a model's perf_ok rows.
struct SamplingCounts {
  std::size_t timed = 0;
  std::size_t met = 0;       ///< "ci"
  std::size_t brackets = 0;  ///< "brackets"
  double widest = 0;         ///< the widest interval among those at the budget (may be inf)
  std::string widest_at;     ///< "<file> workload <index>", empty when none is at the budget
  [[nodiscard]] std::size_t at_budget() const { return timed - met - brackets; }
};

/// The code-quality figures of one submission (radon, docs/metrics.md); absent when not measured.
struct CodeQuality {
  std::optional<double> complexity;       ///< metrics.json's code_quality
  std::optional<double> maintainability;  ///< metrics.json's maintainability
  std::string error;                      ///< why this submission has none (it does not parse)
};

/// One submission: a record of kbx-results.json, and metrics.json's record of its task when it is
/// the one kept for the task (ReportModel::task_rows).
struct SubmissionRow {
  std::string file;  ///< task key, "Math/softmax.py"
  std::string category;
  std::string submission_id;
  std::string origin;
  std::string code;  ///< the source kbx ran
  /// The task's perf dtype: its first workload's first tensor argument's ("float32"); empty when
  /// the task has no workloads or the store predates schema 6.
  std::string dtype;
  bool call_ok = false;
  bool exe_ok = false;
  bool perf_ok = false;  ///< the evaluation's, and the store holds samples for every workload
  bool triton_ok = false;
  std::string outcome;  ///< the evaluation's, or "pending" when the submission has none yet
  std::string reason;
  std::string detail;
  std::string perf_note;
  // Aggregates over the perf workloads, set with perf_ok (0 otherwise), with the public
  // harness's meanings.
  double runtime_ms = 0;      ///< sum over workloads of the candidate's median ms
  double ref_runtime_ms = 0;  ///< the same for the reference
  double gbs = 0;             ///< sum of bytes / sum of candidate medians, in GB/s
  double tflops = 0;          ///< sum of FLOPs / sum of candidate medians, in TFLOP/s
  double speedup = 0;         ///< sum of reference medians / sum of candidate medians
  double avg_speedup = 0;     ///< arithmetic mean over workloads of reference / candidate median
  /// The speedup's 95% bootstrap interval (stats/bootstrap.h); perf_ok rows with two samples or
  /// more per side and workload, else absent.
  std::optional<stats::Interval> speedup_ci;
  stats::SpeedupVerdict speedup_verdict = stats::SpeedupVerdict::none;  ///< none without perf_ok
  /// A workload's reference is host-synchronising: speedup_ci is the bootstrap interval widened
  /// by stats::host_synchronising_margin on each side (docs/metrics.md).
  bool host_synchronising = false;
  /// The row's gbs and tflops against the measured ceilings (see WorkloadRow); absent without
  /// ceilings or perf. Over 1 (100%) on the row or any workload sets utilisation_suspect: a byte
  /// or FLOP model that counts what the kernel need not move (inputs re-read from the L2), or a
  /// kernel that skips work.
  std::optional<double> bandwidth_utilisation;
  std::optional<double> compute_utilisation;
  bool utilisation_suspect = false;
  /// The speedup against torch.compile (`--baseline eager,compile`): set for perf_ok rows whose
  /// compile baseline timed every workload; compile_note says why it is missing otherwise.
  std::optional<BaselineSpeedup> vs_compile;
  std::string compile_note;
  /// CUDA-graph mode, perf_ok rows: the sum of the reference's graph medians over the sum of the
  /// candidate's, over the graph_workloads workloads where both sides have graph samples; absent
  /// (and graph_workloads 0) when none has. Reported beside `speedup`, never mixed into it.
  std::optional<double> graph_speedup;
  int graph_workloads = 0;
  double time_total_ms = 0;
  std::vector<WorkloadRow> workloads;
  /// The submission's own labels: for a candidate of `kbx generate`, method, model, round and
  /// candidate (table generations). They override the run's labels of the same name.
  std::map<std::string, std::string> labels;
  /// For a candidate of `kbx generate`: the submission it refines or optimises (generations'
  /// parent_submission_id); empty for a chain's first round and for submissions not generated.
  std::string parent_submission_id;
  CodeQuality code_quality;  ///< filled by attach_code_quality; empty without it
};

/// Pass counts and speedups for a set of rows (a category, or everything).
struct Totals {
  int total = 0;
  int call_pass = 0;
  int exe_pass = 0;
  int perf_pass = 0;
  double avg_speedup_global = 0;    ///< sum of all reference ms / sum of all candidate ms
  double avg_speedup_per_task = 0;  ///< arithmetic mean of per-task speedups (perf_ok rows)
  double geomean_speedup = 0;       ///< geometric mean of per-task speedups (perf_ok rows)
  int faster_than_reference = 0;    ///< perf_ok rows with speedup > 1 (the point estimate)
  /// Rows by speedup verdict; every row counts once (rows without perf as `none`).
  struct VerdictCounts {
    int faster = 0;
    int same = 0;
    int slower = 0;
    int ambiguous = 0;
    int none = 0;
  } verdicts;
  /// fast_p: exe_ok rows whose speedup verdict is `faster` and whose interval's low end is above
  /// p (fast_0 is exe_pass; fast_1_pass equals verdicts.faster, perf needing a correct row).
  int fast_1_pass = 0;
  int fast_1_5_pass = 0;
  int fast_2_pass = 0;
  /// The same against the compile baseline, over rows that have it (SubmissionRow::vs_compile);
  /// verdicts count every row, rows without it as `none`.
  struct Baseline {
    int timed = 0;  ///< rows with a speedup against the baseline
    double geomean_speedup = 0;
    VerdictCounts verdicts;
    int fast_1_pass = 0;
    int fast_1_5_pass = 0;
    int fast_2_pass = 0;
  } vs_compile;
  /// CUDA-graph mode, over the perf_ok rows with a graph_speedup: how many, their distinct tasks
  /// and workloads replayed on both sides, the geometric mean of their graph speedups and of their
  /// eager speedups (the same rows); and the perf_ok rows' workloads where a side's capture or
  /// replay failed.
  struct Graph {
    int timed = 0;
    int tasks = 0;
    int workloads = 0;
    double geomean_speedup = 0;
    double eager_geomean_speedup = 0;
    int failed_workloads = 0;
  } graph;
};

struct ReportModel {
  std::vector<SubmissionRow> rows;  ///< in source order
  /// One row per task (indices into `rows`, in order of the task's first submission): the one
  /// metrics.json keeps when several submissions share a task (keep_for_task).
  std::vector<std::size_t> task_rows;
  /// Totals over `task_rows`: summary.json's figures (total = distinct tasks).
  Totals task_totals;
  std::vector<std::pair<std::string, Totals>> categories;  ///< sorted by category name
  Totals overall;
  /// Rows per outcome, known outcomes first in a fixed order (ok, incorrect, ..., pending), then
  /// any others by name; outcomes with no rows are left out.
  std::vector<std::pair<std::string, int>> outcomes;
  /// Distinct (origin, message) pairs over all sessions, first seen first.
  std::vector<store::InputErrorRecord> input_errors;
  Json environment = Json::object();  ///< the env of the latest session that recorded one
  /// The device's ceilings measured by `kbx calibrate` (copy_gbs, matmul_tflops per dtype,
  /// method), from the environment's first device that carries them; null without.
  Json ceilings;
  std::string device;
  /// The run's labels (`kbx eval --method/--model/--round/--label`), from its stored identity.
  std::map<std::string, std::string> labels;
  /// `kbx eval --perf-scale`: the fraction of its bytes every perf workload was shrunk to
  /// (1: the suite's workloads), from the stored identity.
  double perf_scale = 1;
  /// What measured code quality ("radon 6.0.1"), or empty; and why figures are missing, if so.
  std::string code_quality_tool;
  std::string code_quality_note;
  /// The run's baselines (`--baseline`, from its stored identity): {"eager"} for runs made
  /// before the choice existed; "compile" also when any stored row has compile timings.
  std::vector<std::string> baselines{"eager"};
  /// CUDA-graph mode (`kbx eval --graph`): on when the run's identity says so or any stored
  /// timing has graph figures; kbx-results.json and the CSV carry the graph columns only then.
  bool graph_mode = false;

  /// The run's --method label, or "" (metrics.json's `method`).
  [[nodiscard]] std::string method() const;
  /// Whether the run has the compile baseline: reports show its columns and totals only then.
  [[nodiscard]] bool has_compile_baseline() const;
};

/// True when `a` is a better record of its task than `b` for metrics.json: correct before merely
/// running before failing before pending, then timed before untimed, then the higher speedup;
/// ties keep `b` (the earlier submission).
bool keep_for_task(const SubmissionRow& a, const SubmissionRow& b);

/// Pass counts and speedups over `rows`.
Totals make_totals(const std::vector<const SubmissionRow*>& rows);

/// Reads the code-quality step's reply (python/kbx_worker/code_quality.py: {"radon", "note",
/// "results": {id: {code_quality, maintainability, error}}}) into the rows, by submission id.
/// A reply without figures leaves them empty and sets the model's note.
void attach_code_quality(ReportModel& model, const Json& reply);

/// Reads the store and derives every statistic. Pure apart from the reads.
ReportModel build_report_model(store::Database& db);

/// One submission's row, derived from the store exactly as build_report_model derives it (its
/// speedup interval and verdict included), reading only that submission's rows; nullopt when the
/// store has no such submission. For `kbx serve`, which answers one verdict at a time.
std::optional<SubmissionRow> build_submission_row(store::Database& db,
                                                  const std::string& submission_id);

/// Sampling outcomes (sampling_outcome) counted over `model`'s timed workloads.
SamplingCounts count_sampling(const ReportModel& model);

}  // namespace kbx::report
