// File helpers: whole-file reads, tails of logs, and atomic writes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kbx {

/// The whole file; throws Error(io) naming the path if it cannot be read.
std::string read_file(const std::filesystem::path& path);

/// The last `max_bytes` of a file, starting at a line boundary ("..." marks a cut);
/// empty if the file is missing.
std::string read_file_tail(const std::filesystem::path& path, std::size_t max_bytes);

/// Writes `content` to a temporary file beside `path`, then renames it over `path`, so readers
/// never see a half-written file. Throws Error(io).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);
/// The same with the content given in pieces, written one after the other (no joined copy).
void write_file_atomic(const std::filesystem::path& path, const std::vector<std::string_view>& pieces);

}  // namespace kbx
