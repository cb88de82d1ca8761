// Shared helpers for the unit tests: a scoped temporary directory and file writing.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "kbx/common/error.h"

/// Expects `text` to contain `part`, printing the text when it does not.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "in: " << (text)

namespace kbx::testing {

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Writes `content` to path()/relative, creating parent folders; returns the full path.
  std::filesystem::path write(std::string_view relative, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

/// The whole file as a string.
std::string read_file(const std::filesystem::path& path);

/// The kbx::Error that `fn` throws; fails the test (and returns an internal error) if it throws none.
template <typename Fn>
Error error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a kbx::Error";
  return Error(ErrorKind::internal, "nothing thrown");
}

}  // namespace kbx::testing
