// Recursive-descent evaluator behind eval_expr().
#include "kbx/common/expr.h"

#include <cctype>
#include <cmath>
#include <vector>

#include "kbx/common/strings.h"

namespace kbx {
namespace {

class Parser {
 public:
  Parser(std::string_view text, const ExprVars& vars) : text_(text), vars_(vars) {}

  double parse() {
    double v = sum();
    skip_space();
    if (pos_ != text_.size()) {
      fail("unexpected '{}'", text_.substr(pos_, 1));
    }
    return v;
  }

  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  template <typename... Args>
  void fail(fmt::format_string<Args...> format, Args&&... args) {
    if (error_.empty()) {
      error_ = fmt::format(format, std::forward<Args>(args)...);
    }
    pos_ = text_.size();
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) {
      ++pos_;
    }
  }

  bool eat(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  double sum() {
    double v = product();
    while (true) {
      if (eat("+")) {
        v += product();
      } else if (eat("-")) {
        v -= product();
      } else {
        return v;
      }
    }
  }

  double product() {
    double v = unary();
    while (true) {
      if (eat("//")) {
        double d = unary();
        v = d == 0 ? (fail("division by zero"), 0.0) : std::floor(v / d);
      } else if (eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        double d = unary();
        v = d == 0 ? (fail("division by zero"), 0.0) : v / d;
      } else if (eat("%")) {
        double d = unary();
        v = d == 0 ? (fail("division by zero"), 0.0) : v - d * std::floor(v / d);
      } else {
        return v;
      }
    }
  }

  // Every recursion (parentheses, arguments, signs, powers) passes through unary(), so its depth
  // bounds the stack: 200,000 '(' in a task.json overflowed it (found fuzzing the task loader).
  double unary() {
    if (depth_ >= max_depth) {
      fail("nested deeper than {} levels", max_depth);
      return 0.0;
    }
    ++depth_;
    double v = eat("-") ? -unary() : eat("+") ? unary() : power();
    --depth_;
    return v;
  }

  double power() {
    double base = atom();
    if (eat("**")) {
      return std::pow(base, unary());
    }
    return base;
  }

  double atom() {
    skip_space();
    if (eat("(")) {
      double v = sum();
      if (!eat(")")) {
        fail("missing ')'");
      }
      return v;
    }
    if (pos_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '.')) {
      return number();
    }
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      return name();
    }
    if (pos_ < text_.size()) {
      fail("unexpected '{}'", text_.substr(pos_, 1));
    } else {
      fail("unexpected end of expression");
    }
    return 0.0;
  }

  double number() {
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '.' ||
            text_[pos_] == 'e' || text_[pos_] == 'E' ||
            ((text_[pos_] == '-' || text_[pos_] == '+') && pos_ > start &&
             (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    std::string token(text_.substr(start, pos_ - start));
    char* end = nullptr;
    double v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size()) {
      fail("bad number '{}'", token);
    }
    return v;
  }

  double name() {
    std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      ++pos_;
    }
    std::string_view id = text_.substr(start, pos_ - start);
    if (eat("(")) {
      return call(id);
    }
    auto it = vars_.find(id);
    if (it == vars_.end()) {
      fail("unknown name '{}'", id);
      return 0.0;
    }
    return it->second;
  }

  double call(std::string_view fn) {
    std::vector<double> args;
    if (!eat(")")) {
      do {
        args.push_back(sum());
      } while (eat(","));
      if (!eat(")")) {
        fail("missing ')' after arguments of {}()", fn);
        return 0.0;
      }
    }
    auto need = [&](std::size_t n) {
      if (args.size() != n) {
        fail("{}() takes {} argument(s), got {}", fn, n, args.size());
        return false;
      }
      return true;
    };
    if (fn == "min" && need(2)) {
      return std::min(args[0], args[1]);
    }
    if (fn == "max" && need(2)) {
      return std::max(args[0], args[1]);
    }
    if (fn == "ceil" && need(1)) {
      return std::ceil(args[0]);
    }
    if (fn == "floor" && need(1)) {
      return std::floor(args[0]);
    }
    if (fn == "log2" && need(1)) {
      return std::log2(args[0]);
    }
    if (fn == "sqrt" && need(1)) {
      return std::sqrt(args[0]);
    }
    fail("unknown function '{}'", fn);
    return 0.0;
  }

  static constexpr int max_depth = 200;

  std::string_view text_;
  const ExprVars& vars_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

Result<double> eval_expr(std::string_view text, const ExprVars& vars) {
  Parser parser(text, vars);
  double v = parser.parse();
  if (!parser.error().empty()) {
    return Error(ErrorKind::suite, "expression '{}': {}", printable(text), parser.error());
  }
  if (!std::isfinite(v)) {
    return Error(ErrorKind::suite, "expression '{}' is not a finite number ({})", printable(text),
                 v);
  }
  return v;
}

}  // namespace kbx
