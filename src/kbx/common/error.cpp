// kbx::Error helpers.
#include "kbx/common/error.h"

#include <cstring>

namespace kbx {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::suite: return "suite";
    case ErrorKind::input: return "input";
    case ErrorKind::io: return "io";
    case ErrorKind::store: return "store";
    case ErrorKind::protocol: return "protocol";
    case ErrorKind::worker: return "worker";
    case ErrorKind::busy: return "busy";
    case ErrorKind::internal: return "internal";
  }
  return "internal";
}

Error sys_error(std::string_view call, int err, std::string_view what) {
  if (what.empty()) {
    return Error(ErrorKind::io, "{}: {}", call, std::strerror(err));
  }
  return Error(ErrorKind::io, "{} {}: {}", call, what, std::strerror(err));
}

}  // namespace kbx
