// The failure taxonomy: every failed submission classified by family and kind from the outcome,
// reason and detail the store holds (docs/analysis.md, "Failure taxonomy").
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/compare.h"

namespace kbx::report {

/// Where a failure comes from. The order is the order reports list the families in.
enum class FailureFamily {
  compile,    ///< the module or a Triton kernel did not compile, import or define the entry
  runtime,    ///< a case raised, ran out of memory, or the process died
  numerical,  ///< outputs differ: NaN/Inf, wrong shape or dtype, scale, precision
  contract,   ///< the task's contract broken: a mutated input, a canonical form, an expected error
  triton_rule,  ///< correct, but Triton did not do the work (not_triton)
  exploit,      ///< caught cheating: forged replies, changed global state, a result that changes
                ///< when timed
  resource,     ///< a timeout or a sandbox limit
  harness,      ///< not the candidate's fault: kbx could not judge it (skipped, worker lost)
};

std::string_view to_string(FailureFamily family);

/// A failure's family and kind. Kinds are short codes: the reason where it names the cause
/// (`syntax_error`, `TypeError`, `SIGSEGV`), else a name the taxonomy gives (`nan_inf`,
/// `shape_dtype`, `scale`, `precision`).
struct FailureClass {
  FailureFamily family = FailureFamily::harness;
  std::string kind;
};

/// A value mismatch whose largest relative error is at least this is `scale` (values off by a
/// factor or unrelated), below it `precision` (rounding, accumulation order, lower precision).
constexpr double scale_rel_err_min = 0.5;

/// Classifies one evaluation by outcome, reason and detail. Pure. Call only for failures: an
/// outcome of "ok" or "pending" is a programmer error.
FailureClass classify_failure(const std::string& outcome, const std::string& reason,
                              const std::string& detail);

/// The largest relative error a value-mismatch detail names ("max rel err 3.1e-02"), or -1.
double detail_rel_err(const std::string& detail);

/// Counts of one (family, kind) overall and per method and per category.
struct TaxonomyEntry {
  FailureFamily family = FailureFamily::harness;
  std::string kind;
  int count = 0;
  std::map<std::string, int> by_method;    ///< method label ("-" without one) -> count
  std::map<std::string, int> by_category;  ///< task category -> count
  std::string example_task;                ///< the first failure's task and detail
  std::string example_detail;
};

struct Taxonomy {
  int failures = 0;                    ///< failed, judged submissions (not ok, not pending)
  int submissions = 0;                 ///< judged submissions
  std::vector<TaxonomyEntry> entries;  ///< by family (enum order), then count, descending
  /// Failures per family (every family, in enum order, zeros included).
  std::vector<std::pair<FailureFamily, int>> families;
};

/// Classifies every failed submission of the runs. A row's method is its own or its run's
/// `method` label.
Taxonomy failure_taxonomy(const std::vector<NamedRun>& runs);

std::string render_taxonomy(const Taxonomy& t);
Json taxonomy_json(const Taxonomy& t);
/// One line per (family, kind, method, category) with a count: family,kind,method,category,count.
std::string taxonomy_csv(const Taxonomy& t);

}  // namespace kbx::report
