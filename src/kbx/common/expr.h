// A small arithmetic expression evaluator for task data: perf shapes and byte/FLOP models.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "kbx/common/result.h"

namespace kbx {

/// Named values an expression may refer to (a perf workload's parameters).
using ExprVars = std::map<std::string, double, std::less<>>;

/// Evaluates `text` with + - * / // % ** (right-associative), unary minus, parentheses,
/// numbers, variables from `vars`, and the functions min(a, b), max(a, b), ceil(x), floor(x),
/// log2(x), sqrt(x). Errors name the expression and the offending token.
/// Example: `eval_expr("2 * M * N * K", {{"M", 64}, {"N", 64}, {"K", 32}})` -> 262144.
Result<double> eval_expr(std::string_view text, const ExprVars& vars);

}  // namespace kbx
