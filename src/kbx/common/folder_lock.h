// FolderLock: one kbx process at a time writes an output folder (flock on <folder>/kbx.lock).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kbx {

/// Who holds a folder's lock, as the holder wrote it into the lock file.
struct LockHolder {
  int pid = 0;          ///< 0 when the file names no pid (the holder is still writing it)
  std::string command;  ///< the holder's command line, space-joined
};

/// An exclusive advisory lock on an output folder: flock(2) on `<folder>/kbx.lock`, a file that
/// holds the holder's pid and command line for the message a second process prints. The kernel
/// drops the lock when the holder's process ends, however it ends (kill -9 included), so a lock
/// is never stale; the file stays in the folder and means nothing by itself. The descriptor is
/// close-on-exec: processes kbx starts do not hold the lock. Move-only; releases on destruction.
///
///   auto lock = FolderLock::acquire(out, argv);  // throws Error(busy) if another kbx writes `out`
class FolderLock {
 public:
  /// The lock file's name inside the folder.
  static constexpr const char* file_name = "kbx.lock";

  /// Takes the lock of `folder` (creating the folder if needed) without waiting and writes this
  /// process's pid and `argv` into the lock file. Throws Error(busy) naming the folder and the
  /// holder's pid and command when another open file description holds it (another process, or
  /// another FolderLock in this one); Error(io) when the lock file cannot be created or locked.
  static FolderLock acquire(const std::filesystem::path& folder,
                            const std::vector<std::string>& argv);

  /// The holder recorded in `folder`'s lock file; nullopt when the file is missing or empty.
  /// Reads only: it does not tell whether the lock is held now.
  static std::optional<LockHolder> recorded_holder(const std::filesystem::path& folder);

  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  /// Empties the lock file and releases the lock.
  ~FolderLock();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  FolderLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void release() noexcept;

  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace kbx
