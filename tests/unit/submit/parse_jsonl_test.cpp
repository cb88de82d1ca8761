// Tests of parse_jsonl on hostile bytes: what the fuzzer (fuzz/submission_fuzz.cpp) and the
// end-to-end cases of tests/e2e/cases/input found, each a clear per-line problem, never a crash.
#include <gtest/gtest.h>

#include <string>

#include "kbx/common/json.h"
#include "kbx/common/strings.h"
#include "kbx/submit/source.h"
#include "support/test_support.h"

namespace kbx::submit {
namespace {

// An in-memory suite of three tasks (parse_jsonl reads no files).
suite::Suite memory_suite() {
  suite::Suite s;
  s.root = "suites/test";
  for (auto [key, entry] : {std::pair{"Activation/relu.py", "relu"},
                            {"Math/softmax.py", "softmax"},
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
  auto out = parse_jsonl(R"({"predict": "x", "file": "Reduce/sum.py", "n": 1e400})"
                         "\n" +
                             valid,
                         "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, "preds.jsonl:1");
  EXPECT_CONTAINS(out.problems[0].message, "line 1 is not valid JSON");
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].origin, "preds.jsonl:2");
}

// A message a user reads and the store keeps: well-formed UTF-8 and short.
void expect_printable(const std::string& message) {
  EXPECT_EQ(utf8_valid_prefix(message), message.size()) << message;
  EXPECT_LT(message.size(), 1000U) << message;
}

std::string line_of(const Json& j) { return j.dump() + "\n"; }

TEST(ParseJsonl, ALineOverTheSizeLimitIsAProblemNamingTheLimit) {
  std::string big = line_of(
      Json{{"predict", std::string(max_submission_bytes, 'x')}, {"file", "Activation/relu.py"}});
  auto out = parse_jsonl(valid + "\n" + big + valid, "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, "preds.jsonl:2");
  EXPECT_CONTAINS(out.problems[0].message, "line 2 holds 4194346 bytes, over kbx's limit of 4 MiB");
  EXPECT_EQ(out.submissions.size(), 2U);
}

TEST(ParseJsonl, ALineThatIsNotUtf8IsAProblemNamingTheByteAndColumn) {
  auto out = parse_jsonl(
      "{\"predict\": \"caf\xe9\", \"file\": \"Reduce/sum.py\"}\n\xff\xfe\x01\x02\n" + valid,
      "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 2U);
  EXPECT_CONTAINS(out.problems[0].message, "line 1 is not UTF-8 text (byte 0xe9 at column 17)");
  EXPECT_CONTAINS(out.problems[1].message, "line 2 is not UTF-8 text (byte 0xff at column 1)");
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].origin, "preds.jsonl:3");
}

TEST(ParseJsonl, AJsonErrorMessageIsPrintableAndShortWhateverTheLineHolds) {
  // nlohmann quotes what it last read: here 100 kB of a string cut short, and of a bad literal.
  auto out = parse_jsonl(
      "{\"predict\": \"" + std::string(100'000, 'x') + "\n" + std::string(100'000, 'q') + "\x7f",
      "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 2U);
  for (const auto& p : out.problems) {
    EXPECT_CONTAINS(p.message, "is not valid JSON");
    expect_printable(p.message);
  }
}

TEST(ParseJsonl, ALineWithAControlByteIsBinaryDataNamingTheByteAndColumn) {
  auto out = parse_jsonl(std::string("{\"predict\": \"\x00\"}\n\x1b[31m\n", 23) + valid,
                         "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 2U);
  EXPECT_CONTAINS(out.problems[0].message,
                  "line 1 holds the control byte 0x00 at column 14, which JSON text never does "
                  "(binary data?)");
  EXPECT_CONTAINS(out.problems[1].message, "line 2 holds the control byte 0x1b at column 1");
  EXPECT_EQ(out.submissions.size(), 1U);
}

TEST(ParseJsonl, ALineWithoutPredictNamesTheKeysItHas) {
  auto out = parse_jsonl(line_of(Json{{"prediction", "x"}, {"task", "Reduce/sum.py"}}) +
                             line_of(Json{{"predict", 3}, {"file", "Reduce/sum.py"}}) + "[1]\n",
                         "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 3U);
  EXPECT_CONTAINS(out.problems[0].message,
                  "line 1 has no \"predict\" string (its keys: \"prediction\", \"task\")");
  EXPECT_CONTAINS(out.problems[1].message, "(\"predict\" is a number)");
  EXPECT_CONTAINS(out.problems[2].message, "(the line is an array, not an object)");
}

TEST(ParseJsonl, AFileThatIsNotAStringIsNamedAsSuch) {
  auto out =
      parse_jsonl(line_of(Json{{"predict", "x"}, {"file", 7}}), "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_CONTAINS(out.problems[0].message,
                  "line 1: \"file\" must be a string naming the task (\"Category/task.py\"), not a "
                  "number");
}

TEST(ParseJsonl, AMegabyteFileNameIsAnUnknownTaskQuicklyAndTheMessageIsShort) {
  // Edit distances to every key used to take minutes on a name this long.
  auto out =
      parse_jsonl(line_of(Json{{"predict", "x"}, {"file", "Math/" + std::string(1 << 20, 's')}}),
                  "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_CONTAINS(out.problems[0].message, "unknown task 'Math/sss");
  EXPECT_CONTAINS(out.problems[0].message, "no task key is that long");
  expect_printable(out.problems[0].message);
}

TEST(ParseJsonl, UnknownKeysAreIgnoredAsKernelBenchXFilesCarryOthers) {
  auto out = parse_jsonl(line_of(Json{{"instruction", "relu"},
                                      {"label", "reference code"},
                                      {"predict", "x"},
                                      {"file", "Activation/relu.py"},
                                      {"model", "gpt"}}),
                         "preds.jsonl", memory_suite());
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].task_key, "Activation/relu.py");
}

TEST(ParseJsonl, DeeplyNestedJsonIsALineProblemNotAStackOverflow) {
  // A deep "predict" followed by another key crashed kbx: ordered_json copied it recursively.
  std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  auto out = parse_jsonl(R"({"predict": )" + deep +
                             R"(, "file": "Reduce/sum.py"})"
                             "\n" +
                             std::string(200'000, '[') + "\n" + valid + "\n",
                         "preds.jsonl", memory_suite());
  ASSERT_EQ(out.problems.size(), 2U);
  EXPECT_CONTAINS(out.problems[0].message,
                  "line 1 is not valid JSON (arrays and objects nested deeper than 128 levels)");
  EXPECT_CONTAINS(out.problems[1].message, "line 2 is not valid JSON");
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].origin, "preds.jsonl:3");
}

TEST(ParseJsonl, SeveralSubmissionsForOneTaskAreAllReadWithANoteNamingThem) {
  auto out = parse_jsonl(
      valid + "\n" + line_of(Json{{"predict", "y"}, {"file", "Reduce/sum.py"}}) + valid + "\n",
      "preds.jsonl", memory_suite());
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 3U);
  EXPECT_NE(out.submissions[0].slot, out.submissions[2].slot);
  ASSERT_EQ(out.notes.size(), 1U);
  EXPECT_EQ(out.notes[0],
            "Activation/relu.py has 2 submissions (preds.jsonl:1, preds.jsonl:3); each is "
            "evaluated and counted on its own, as KernelBench-X counts every line");
}

TEST(ParseJsonl, NotesAboutRepeatedTasksAreCapped) {
  std::string text;
  for (const char* key : {"Activation/relu.py", "Math/softmax.py", "Reduce/sum.py"}) {
    for (int i = 0; i < 3; ++i) {
      text += line_of(Json{{"predict", "x"}, {"file", key}});
    }
  }
  suite::Suite s = memory_suite();
  auto out = parse_jsonl(text, "p.jsonl", s);
  ASSERT_EQ(out.notes.size(), 3U);
  EXPECT_CONTAINS(out.notes[0],
                  "Activation/relu.py has 3 submissions (p.jsonl:1, p.jsonl:2, p.jsonl:3)");
}

// std::regex recursed once per character: a fenced predict of a few MB overflowed the stack.
TEST(StripFences, MegabytesAfterAnOpeningFenceDoNotOverflowTheStack) {
  std::string tail(3 << 20, 'a');
  EXPECT_EQ(strip_fences("```" + tail), "```" + tail);  // no newline: not a fence
  EXPECT_EQ(strip_fences("```python\n" + tail), tail);
  EXPECT_EQ(strip_fences("```" + tail + "\nbody\n```"), "body\n");
}

TEST(StripFences, ManyFencesTakeLinearTime) {
  std::string text;
  for (int i = 0; i < 200'000; ++i) {
    text += "```x\n1\n```\n";
  }
  EXPECT_EQ(strip_fences(text), "1\n");
}

TEST(TaskFromInstruction, MegabytesOfLettersDoNotOverflowTheStack) {
  std::string letters(3 << 20, 'a');
  EXPECT_EQ(task_from_instruction(letters + "/softmax.py", memory_suite()),
            "Math/softmax.py");  // no key there, but "softmax" as a word
  EXPECT_EQ(task_from_instruction(letters + " Math/softmax.py", memory_suite()), "Math/softmax.py");
}

TEST(TaskFromInstruction, AKeyRunIntoOtherLettersIsNotAKey) {
  EXPECT_EQ(task_from_instruction("see xMath/softmax.py or a/b.py/sum.py", memory_suite()),
            std::nullopt);
  EXPECT_EQ(task_from_instruction("a/b.py then Reduce/sum.py", memory_suite()), "Reduce/sum.py");
}

}  // namespace
}  // namespace kbx::submit
