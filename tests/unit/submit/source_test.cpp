// Tests of reading submissions: fences, the separator, task resolution and SOURCE kinds.
#include "kbx/submit/source.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "kbx/common/error.h"
#include "support/test_support.h"

namespace kbx::submit {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;


// A suite of four tasks written into `root`/suite and loaded from there.
suite::Suite fixture_suite(const ScopedTempDir& root) {
  struct Spec {
    const char* key;
    const char* entry;
  };

  for (auto [key, entry] :
       {Spec{"Math/softmax.py", "softmax"}, Spec{"Activation/relu.py", "relu"},
        Spec{"Optimizer/SGD.py", "sgd_step"}, Spec{"Loss/mse_loss.py", "mse_loss"}}) {
    std::string k(key);
    std::string folder = "suite/" + k.substr(0, k.size() - 3);
    Json task{{"format", 1},
              {"key", k},
              {"entry", entry},
              {"category", k.substr(0, k.find('/'))},
              {"signature", std::string(entry) + "(x)"},
              {"description", "d"},
              {"cases", {{{"name", "c"}, {"args", {1}}}}}};
    root.write(folder + "/task.json", task.dump());
    root.write(folder + "/reference.py", "import torch\n");
  }
  suite::Suite s = suite::load_suite(root.path() / "suite");
  EXPECT_TRUE(s.errors.empty());
  EXPECT_EQ(s.tasks.size(), 4U);
  return s;
}

// One JSONL line: {"predict": predict, <name_field>: name}.
std::string line(const std::string& predict, const std::string& name_field,
                 const std::string& name) {
  return Json{{"predict", predict}, {name_field, name}}.dump() + "\n";
}

using kbx::testing::error_of;

// --- strip_fences -------------------------------------------------------------------------------

TEST(StripFences, TakesTheBodyOfAPythonFence) {
  EXPECT_EQ(strip_fences("Here it is:\n```python\nimport torch\nx = 1\n```\nDone."),
            "import torch\nx = 1\n");
}

TEST(StripFences, AcceptsPyPython3AndAnyCaseAsPython) {
  // An unlabelled block comes first each time: only a block taken as Python wins over it.
  for (const char* label : {"py", "python3", "Python", " python", "PY"}) {
    std::string text = fmt::format("```\nnot it\n```\n```{}\nit = 1\n```", label);
    EXPECT_EQ(strip_fences(text), "it = 1\n") << label;
  }
}

TEST(StripFences, TakesTheBodyOfAnUnlabelledFence) {
  EXPECT_EQ(strip_fences("text\n```\nimport triton\n```\nmore"), "import triton\n");
}

TEST(StripFences, FirstPythonBlockWins) {
  EXPECT_EQ(strip_fences("```python\nfirst = 1\n```\n```python\nsecond = 2\n```"), "first = 1\n");
}

TEST(StripFences, PythonBlockWinsOverAnEarlierUnlabelledOrOtherLanguageBlock) {
  EXPECT_EQ(
      strip_fences("```\nnot it\n```\n```bash\npip install triton\n```\n```python\nit = 1\n```"),
      "it = 1\n");
}

TEST(StripFences, UnlabelledBlockWinsOverAnEarlierOtherLanguageBlock) {
  EXPECT_EQ(
      strip_fences("Install first:\n```bash\npip install triton\n```\n```\nimport triton\n```"),
      "import triton\n");
}

TEST(StripFences, OtherLanguageBlockIsUsedOnlyWhenThereIsNoOtherFence) {
  EXPECT_EQ(strip_fences("```text\nimport torch\n```"), "import torch\n");
}

TEST(StripFences, UnterminatedFenceRunsToTheEnd) {
  EXPECT_EQ(strip_fences("```python\nimport torch\nx = 1\n"), "import torch\nx = 1\n");
}

TEST(StripFences, TextWithoutAFenceIsReturnedAsIs) {
  EXPECT_EQ(strip_fences("import torch\n\ndef f(x):\n    return x\n"),
            "import torch\n\ndef f(x):\n    return x\n");
  EXPECT_EQ(strip_fences(""), "");
}

// --- cut_at_separator ---------------------------------------------------------------------------

TEST(CutAtSeparator, CutsAtTheFirstLineOf146Hashes) {
  std::string code =
      "def f(x):\n    return x\n" + std::string(146, '#') + "\ndef test():\n    pass\n";
  EXPECT_EQ(cut_at_separator(code), "def f(x):\n    return x\n");
}

TEST(CutAtSeparator, DoesNotCutAt145Hashes) {
  std::string code = "x = 1\n" + std::string(145, '#') + "\ny = 2\n";
  EXPECT_EQ(cut_at_separator(code), code);
}

TEST(CutAtSeparator, KeepsCodeWithoutASeparator) {
  EXPECT_EQ(cut_at_separator("x = 1  # a comment\n"), "x = 1  # a comment\n");
}

// --- task_from_instruction ----------------------------------------------------------------------

TEST(TaskFromInstruction, UsesAKeyThatAppearsInTheText) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("Write Activation/relu.py in Triton; see softmax too.", s),
            "Activation/relu.py");
}

