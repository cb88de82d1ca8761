// KBX_CHECK: invariants that abort in every build type (programmer errors only, never user input).
#pragma once

#include <sstream>

namespace kbx::detail {

/// Collects the streamed context of a failed check and aborts in its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition);
  [[noreturn]] ~CheckFailure();
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

/// Lets `KBX_CHECK(x) << ...` parse as a void expression.
struct Voidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace kbx::detail

/// Aborts with file, line and streamed context when cond is false: `KBX_CHECK(n > 0) << "n=" << n;`
#define KBX_CHECK(cond)                    \
  (cond) ? (void)0                         \
         : ::kbx::detail::Voidify() &      \
               ::kbx::detail::CheckFailure(__FILE__, __LINE__, #cond)
