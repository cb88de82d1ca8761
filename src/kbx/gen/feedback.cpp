// Feedback for the next round, from an evaluation (and its report row for speedups).
#include "kbx/gen/feedback.h"

#include <fmt/format.h>

namespace kbx::gen {
namespace {

std::string cut(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + " [...]";
}

std::string mismatch_text(const store::CaseRecord& c) {
  std::string where = c.path.empty() ? "" : fmt::format(" in output {}", c.path);
  if (c.status == "error") {
    return fmt::format("test case '{}' raised {}: {}", c.name, c.reason, cut(c.detail, 800));
  }
  return fmt::format(
      "test case '{}' does not match the reference{} ({}): max abs error {:.4g}, max rel error "
      "{:.4g}, {} element{} outside tolerance, the first at flat index {}. {}",
      c.name, where, c.reason, c.err_abs_max, c.err_rel_max, c.mismatch_count,
      c.mismatch_count == 1 ? "" : "s", c.first_mismatch_index, cut(c.detail, 600));
}

std::string speedups_text(const report::SubmissionRow* row) {
  if (row == nullptr || !row->perf_ok || row->workloads.empty()) {
    return "It passes every test case; no timings were taken (CPU run or perf off), so aim for "
           "fewer memory passes and larger blocks.";
  }
  std::string out = fmt::format(
      "It passes every test case. Speedup over PyTorch eager: {:.3g}x "
      "overall; per workload:",
      row->speedup);
  for (const auto& w : row->workloads) {
    out += fmt::format(" {} {:.3g}x ({:.4g} ms vs {:.4g} ms);", w.params.dump(), w.speedup,
                       w.candidate_ms.median, w.reference_ms.median);
  }
  return out;
}

}  // namespace

std::string feedback_for(const store::EvaluationRecord& e, const report::SubmissionRow* row) {
  std::string text;
  if (e.outcome == "ok") {
    text = speedups_text(row);
  } else if (e.outcome == "incorrect") {
    const store::CaseRecord* first = nullptr;
    for (const auto& c : e.cases) {
      if (c.status != "ok" && c.status != "not_run") {
        first = &c;
        break;
      }
    }
    text = first != nullptr ? mismatch_text(*first)
                            : fmt::format("incorrect ({}): {}", e.reason, cut(e.detail, 800));
  } else if (e.outcome == "compile_error") {
    text = fmt::format("the module does not load (compile error, {}): {}", e.reason,
                       cut(e.detail, 1200));
  } else if (e.outcome == "runtime_error") {
    text = fmt::format("a test call raised (runtime error, {}): {}", e.reason, cut(e.detail, 1200));
  } else if (e.outcome == "not_triton") {
    text = fmt::format("the outputs match, but Triton did not do the work ({}): {}", e.reason,
                       cut(e.detail, 800));
  } else {
    text = fmt::format("outcome {} ({}): {}", e.outcome, e.reason, cut(e.detail, 1000));
  }
  return cut(text, max_feedback_bytes);
}

}  // namespace kbx::gen
