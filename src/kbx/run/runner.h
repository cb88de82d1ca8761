// Runner: the only place that wires suite, submissions, sandbox, comparator and store together.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "kbx/run/options.h"
#include "kbx/store/database.h"
#include "kbx/submit/source.h"
#include "kbx/suite/suite.h"

namespace kbx::run {

/// What the user sees while a run goes on (the CLI renders it; tests may record it).
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  /// `total` submissions in the plan, of which `already_done` were finished by an earlier session.
  virtual void on_start(int total, int already_done) = 0;
  /// Input problems found while reading SOURCE (each skipped one item only).
  virtual void on_input_problem(const submit::InputProblem& problem) = 0;
  /// A status line before the first evaluation ("starting workers ...").
  virtual void on_status(const std::string& message) = 0;
  /// One evaluation finished and is stored; `done` counts finished ones in this plan so far.
  virtual void on_evaluated(const std::string& task_key, const store::EvaluationRecord& record,
                            int done, int total) = 0;
};

/// How the run ended.
struct RunSummary {
  int planned = 0;            ///< submissions in the plan (after --tasks)
  int already_done = 0;       ///< skipped because an earlier session finished them
  int reevaluated_stale = 0;  ///< finished earlier, but against another version of their task
  int evaluated = 0;          ///< finished in this session
  int input_problems = 0;
  bool interrupted = false;
};

/// Runs `kbx eval`: reads SOURCE, plans (skipping finished submissions), evaluates the rest on a
/// pool of warm workers, stores every result as it finishes, and writes metrics.json and
/// summary.json. `stop` is polled; once set, no new evaluation starts and in-flight ones are
/// abandoned (they are redone on resume). The caller holds the output folder's FolderLock, so
/// sessions left "running" in its store are marked "lost". Throws kbx::Error for failures that
/// end the command.
RunSummary run_eval(const RunOptions& options, const suite::Suite& suite, ProgressSink& progress,
                    const std::atomic<bool>& stop);

/// Runs submissions already read (what `kbx generate` makes each round) exactly as run_eval runs
/// SOURCE's: the same plan (finished ones skipped), session, store and exports. Every submission's
/// task must be in `suite`.
RunSummary run_submissions(const RunOptions& options, const suite::Suite& suite,
                           submit::SourceContents contents, ProgressSink& progress,
                           const std::atomic<bool>& stop);

/// Records `options`' identity in a store that has none, else refuses (Error usage) when the
/// stored run was made with other judging options or labels, naming both values.
/// A shard's identity also holds the suite's fingerprint (the split depends on every task).
void check_identity(store::Database& db, const RunOptions& options, const suite::Suite& suite);

/// The id of a submission: sha256 of task key, slot and code, stable across re-runs of the same
/// SOURCE (however its path is spelled) and across fixes to its other items.
std::string submission_id(const submit::Submission& submission);

/// The task as the store keeps it (table tasks and its workloads).
store::TaskRecord task_record(const suite::Task& task);

/// True when `key` matches the comma-separated glob list (an empty list matches everything).
bool task_selected(const std::string& pattern_list, const std::string& key);

}  // namespace kbx::run
