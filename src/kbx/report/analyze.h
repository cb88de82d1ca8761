// Analyses over runs (`kbx analyze`): pass rates, speedups and fast_p grouped by the runs' labels,
// device and task category, and the tasks no run solves.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/compare.h"
#include "kbx/stats/deviance.h"

namespace kbx::report {

/// The thresholds fast_p is reported for.
inline const std::vector<double>& fast_p_thresholds() {
  static const std::vector<double> ps{0, 0.5, 0.8, 1, 1.5, 2};
  return ps;
}

/// One group of submissions (those sharing the values of the `--by` dimensions).
struct GroupStats {
  std::vector<std::string> key;  ///< the values of the dimensions, in `--by` order
  int submissions = 0;
  int call_pass = 0;
  int exe_pass = 0;
  int perf_pass = 0;  ///< correct and timed
  std::optional<double> geomean_speedup;  ///< over correct, timed submissions
  int slower_point = 0;     ///< correct, timed, speedup < 1 (the point estimate)
  int slower_verdict = 0;   ///< correct, timed, interval entirely below 1 (verdict `slower`)
  std::vector<int> fast_p;  ///< per fast_p_thresholds(): fast_0 = correct; else interval low > p
  /// Against torch.compile, over correct rows with a speedup against it (runs made with
  /// `--baseline eager,compile`): how many, their speedups, and fast_p from p = 1 on (index i of
  /// fast_p_thresholds(); fast_0 stays the correct rows, entry 0 unused).
  int compile_timed = 0;
  std::vector<double> compile_speedups;
  std::vector<int> compile_fast_p;
};

struct Analysis {
  std::vector<std::string> dimensions;  ///< the `--by` dimensions
  std::vector<GroupStats> groups;       ///< sorted by key
  GroupStats overall;
  std::vector<std::string> unsolved;    ///< tasks with submissions, none of them correct
  int tasks = 0;                        ///< distinct tasks with submissions
};

/// The dimensions a row can be grouped by: "category", "task", "run", "device", and any label
/// ("method", "model", "round", ...). An unknown one is an error naming the known ones.
std::vector<std::string> known_dimensions(const std::vector<NamedRun>& runs);

/// Groups every submission of every run by `dimensions` (empty: one group). A row whose run
/// lacks a label gets "-" for it.
Analysis analyze_runs(const std::vector<NamedRun>& runs, const std::vector<std::string>& dimensions);

/// How much of the deviance of exe success (correct or not, one outcome per submission) the
/// dimensions `a` and `b` explain, alone and given each other: the binomial logit GLM of
/// docs/analysis.md. Errors name the dimension or the data (all outcomes equal, ...).
Result<stats::DevianceDecomposition> exe_deviance(const std::vector<NamedRun>& runs,
                                                  const std::string& a, const std::string& b);

std::string render_deviance(const stats::DevianceDecomposition& d);
Json deviance_json(const stats::DevianceDecomposition& d);

std::string render_analysis(const Analysis& a);
Json analysis_json(const Analysis& a);
/// One line per group (and an "all" line): the dimensions, then the figures.
std::string analysis_csv(const Analysis& a);

}  // namespace kbx::report
