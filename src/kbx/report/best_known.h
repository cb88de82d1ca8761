// The "best known" column: per task, the speedup of kbx's own expert kernels (a run of
// solutions/) beside each run's speedup (`--best-known SOLRUN`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/compare.h"

namespace kbx::report {

/// One task's speedup in a run: the submission metrics.json keeps for the task.
struct TaskSpeedup {
  std::string outcome;            ///< "ok", "incorrect", ...; empty: the run has no submission
  std::optional<double> speedup;  ///< when correct and timed
};

struct BestKnownRow {
  std::string task;
  TaskSpeedup best;               ///< the expert kernel's
  std::vector<TaskSpeedup> runs;  ///< one per run, in the order given
};

struct BestKnown {
  std::string source;              ///< the expert run's name
  std::vector<std::string> runs;   ///< the runs' names
  std::vector<BestKnownRow> rows;  ///< every task of the runs, by task key
  /// Per run: tasks where both the run and the expert kernel were timed, and of those the ones
  /// where the run's speedup is at least the expert kernel's.
  std::vector<int> both_timed;
  std::vector<int> at_least_best;
};

/// The tasks of `runs` with the expert run's figure beside each run's. Pure.
BestKnown best_known(const NamedRun& expert, const std::vector<NamedRun>& runs);

/// The figure of one task in one run (metrics.json's record), or an empty outcome.
TaskSpeedup task_speedup(const ReportModel& model, const std::string& task);

std::string render_best_known(const BestKnown& b);
Json best_known_json(const BestKnown& b);
/// task,best_known_outcome,best_known_speedup,then per run: <run>_outcome,<run>_speedup
std::string best_known_csv(const BestKnown& b);

}  // namespace kbx::report