TEST(TaskFromInstruction, IgnoresKeysThatAreNotInTheSuite) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("Like Math/gelu.py, write def relu(x):", s),
            "Activation/relu.py");
}

TEST(TaskFromInstruction, UsesTheUniqueDefOfAnEntryName) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("Implement:\ndef softmax(input, dim):\nUnlike relu, ...", s),
            "Math/softmax.py");
}

TEST(TaskFromInstruction, UsesTheUniqueWholeWordWhenNoDefMatches) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("Write an SGD step in Triton.", s), "Optimizer/SGD.py");
  EXPECT_EQ(task_from_instruction("Write mse_loss.", s), "Loss/mse_loss.py");
}

TEST(TaskFromInstruction, PartOfAWordIsNotAMatch) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("Write a prelu kernel.", s), std::nullopt);
  EXPECT_EQ(task_from_instruction("Write a relu_fast kernel.", s), std::nullopt);
  EXPECT_EQ(task_from_instruction("Write a relu6 kernel.", s), std::nullopt);
}

TEST(TaskFromInstruction, AmbiguousOrMissingNamesGiveNullopt) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_instruction("def relu(x): ...\ndef softmax(x, dim): ...", s), std::nullopt);
  EXPECT_EQ(task_from_instruction("Combine relu and softmax.", s), std::nullopt);
  EXPECT_EQ(task_from_instruction("Write a fast GEMM.", s), std::nullopt);
}

TEST(TaskFromInstruction, TaskWithAnEmptyEntryNameMatchesByItsStemAndDoesNotHang) {
  auto s = std::make_shared<suite::Suite>();
  s->tasks.resize(1);
  s->tasks[0].key = "Math/softmax.py";  // entry left empty
  // Run on a detached thread so that a regression fails the test instead of hanging it.
  auto result = std::make_shared<std::promise<std::optional<std::string>>>();
  auto done = result->get_future();
  std::thread([s, result] {
    result->set_value(task_from_instruction("Write softmax.", *s));
  }).detach();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(done.get(), "Math/softmax.py");
}

// --- task_from_path -----------------------------------------------------------------------------

TEST(TaskFromPath, UsesTheCategoryFolderAndStem) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_path("preds/run1/Math/softmax.py", s), "Math/softmax.py");
}

TEST(TaskFromPath, FallsBackToAUniqueStemOrEntryName) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_path("preds/relu.py", s), "Activation/relu.py");
  EXPECT_EQ(task_from_path("preds/Wrong/SGD.py", s), "Optimizer/SGD.py");
  EXPECT_EQ(task_from_path("sgd_step.py", s), "Optimizer/SGD.py");
}

TEST(TaskFromPath, UnknownNameGivesNullopt) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  EXPECT_EQ(task_from_path("preds/Math/gelu.py", s), std::nullopt);
}

// --- read_source: JSONL -------------------------------------------------------------------------

TEST(ReadSourceJsonl, ReadsEachLineWithOriginOrdinalAndPreparedCode) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  std::string predict =
      "```python\ndef relu(x):\n    return x\n" + std::string(146, '#') + "\ntest()\n```";
  auto path = root.write("preds.jsonl", line(predict, "file", "Activation/relu.py") +
                                            line("x = 2\n", "file", "Math/softmax.py"));
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 2U);
  EXPECT_EQ(out.submissions[0].task_key, "Activation/relu.py");
  EXPECT_EQ(out.submissions[0].code, "def relu(x):\n    return x\n");
  EXPECT_EQ(out.submissions[0].origin, path.string() + ":1");
  EXPECT_EQ(out.submissions[0].ordinal, 0);
  EXPECT_EQ(out.submissions[1].task_key, "Math/softmax.py");
  EXPECT_EQ(out.submissions[1].code, "x = 2\n");
  EXPECT_EQ(out.submissions[1].origin, path.string() + ":2");
  EXPECT_EQ(out.submissions[1].ordinal, 1);
  EXPECT_EQ(out.submissions[0].slot, "line 1");
  EXPECT_EQ(out.submissions[1].slot, "line 2");
}

