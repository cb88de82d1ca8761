// Terminal progress for `kbx eval`: a redrawn bar with ETA on a terminal, plain lines otherwise.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "kbx/run/runner.h"

namespace kbx::cli {

/// Input problems printed one by one; the rest are counted in one line (all are in the store).
constexpr int max_input_problems_printed = 20;

class TerminalProgress : public run::ProgressSink {
 public:
  /// Writes to `out` (stderr); `interactive` selects the redrawn bar.
  TerminalProgress(std::FILE* out, bool interactive, bool color);

  void on_start(int total, int already_done) override;
  void on_input_problem(const submit::InputProblem& problem) override;
  void on_status(const std::string& message) override;
  void on_evaluated(const std::string& task_key, const store::EvaluationRecord& record, int done,
                    int total) override;
  /// Ends the bar's line.
  void finish();

 private:
  void clear_line();
  [[nodiscard]] std::string colored(const std::string& outcome) const;

  std::FILE* out_;
  bool interactive_;
  bool color_;
  bool bar_drawn_ = false;
  int input_problems_ = 0;
  int done_at_start_ = 0;
  std::chrono::steady_clock::time_point started_;
};

/// "1:05" or "12 s".
std::string format_duration(double seconds);

}  // namespace kbx::cli
