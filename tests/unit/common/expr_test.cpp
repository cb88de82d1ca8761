// Tests of eval_expr: precedence, Python's // % ** semantics, functions and error messages.
#include "kbx/common/expr.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace kbx {
namespace {

// The value of `text`; fails the test (and returns NaN) when it is an error.
double eval(std::string_view text, const ExprVars& vars = {}) {
  auto r = eval_expr(text, vars);
  if (!r) {
    ADD_FAILURE() << "eval_expr(\"" << text << "\") failed: " << r.error().what();
    return std::numeric_limits<double>::quiet_NaN();
  }
  return *r;
}

// The message of the error `text` gives; fails the test when it evaluates.
std::string error_of(std::string_view text, const ExprVars& vars = {}) {
  auto r = eval_expr(text, vars);
  if (r) {
    ADD_FAILURE() << "eval_expr(\"" << text << "\") gave " << *r << ", expected an error";
    return {};
  }
  EXPECT_EQ(r.error().kind(), ErrorKind::suite);
  return r.error().what();
}

TEST(EvalExpr, MultiplicationBindsTighterThanAdditionAndParenthesesOverrideIt) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("2 * 3 + 4 * 5"), 26);
}

TEST(EvalExpr, AdditiveAndMultiplicativeOperatorsAssociateToTheLeft) {
  EXPECT_EQ(eval("10 - 4 - 3"), 3);
  EXPECT_EQ(eval("64 / 4 / 2"), 8);
  EXPECT_EQ(eval("100 // 7 // 2"), 7);
  EXPECT_EQ(eval("2 * 9 % 4"), 2);
}

TEST(EvalExpr, FloorDivisionRoundsTowardNegativeInfinityLikePython) {
  EXPECT_EQ(eval("7 // 2"), 3);
  EXPECT_EQ(eval("-7 // 2"), -4);
  EXPECT_EQ(eval("7 // -2"), -4);
  EXPECT_EQ(eval("7.5 // 2"), 3);
}

TEST(EvalExpr, ModuloTakesTheSignOfTheDivisorLikePython) {
  EXPECT_EQ(eval("7 % 3"), 1);
  EXPECT_EQ(eval("-7 % 3"), 2);
  EXPECT_EQ(eval("7 % -3"), -2);
  EXPECT_EQ(eval("7.5 % 2"), 1.5);
}

TEST(EvalExpr, PowerIsRightAssociative) {
  EXPECT_EQ(eval("2 ** 3 ** 2"), 512);
  EXPECT_EQ(eval("(2 ** 3) ** 2"), 64);
}

TEST(EvalExpr, PowerBindsTighterThanMultiplicationAndUnaryMinus) {
  EXPECT_EQ(eval("2 * 3 ** 2"), 18);
  EXPECT_EQ(eval("-2 ** 2"), -4);
  EXPECT_EQ(eval("(-2) ** 2"), 4);
}

TEST(EvalExpr, UnaryMinusAppliesToTheExponentAndCanRepeat) {
  EXPECT_EQ(eval("2 ** -1"), 0.5);
  EXPECT_EQ(eval("2 ** -3 ** 2"), std::pow(2.0, -9.0));
  EXPECT_EQ(eval("--3"), 3);
  EXPECT_EQ(eval("-3 * -2"), 6);
  EXPECT_EQ(eval("+4 - -1"), 5);
}

TEST(EvalExpr, ReadsDecimalAndExponentNumbers) {
  EXPECT_EQ(eval("1.5e3"), 1500);
  EXPECT_EQ(eval("2.5E-1"), 0.25);
  EXPECT_EQ(eval(".5 + 1e+1"), 10.5);
}

TEST(EvalExpr, SubstitutesVariables) {
  ExprVars vars{{"M", 64}, {"N", 64}, {"K", 32}, {"block_size", 8}};
  EXPECT_EQ(eval("2 * M * N * K", vars), 262144);
  EXPECT_EQ(eval("  M // block_size  ", vars), 8);
}