TEST(ReadSourceJsonl, SkipsBlankLinesButKeepsLineNumbers) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("preds.jsonl", "\n   \n" + line("x", "file", "Activation/relu.py") + "\n");
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].origin, path.string() + ":3");
}

TEST(ReadSourceJsonl, BadJsonLineIsAProblemNamingFileAndLineAndLaterLinesAreStillRead) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path =
      root.write("preds.jsonl", line("a", "file", "Activation/relu.py") + "{\"predict\": \"oops\n" +
                                    line("b", "file", "Math/softmax.py"));
  SourceContents out = read_source(path, s);
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, path.string() + ":2");
  EXPECT_CONTAINS(out.problems[0].message, "line 2 is not valid JSON");
  ASSERT_EQ(out.submissions.size(), 2U);
  EXPECT_EQ(out.submissions[1].task_key, "Math/softmax.py");
  EXPECT_EQ(out.submissions[1].origin, path.string() + ":3");
}

TEST(ReadSourceJsonl, LineWithoutAPredictStringIsAProblem) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("preds.jsonl",
                         "{\"file\": \"Activation/relu.py\"}\n"
                         "{\"predict\": 3, \"file\": \"Activation/relu.py\"}\n"
                         "[1, 2]\n");
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.submissions.empty());
  ASSERT_EQ(out.problems.size(), 3U);
  EXPECT_CONTAINS(out.problems[0].message, "line 1 has no \"predict\" string");
  EXPECT_CONTAINS(out.problems[2].message, "line 3 has no \"predict\" string");
}

TEST(ReadSourceJsonl, UnknownFileIsAProblemNamingTheClosestKeys) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("preds.jsonl", line("x", "file", "Math/sofmax.py"));
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.submissions.empty());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, path.string() + ":1");
  EXPECT_CONTAINS(out.problems[0].message,
                  "unknown task 'Math/sofmax.py'; closest: Math/softmax.py");
}

TEST(ReadSourceJsonl, FileMayNameATaskByPathOrStem) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write(
      "preds.jsonl", line("a", "file", "outputs/Optimizer/SGD.py") + line("b", "file", "relu.py"));
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 2U);
  EXPECT_EQ(out.submissions[0].task_key, "Optimizer/SGD.py");
  EXPECT_EQ(out.submissions[1].task_key, "Activation/relu.py");
}

TEST(ReadSourceJsonl, InstructionOnlyLinesResolveByTheTaskTheyName) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path =
      root.write("preds.jsonl", line("a", "instruction", "Write def mse_loss(x): in Triton") +
                                    line("b", "instruction", "Write relu and softmax") +
                                    "{\"predict\": \"c\"}\n");
  SourceContents out = read_source(path, s);
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].task_key, "Loss/mse_loss.py");
  ASSERT_EQ(out.problems.size(), 2U);
  EXPECT_EQ(out.problems[0].origin, path.string() + ":2");
  EXPECT_CONTAINS(out.problems[0].message, "names no single task");
  EXPECT_CONTAINS(out.problems[1].message, "neither \"file\" nor \"instruction\"");
}

// --- read_source: .py files and folders ---------------------------------------------------------

TEST(ReadSourcePy, ReadsOneFileNamedAfterItsTask) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("out/Math/softmax.py", "```python\ndef softmax(x, dim):\n    pass\n```\n");
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].task_key, "Math/softmax.py");
  EXPECT_EQ(out.submissions[0].code, "def softmax(x, dim):\n    pass\n");
  EXPECT_EQ(out.submissions[0].origin, path.string());
  EXPECT_EQ(out.submissions[0].ordinal, 0);
}

TEST(ReadSourcePy, FileNamedAfterNoTaskIsAProblemWithTheClosestKeys) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("out/relux.py", "x = 1\n");
  SourceContents out = read_source(path, s);
  EXPECT_TRUE(out.submissions.empty());
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, path.string());
  EXPECT_CONTAINS(out.problems[0].message, "unknown task 'relux.py'; closest: Activation/relu.py");
}

