// Shared helpers for the unit tests: a scoped temporary directory and file writing.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

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

}  // namespace kbx::testing
