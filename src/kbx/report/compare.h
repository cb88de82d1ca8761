// Comparing runs (`kbx compare`): the same tasks evaluated on other GPUs, dates or settings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/report_model.h"

namespace kbx::report {

/// One run to compare: its name (the folder given) and what its store holds.
struct NamedRun {
  std::string name;
  ReportModel model;
};

/// One task's figures in one run (absent when the run has no submission for the task).
struct TaskInRun {
  std::string outcome;            ///< "ok", "incorrect", ... or "pending"
  std::optional<double> speedup;  ///< when perf_ok
  stats::SpeedupVerdict verdict = stats::SpeedupVerdict::none;  ///< the interval's verdict
  int submissions = 0;            ///< submissions of the task in the run (the first is compared)
};

/// One task across the runs.
struct CompareRow {
  std::string task;
  std::vector<std::optional<TaskInRun>> runs;  ///< one per run, in the order given
  std::optional<double> spread;  ///< max/min speedup over the runs that timed it (two or more)
  bool outcome_changed = false;  ///< the outcome differs between runs that evaluated it
  bool side_changed = false;     ///< faster than eager (speedup > 1) in one run, not in another
  /// The speedup verdict (bootstrap interval: faster, same, slower, ambiguous) differs between
  /// runs that timed the task.
  bool verdict_changed = false;
};

struct Comparison {
  std::vector<std::string> runs;  ///< names
  std::vector<std::string> devices;
  std::vector<std::map<std::string, std::string>> labels;  ///< each run's labels
  std::vector<CompareRow> rows;   ///< by task key
  int in_all = 0;                 ///< tasks every run evaluated
  int timed_in_all = 0;           ///< tasks every run timed
  int outcome_changes = 0;
  int side_changes = 0;
  int verdict_changes = 0;
  std::optional<double> median_spread;  ///< over tasks with a spread
  std::optional<double> p95_spread;
};

/// Joins the runs by task key; where a run holds several submissions of a task, the first in
/// source order is compared and the count is kept. Pure.
Comparison compare_runs(const std::vector<NamedRun>& runs);

/// The runs of one configuration (the same labels, apart from `gpu`, `device` and `machine`) on
/// two or more devices, compared task by task.
struct DeviceComparison {
  std::string labels;  ///< "method=refine model=x", or "(no labels)"
  Comparison comparison;
};

/// Cross-device comparisons for `kbx analyze` and `kbx report`: the runs grouped by their labels
/// (a run without a `method` label takes its first submission's), each group with runs on two or
/// more distinct devices compared with compare_runs. Empty when every run is on one device. Pure.
std::vector<DeviceComparison> compare_devices(const std::vector<NamedRun>& runs);

/// The table `kbx compare` prints: a summary, then the `top` tasks with the largest spread or a
/// changed outcome (all of them with top < 0).
std::string render_comparison(const Comparison& c, int top);

/// The same as JSON (every task).
Json comparison_json(const Comparison& c);

}  // namespace kbx::report