TEST(ReadSourceFolder, SearchesRecursivelyInSortedPathOrderAndSkipsOtherFiles) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/b/Math/softmax.py", "b\n");
  root.write("out/a/relu.py", "a\n");
  root.write("out/c/deeper/still/SGD.py", "c\n");
  root.write("out/a/notes.txt", "not code");
  root.write("out/a/relu.pyc", "not code");
  SourceContents out = read_source(root.path() / "out", s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 3U);
  EXPECT_EQ(out.submissions[0].task_key, "Activation/relu.py");
  EXPECT_EQ(out.submissions[1].task_key, "Math/softmax.py");
  EXPECT_EQ(out.submissions[2].task_key, "Optimizer/SGD.py");
  EXPECT_EQ(out.submissions[2].ordinal, 2);
  EXPECT_EQ(out.submissions[2].slot, "c/deeper/still/SGD.py");
  EXPECT_EQ(out.submissions[2].code, "c\n");
}

TEST(ReadSourceFolder, UnknownFilesAreProblemsAndTheRestAreRead) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/gelu.py", "x\n");
  root.write("out/relu.py", "y\n");
  SourceContents out = read_source(root.path() / "out", s);
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].task_key, "Activation/relu.py");
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, (root.path() / "out/gelu.py").string());
}

TEST(ReadSourceFolder, AFileThatIsNotUtf8IsAProblemNamingLineAndColumn) {
  // Its code could not even be sent to the worker (frames are JSON); it used to end kbx.
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/relu.py", "# ok\n# caf\xe9\n");
  root.write("out/softmax.py", "z\n");
  SourceContents out = read_source(root.path() / "out", s);
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_EQ(out.problems[0].origin, (root.path() / "out/relu.py").string());
  EXPECT_CONTAINS(out.problems[0].message,
                  "the file is not UTF-8 text (byte 0xe9 at line 2, column 6); Python reads source "
                  "files as UTF-8: save relu.py as UTF-8");
  ASSERT_EQ(out.submissions.size(), 1U);
  EXPECT_EQ(out.submissions[0].task_key, "Math/softmax.py");
}

TEST(ReadSourceFolder, AFileOverTheSizeLimitIsAProblemNamingTheLimit) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/relu.py", std::string(max_submission_bytes + 1, '#'));
  root.write("out/softmax.py", "z\n");
  SourceContents out = read_source(root.path() / "out", s);
  ASSERT_EQ(out.problems.size(), 1U);
  EXPECT_CONTAINS(out.problems[0].message,
                  "the file holds 4194305 bytes, over kbx's limit of 4 MiB for one submission");
  EXPECT_EQ(out.submissions.size(), 1U);
}

TEST(ReadSourceFolder, TwoFilesForOneTaskAreBothReadWithANote) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/a/relu.py", "a\n");
  root.write("out/b/Activation/relu.py", "b\n");
  SourceContents out = read_source(root.path() / "out", s);
  EXPECT_TRUE(out.problems.empty());
  ASSERT_EQ(out.submissions.size(), 2U);
  ASSERT_EQ(out.notes.size(), 1U);
  EXPECT_CONTAINS(out.notes[0], "Activation/relu.py has 2 submissions");
}

TEST(ReadSourceFolder, FolderWithoutPyFilesIsAnInputError) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  root.write("out/readme.md", "nothing here");
  Error e = error_of([&] { (void)read_source(root.path() / "out", s); });
  EXPECT_EQ(e.kind(), ErrorKind::input);
  EXPECT_CONTAINS(e.what(), "holds no .py submissions");
}

TEST(ReadSource, MissingSourceIsAnInputError) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  Error e = error_of([&] { (void)read_source(root.path() / "missing.jsonl", s); });
  EXPECT_EQ(e.kind(), ErrorKind::input);
  EXPECT_CONTAINS(e.what(), "does not exist");
  EXPECT_CONTAINS(e.what(), (root.path() / "missing.jsonl").string());
}

TEST(ReadSource, FileOfAnotherKindIsAnInputError) {
  ScopedTempDir root;
  auto s = fixture_suite(root);
  auto path = root.write("preds.txt", line("x", "file", "Activation/relu.py"));
  Error e = error_of([&] { (void)read_source(path, s); });
  EXPECT_EQ(e.kind(), ErrorKind::input);
  EXPECT_CONTAINS(e.what(), "neither a .jsonl file, a .py file nor a folder");
}

}  // namespace
}  // namespace kbx::submit
