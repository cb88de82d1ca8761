// suite check: controls that show each task's contract judges the right thing (`kbx suite check`).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "kbx/run/options.h"
#include "kbx/run/runner.h"
#include "kbx/suite/suite.h"

namespace kbx::run {

/// One control: a submission with a known right verdict.
struct Control {
  std::string name;  ///< "eager", "zeros", "first_input", "noise", "float16", "bfloat16", "upstream"
  std::string code;  ///< Python source defining the task's entry
  bool must_pass = false;  ///< eager must pass; every other control must be judged incorrect
};

/// The names of every control kind, in the order they run.
const std::vector<std::string>& control_names();

/// The controls that apply to `task`, restricted to `which` (empty: all). "float16"/"bfloat16"
/// apply to tasks with float32 data, "upstream" to tasks whose reference.py defines
/// upstream_reference (the public reference's behaviour, where kbx's differs); controls the task
/// lists in control_exemptions (with the reason they cannot fail) are left out.
std::vector<Control> task_controls(const suite::Task& task, const std::vector<std::string>& which);

/// A copy of `task` whose cases repeat for `seeds` input draws: seed 0 keeps each case's name
/// (and so its inputs), seed k > 0 becomes "<name>@seed<k>".
suite::Task with_seeds(const suite::Task& task, int seeds);

struct ControlResult {
  std::string task_key;
  std::string control;
  bool must_pass = false;
  std::string outcome;  ///< kbx's outcome for the control
  std::string reason;
  std::string detail;
  /// eager: outcome ok; others: outcome incorrect (a wrong answer, found by the comparison).
  [[nodiscard]] bool as_expected() const;
};

struct CheckReport {
  std::vector<ControlResult> results;  ///< by task, then control
  int tasks = 0;
  [[nodiscard]] int unexpected() const;
};

struct CheckOptions {
  RunOptions run;                     ///< source is ignored; require_triton is forced off
  int seeds = 3;                      ///< input draws per case for every control
  std::vector<std::string> controls;  ///< empty: all that apply
};

/// Writes the controls of every task in `tasks` to <out>/controls.jsonl, evaluates them like any
/// submission (resuming an earlier check in the same folder), and reports each against its
/// expected verdict.
CheckReport run_suite_check(const CheckOptions& options, const suite::Suite& suite,
                            const std::vector<const suite::Task*>& tasks, ProgressSink& progress,
                            const std::atomic<bool>& stop);

}  // namespace kbx::run
