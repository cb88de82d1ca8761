// FolderLock: flock(2) on <folder>/kbx.lock, with the holder's pid and command in the file.
#include "kbx/common/folder_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "kbx/common/error.h"
#include "kbx/common/strings.h"

namespace kbx {
namespace {

namespace fs = std::filesystem;

// A holder writes its name just after it locks and empties the file just before it unlocks; a
// refused try that finds no name (or a dead process's) waits this long, in steps, before it gives
// up on reading one.
constexpr int holder_name_tries = 20;
constexpr useconds_t holder_name_step_us = 50'000;

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (off_t at = 0;;) {
    ssize_t n = pread(fd, buf, sizeof(buf), at);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0 || text.size() > 65'536) {
      return text;
    }
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
}

/// "pid 1234\ncommand kbx eval ...\n"; nullopt without a complete pid line.
std::optional<LockHolder> parse_holder(std::string_view text) {
  std::optional<LockHolder> holder;
  while (!text.empty()) {
    auto nl = text.find('\n');
    if (nl == std::string_view::npos) {
      break;  // a line still being written
    }
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line.starts_with("pid ")) {
      int pid = 0;
      if (parse_int(line.substr(4), pid) && pid > 0) {
        holder = LockHolder{pid, ""};
      }
    } else if (line.starts_with("command ") && holder) {
      holder->command = std::string(line.substr(8));
    }
  }
  return holder;
}

Error busy_error(const fs::path& folder, const std::optional<LockHolder>& holder) {
  std::string who = holder ? fmt::format("pid {}: {}", holder->pid, holder->command)
                           : fmt::format("pid unknown: {} names none", FolderLock::file_name);
  return Error(ErrorKind::busy,
               "'{}' is in use by another kbx process ({}); wait for it to finish, or use another "
               "output folder (-o)",
               folder.string(), who);
}

void write_holder(int fd, const fs::path& path, const std::vector<std::string>& argv) {
  std::string command = fmt::format("{}", fmt::join(argv, " "));
  std::replace(command.begin(), command.end(), '\n', ' ');  // one line, whatever argv holds
  std::string text = fmt::format("pid {}\ncommand {}\n", getpid(), command);
  if (ftruncate(fd, 0) != 0) {
    throw sys_error("ftruncate", errno, path.string());
  }
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      throw sys_error("write", n < 0 ? errno : EIO, path.string());
    }
    done += static_cast<std::size_t>(n);
  }
}

/// Locks `fd` without waiting; false when another open file description holds the lock.
bool try_lock(int fd, const fs::path& path) {
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return false;
    }
    if (errno != EINTR) {
      int err = errno;
      throw Error(ErrorKind::io,
                  "cannot lock '{}': {} (its filesystem may not support locks; put the output "
                  "folder on a local disk)",
                  path.string(), std::strerror(err));
    }
  }
  return true;
}

}  // namespace

FolderLock FolderLock::acquire(const fs::path& folder, const std::vector<std::string>& argv) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    throw Error(ErrorKind::io, "cannot create the output folder '{}': {}", folder.string(),
                ec.message());
  }
  fs::path path = folder / file_name;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    throw sys_error("open", errno, path.string());
  }
  FolderLock lock(path, fd);  // closes `fd` if anything below throws
  for (int attempt = 1; !try_lock(fd, path); ++attempt) {
    auto holder = parse_holder(read_all(fd));
    if (holder && ::kill(holder->pid, 0) != 0 && errno == ESRCH) {
      holder.reset();  // a killed holder's record, not yet overwritten by the new holder
    }
    if (holder || attempt >= holder_name_tries) {
      lock.fd_ = -1;  // not ours: close without emptying the holder's file
      close(fd);
      throw busy_error(folder, holder);
    }
    usleep(holder_name_step_us);  // the holder is just starting or just leaving
  }
  write_holder(fd, path, argv);
  return lock;
}

std::optional<LockHolder> FolderLock::recorded_holder(const fs::path& folder) {
  int fd = open((folder / file_name).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    return std::nullopt;
  }
  auto holder = parse_holder(read_all(fd));
  close(fd);
  return holder;
}

FolderLock::FolderLock(FolderLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FolderLock::~FolderLock() { release(); }

void FolderLock::release() noexcept {
  if (fd_ < 0) {
    return;
  }
  (void)ftruncate(fd_, 0);  // the next reader finds no holder; the lock itself is what counts
  close(fd_);               // drops the flock (no other descriptor shares it: close-on-exec)
  fd_ = -1;
}

}  // namespace kbx
