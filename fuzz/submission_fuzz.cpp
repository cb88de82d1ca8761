// libFuzzer target: a JSONL SOURCE (submit::parse_jsonl) and the clean-up every submission's code
// and names go through (fences, the separator, task names in instructions and paths).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kbx/submit/source.h"

namespace {

/// A small suite held in memory: five tasks, sorted by key as load_suite sorts them.
const kbx::suite::Suite& fuzz_suite() {
  static const kbx::suite::Suite suite = [] {
    kbx::suite::Suite s;
    s.root = "suites/fuzz";
    for (auto [key, entry] : {std::pair{"Activation/relu.py", "relu"},
                              {"Loss/mse_loss.py", "mse_loss"},
                              {"Math/softmax.py", "softmax"},
                              {"Optimizer/SGD.py", "sgd_step"},
                              {"Reduce/sum.py", "sum"}}) {
      kbx::suite::Task t;
      t.key = key;
      t.entry = entry;
      t.category = t.key.substr(0, t.key.find('/'));
      s.tasks.push_back(t);
    }
    return s;
  }();
  return suite;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& suite = fuzz_suite();
  auto contents = kbx::submit::parse_jsonl(text, "fuzz.jsonl", suite);
  for (std::size_t i = 0; i < contents.submissions.size(); ++i) {
    const auto& s = contents.submissions[i];
    if (suite.find(s.task_key) == nullptr || s.ordinal != static_cast<int>(i)) {
      __builtin_trap();  // a submission must name a task of the suite, in source order
    }
  }
  // The same bytes as a .py file's code, an instruction and a path.
  (void)kbx::submit::cut_at_separator(kbx::submit::strip_fences(text));
  (void)kbx::submit::task_from_instruction(text, suite);
  (void)kbx::submit::task_from_path(std::string(text), suite);
  return 0;
}
