// kbx::Error, the one exception type: failures that end the command (see STYLE.md section 4).
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace kbx {

/// What kind of failure ended the command; cli::main maps each kind to an exit code. `busy`: the
/// output folder is in use by another kbx process (try again later).
enum class ErrorKind { usage, suite, input, io, store, protocol, worker, busy, internal };

/// Name of an ErrorKind, for messages ("usage", "suite", ...).
std::string_view to_string(ErrorKind kind);

/// The exception thrown for failures that end the command. Caught only in cli::main.
/// Messages say what failed, where, and what to do next.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}

  template <typename... Args>
  Error(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args)
      : Error(kind, fmt::format(format, std::forward<Args>(args)...)) {}

  [[nodiscard]] ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

/// An Error of kind io for a failed system call, keeping errno's text:
/// `throw sys_error("open", errno, path);`
Error sys_error(std::string_view call, int err, std::string_view what = {});

}  // namespace kbx
