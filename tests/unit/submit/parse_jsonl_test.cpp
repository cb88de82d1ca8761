// Tests of parse_jsonl on hostile bytes: what the fuzzer (fuzz/submission_fuzz.cpp) and the
// end-to-end cases of tests/e2e/cases/input found, each a clear per-line problem, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "kbx/submit/source.h"
#include "support/test_support.h"

namespace kbx::submit {
namespace {

// An in-memory suite of three tasks (parse_jsonl reads no files).
suite::Suite memory_suite() {
  suite::Suite s;
  s.root = "suites/test";
  for (auto [key, entry] : {std::pair{"Activation/relu.py", "relu"}, {"Math/softmax.py", "softmax"},
                            {"Reduce/sum.py", "sum"}}) {
    suite::Task t;
    t.key = key;
    t.entry = entry;
    s.tasks.push_back(t);
  }
  return s;
}

const std::string valid = R"({"predict": "def relu(x): return x", "file": "Activation/relu.py"})";

TEST(ParseJsonl, ANumberBeyondDoubleRangeIsALineProblemAndTheOtherLinesAreRead) {
  // nlohmann throws out_of_range (not parse_error) for 1e400; it used to escape and end kbx.
  auto out = parse_jsonl(R"({"predict": "x", "file": "Reduce/sum.py", "n": 1e400})" "\n" + valid,
                         "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, "preds.jsonl:1");
  EXPECT_CONTAINS(out.problems[0].message, "line 1 is not valid JSON");
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].origin, "preds.jsonl:2");
}

}  // namespace
}  // namespace kbx::submit