TEST(EvalExpr, EvaluatesEveryFunction) {
  EXPECT_EQ(eval("min(3, 5)"), 3);
  EXPECT_EQ(eval("max(3, 5)"), 5);
  EXPECT_EQ(eval("ceil(2.1)"), 3);
  EXPECT_EQ(eval("floor(-2.1)"), -3);
  EXPECT_EQ(eval("log2(1024)"), 10);
  EXPECT_EQ(eval("sqrt(81)"), 9);
}

TEST(EvalExpr, NestsFunctionCallsWithExpressionArguments) {
  ExprVars vars{{"N", 100}};
  EXPECT_EQ(eval("max(min(N, 64), 2) * ceil(N / 64)", vars), 128);
  EXPECT_EQ(eval("2 ** ceil(log2(N))", vars), 128);
}

TEST(EvalExpr, UnknownNameIsAnErrorNamingTheExpressionAndTheName) {
  std::string message = error_of("M * Q", {{"M", 1}});
  EXPECT_NE(message.find("expression 'M * Q'"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown name 'Q'"), std::string::npos) << message;
}

TEST(EvalExpr, UnknownFunctionIsAnErrorNamingTheExpressionAndTheFunction) {
  std::string message = error_of("exp(2)");
  EXPECT_NE(message.find("expression 'exp(2)'"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown function 'exp'"), std::string::npos) << message;
}

TEST(EvalExpr, WrongArgumentCountIsAnError) {
  std::string message = error_of("min(1)");
  EXPECT_NE(message.find("min() takes 2 argument(s), got 1"), std::string::npos) << message;
  message = error_of("sqrt(1, 2)");
  EXPECT_NE(message.find("sqrt() takes 1 argument(s), got 2"), std::string::npos) << message;
}

TEST(EvalExpr, DivisionByZeroIsAnErrorForEachDivisionOperator) {
  for (const char* text : {"1 / 0", "1 // 0", "1 % 0", "N / (N - 4)"}) {
    std::string message = error_of(text, {{"N", 4}});
    EXPECT_NE(message.find(fmt::format("expression '{}'", text)), std::string::npos) << message;
    EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
  }
}

TEST(EvalExpr, MalformedTextIsAnError) {
  EXPECT_NE(error_of("").find("unexpected end of expression"), std::string::npos);
  EXPECT_NE(error_of("2 +").find("unexpected end of expression"), std::string::npos);
  EXPECT_NE(error_of("(2 + 3").find("missing ')'"), std::string::npos);
  EXPECT_NE(error_of("2 3").find("unexpected '3'"), std::string::npos);
  EXPECT_NE(error_of("2 $ 3").find("unexpected '$'"), std::string::npos);
  EXPECT_NE(error_of("1e").find("bad number '1e'"), std::string::npos);
  EXPECT_NE(error_of("min(1, 2").find("missing ')' after arguments of min()"), std::string::npos);
}

std::string repeat(std::string_view text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) {
    out += text;
  }
  return out;
}

// 200,000 '(' in a task.json's perf model overflowed the stack of the recursive-descent parser.
TEST(EvalExpr, NestingDeeperThan200LevelsIsAnErrorNotAStackOverflow) {
  for (const std::string& text :
       {repeat("(", 200'000) + "1" + repeat(")", 200'000), repeat("-", 200'000) + "1",
        repeat("2**", 100'000) + "1", repeat("min(", 50'000)}) {
    std::string message = error_of(text);
    EXPECT_NE(message.find("nested deeper than 200 levels"), std::string::npos) << message;
    EXPECT_LT(message.size(), 400U);
  }
  auto ok = eval_expr(repeat("(", 150) + "1" + repeat(")", 150), {});
  ASSERT_TRUE(ok.ok()) << ok.error().what();
  EXPECT_EQ(*ok, 1.0);
}

}  // namespace
}  // namespace kbx
