// Code extraction over the shapes model answers take.
#include "kbx/gen/extract.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace kbx::gen {
namespace {

const char* kernel =
    "import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n    pass\n\ndef relu(x):\n    return x\n";

std::string fenced(const std::string& label, const std::string& body) {
  return "```" + label + "\n" + body + "```\n";
}

TEST(Extract, TakesTheOnePythonBlockOutOfProse) {
  auto e =
      extract_code("Here is the kernel:\n\n" + fenced("python", kernel) + "\nIt is fast.", "relu");
  ASSERT_EQ(e.status, ExtractStatus::code) << e.detail;
  EXPECT_EQ(e.code, kernel);
}

TEST(Extract, AcceptsUnlabelledTildeAndPyFences) {
  EXPECT_EQ(extract_code(fenced("", kernel), "relu").code, kernel);
  EXPECT_EQ(extract_code(fenced("py", kernel), "relu").code, kernel);
  EXPECT_EQ(extract_code(std::string("~~~python\n") + kernel + "~~~\n", "relu").code, kernel);
}

TEST(Extract, PrefersTheBlockThatDefinesTheEntryWithTriton) {
  std::string answer = fenced("python", "def helper():\n    pass\n") + "and\n" +
                       fenced("python", kernel) + fenced("python", "print(relu(x))\n");
  auto e = extract_code(answer, "relu");
  ASSERT_EQ(e.status, ExtractStatus::code);
  EXPECT_EQ(e.code, kernel);
}

TEST(Extract, JoinsKernelAndWrapperGivenInSeparateBlocksAndDropsUsage) {
  std::string k = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x):\n    pass\n";
  std::string w = "import torch\ndef relu(x):\n    k[(1,)](x)\n    return x\n";
  std::string usage = "x = torch.randn(4)\nprint(relu(x))\n";
  auto e = extract_code(fenced("python", k) + "Then the wrapper:\n" + fenced("python", w) +
                            "Usage:\n" + fenced("python", usage),
                        "relu");
  ASSERT_EQ(e.status, ExtractStatus::code) << e.detail;
  EXPECT_EQ(e.code, k + "\n" + w + "\n");
  EXPECT_CONTAINS(e.detail, "2 of 3 code blocks joined");
}

TEST(Extract, IgnoresBlocksInOtherLanguages) {
  auto e = extract_code(fenced("bash", "pip install triton\n") + fenced("python", kernel), "relu");
  EXPECT_EQ(e.code, kernel);
}

TEST(Extract, CutsAtTheLineOf146Hashes) {
  std::string tests = std::string(146, '#') + "\nimport torch\ndef test_relu():\n    pass\n";
  auto e = extract_code(fenced("python", std::string(kernel) + tests), "relu");
  ASSERT_EQ(e.status, ExtractStatus::code);
  EXPECT_EQ(e.code, kernel);
}

TEST(Extract, TakesUnfencedCodeAfterProse) {
  auto e = extract_code(std::string("Sure, here it is.\n") + kernel, "relu");
  ASSERT_EQ(e.status, ExtractStatus::code) << e.detail;
  EXPECT_EQ(e.code, kernel);
  EXPECT_CONTAINS(e.detail, "after prose");
}

TEST(Extract, AnUnterminatedFenceRunsToTheEnd) {
  auto e = extract_code(std::string("```python\n") + kernel, "relu");
  ASSERT_EQ(e.status, ExtractStatus::code);
  EXPECT_EQ(e.code, kernel);
}

TEST(Extract, HandlesWindowsLineEndings) {
  auto e =
      extract_code("```python\r\nimport triton\r\ndef relu(x):\r\n    return x\r\n```\r\n", "relu");
  ASSERT_EQ(e.status, ExtractStatus::code);
  EXPECT_EQ(e.code, "import triton\ndef relu(x):\n    return x\n");
}

TEST(Extract, ARefusalHasNoCode) {
  auto e = extract_code("I'm sorry, but I can't help with that.", "relu");
  EXPECT_EQ(e.status, ExtractStatus::no_code);
  EXPECT_CONTAINS(e.detail, "no code block");
  EXPECT_EQ(to_string(e.status), "no_code");
}

TEST(Extract, AnEmptyAnswerHasNoCode) {
  auto e = extract_code("  \n", "relu");
  EXPECT_EQ(e.status, ExtractStatus::no_code);
  EXPECT_CONTAINS(e.detail, "empty");
}

TEST(Extract, OnlyNonPythonBlocksHaveNoCode) {
  auto e = extract_code(fenced("cuda", "__global__ void k() {}\n"), "relu");
  EXPECT_EQ(e.status, ExtractStatus::no_code);
  EXPECT_CONTAINS(e.detail, "no Python");
}

TEST(Extract, CodeThatDefinesNoFunctionIsNotUsable) {
  auto e = extract_code(fenced("python", "import torch\nx = torch.relu(y)\n"), "relu");
  EXPECT_EQ(e.status, ExtractStatus::no_code);
  EXPECT_CONTAINS(e.detail, "defines no function");
}

TEST(Extract, OnlyTestsBeforeTheSeparatorIsNotUsable) {
  auto e =
      extract_code(fenced("python", std::string(146, '#') + "\ndef test():\n    pass\n"), "relu");
  EXPECT_EQ(e.status, ExtractStatus::no_code);
}

}  // namespace
}  // namespace kbx::gen
