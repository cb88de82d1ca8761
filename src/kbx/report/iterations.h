// Iterations of one method: per-round rates, round-to-round transitions of each lineage, and
// rescued against persistently correct kernels (docs/analysis.md, "Iterations").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/compare.h"

namespace kbx::report {

/// One round of one method: its submissions' rates, and the lineages solved by then.
struct RoundStats {
  std::string round;  ///< the round label ("0", "1", ...)
  int submissions = 0;
  int call_pass = 0;
  int exe_pass = 0;
  int perf_pass = 0;
  std::optional<double> geomean_speedup;  ///< over this round's correct, timed submissions
  int lineages = 0;                       ///< lineages with a submission in this round or before
  int solved_by_round = 0;  ///< of those, lineages with a correct submission by this round
};

/// Exe outcomes of consecutive submissions of a lineage.
struct Transitions {
  int fail_to_pass = 0;
  int pass_to_fail = 0;
  int pass_to_pass = 0;
  int fail_to_fail = 0;
};

/// The transitions from one round to the next one a lineage has a submission in.
struct RoundStep {
  std::string from;
  std::string to;
  Transitions counts;
};

/// Lineages grouped by when they were first correct, with the geometric-mean speedup of their
/// first correct submission (over those timed).
struct LineageGroup {
  int lineages = 0;
  int timed = 0;
  std::optional<double> geomean_speedup;
};

/// The iterations of one method (the `method` label; "-" for rows without one).
struct Iterations {
  std::string method;
  std::vector<RoundStats> rounds;  ///< in numeric round order
  std::vector<RoundStep> steps;
  Transitions total;
  int lineages = 0;
  LineageGroup persistent;  ///< correct in the lineage's first round
  LineageGroup rescued;     ///< failed first, correct in a later round
  int never_correct = 0;
};

/// The lineage of a submission: the chain of submissions that refine one another.
/// - A candidate of `kbx generate` belongs to the lineage of the submission it refines
///   (parent_submission_id), a chain's first round starting a new one.
/// - Any other submission with a `round` label (a run labelled `kbx eval --round N`) belongs to
///   the lineage of the same task, device, labels other than round, and ordinal among the run's
///   submissions of that task (its first, second, ...).
/// Rows without a round label are left out. Methods whose rows carry a single round and no
/// lineage longer than one submission are left out too. Pure.
std::vector<Iterations> iterations(const std::vector<NamedRun>& runs);

std::string render_iterations(const std::vector<Iterations>& its);
Json iterations_json(const std::vector<Iterations>& its);
/// Three tables, each with its header and each line led by the table's name: `round` lines
/// (method,round,submissions,...), `step` lines (method,from,to,fail_to_pass,...) and `lineage`
/// lines (method,group,lineages,timed,geomean_speedup).
std::string iterations_csv(const std::vector<Iterations>& its);

}  // namespace kbx::report
