// KBX_CHECK's failure path.
#include "kbx/common/check.h"

#include <cstdio>
#include <cstdlib>

namespace kbx::detail {

CheckFailure::CheckFailure(const char* file, int line, const char* condition) {
  stream_ << file << ":" << line << ": check failed: " << condition << " ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "kbx: internal error: %s\n", stream_.str().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace kbx::detail
