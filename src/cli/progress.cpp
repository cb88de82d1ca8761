// TerminalProgress.
#include "cli/progress.h"

#include <fmt/format.h>

namespace kbx::cli {

std::string format_duration(double seconds) {
  if (seconds < 60) {
    return fmt::format("{:.0f} s", seconds);
  }
  auto s = static_cast<long>(seconds + 0.5);
  if (s < 3600) {
    return fmt::format("{}:{:02}", s / 60, s % 60);
  }
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

TerminalProgress::TerminalProgress(std::FILE* out, bool interactive, bool color)
    : out_(out), interactive_(interactive), color_(color), started_(std::chrono::steady_clock::now()) {}

void TerminalProgress::clear_line() {
  if (interactive_ && bar_drawn_) {
    fmt::print(out_, "\r\033[K");
    bar_drawn_ = false;
  }
}

std::string TerminalProgress::colored(const std::string& outcome) const {
  if (!color_) {
    return outcome;
  }
  const char* code = outcome == "ok" ? "32" : (outcome == "incorrect" || outcome == "not_triton") ? "33" : "31";
  return fmt::format("\033[{}m{}\033[0m", code, outcome);
}

void TerminalProgress::on_start(int total, int already_done) {
  done_at_start_ = already_done;
  started_ = std::chrono::steady_clock::now();
  clear_line();
  if (already_done > 0) {
    fmt::print(out_, "kbx: resuming: {} of {} submissions already evaluated\n", already_done, total);
  } else {
    fmt::print(out_, "kbx: {} submissions to evaluate\n", total);
  }
  std::fflush(out_);
}

void TerminalProgress::on_input_problem(const submit::InputProblem& problem) {
  if (++input_problems_ > max_input_problems_printed + 1) {
    return;
  }
  clear_line();
  if (input_problems_ > max_input_problems_printed) {
    fmt::print(out_,
               "kbx: error: more input errors follow; only the first {} are printed here "
               "(kbx-results.json and kbx.db, table input_errors, list them all)\n",
               max_input_problems_printed);
  } else {
    fmt::print(out_, "kbx: error: {}: {}\n", problem.origin, problem.message);
  }
  std::fflush(out_);
}

void TerminalProgress::on_status(const std::string& message) {
  clear_line();
  fmt::print(out_, "kbx: {}\n", message);
  std::fflush(out_);
}

void TerminalProgress::on_evaluated(const std::string& task_key,
                                    const store::EvaluationRecord& record, int done, int total) {
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  int finished_here = done - done_at_start_;
  double eta = finished_here > 0 ? elapsed / finished_here * (total - done) : 0;
  std::string reason = record.reason.empty() ? "" : " (" + record.reason + ")";
  if (!interactive_) {
    fmt::print(out_, "[{:>{}}/{}] {:<40} {}{}  {:.1f} s\n", done, std::to_string(total).size(), total,
               task_key, record.outcome, reason, record.time_total_ms / 1000.0);
    std::fflush(out_);
    return;
  }
  clear_line();
  if (record.outcome != "ok") {
    fmt::print(out_, "  {:<40} {}{}\n", task_key, colored(record.outcome), reason);
  }
  constexpr int width = 30;
  int filled = total > 0 ? done * width / total : width;
  fmt::print(out_, "[{}{}] {}/{} {:>3}%  ETA {}  {} {}", std::string(filled, '#'),
             std::string(width - filled, '.'), done, total, total > 0 ? done * 100 / total : 100,
             format_duration(eta), task_key, colored(record.outcome));
  bar_drawn_ = true;
  std::fflush(out_);
}

void TerminalProgress::finish() {
  if (interactive_ && bar_drawn_) {
    fmt::print(out_, "\n");
    bar_drawn_ = false;
  }
}

}  // namespace kbx::cli
