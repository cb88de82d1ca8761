// File helpers.
#include "kbx/common/files.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "kbx/common/error.h"

namespace kbx {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {  // a folder opens, then reads as empty
    throw Error(ErrorKind::io, "cannot read '{}'", path.string());
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_file_tail(const std::filesystem::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {  // a folder "opens" with a huge size
    return {};
  }
  auto size = static_cast<std::size_t>(in.tellg());
  std::size_t start = size > max_bytes ? size - max_bytes : 0;
  // Read the byte before the cut too: if it ends a line, the tail starts with a whole line.
  std::size_t from = start > 0 ? start - 1 : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string text(size - from, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    auto nl = text.find('\n');
    text = "..." + (nl == std::string::npos ? text.substr(1) : text.substr(nl));
  }
  return text;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  write_file_atomic(path, std::vector<std::string_view>{content});
}

void write_file_atomic(const std::filesystem::path& path, const std::vector<std::string_view>& pieces) {
  auto tmp = path;
  static std::atomic<unsigned> counter{0};
  tmp += fmt::format(".tmp.{}.{}", getpid(), counter.fetch_add(1));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw Error(ErrorKind::io, "cannot write '{}'", tmp.string());
    }
    for (auto piece : pieces) {
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    }
    out.flush();
    if (!out) {
      throw Error(ErrorKind::io, "cannot write '{}' (disk full?)", tmp.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    throw Error(ErrorKind::io, "cannot replace '{}': {}", path.string(), ec.message());
  }
}

}  // namespace kbx
