// Suite: every task under a suite root, loaded from data without starting Python.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/result.h"
#include "kbx/suite/task.h"

namespace kbx::suite {

/// A loaded suite. Tasks are sorted by key. Tasks that failed to load are listed in `errors`
/// and left out; the rest stay usable.
struct Suite {
  std::filesystem::path root;
  std::vector<Task> tasks;
  std::vector<Error> errors;

  /// The task with this key ("Math/softmax.py"), or nullptr.
  [[nodiscard]] const Task* find(std::string_view key) const;
  /// The task whose entry or stem is `name` when exactly one task has it, else nullptr.
  [[nodiscard]] const Task* find_by_name(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> keys() const;
  /// Up to `limit` keys closest to `key` (by edit distance on the key and on its stem).
  [[nodiscard]] std::vector<std::string> closest_keys(std::string_view key, std::size_t limit) const;
  /// Error text for an unknown key, naming the closest keys: "unknown task 'Math/sofmax.py';
  /// closest: Math/softmax.py, ...". Without `with_closest` (they cost an edit distance to every
  /// key), or for a key longer than any could be, it names none.
  [[nodiscard]] std::string unknown_key_message(std::string_view key,
                                                bool with_closest = true) const;
};

/// Loads one task folder; `key` is the key its location implies.
Result<Task> load_task(const std::filesystem::path& dir, const std::string& key);

/// Parses and validates the text of `dir`/task.json without reading any file: the task with its
/// cases and workloads resolved, `version` left empty (load_task sets it). Any bytes are accepted;
/// errors (kind suite) name the file and the field.
Result<Task> parse_task_json(std::string_view text, const std::filesystem::path& dir,
                             const std::string& key);

/// Loads every `<Category>/<stem>/task.json` under root. Throws Error(suite) if root is not a
/// readable folder.
Suite load_suite(const std::filesystem::path& root);

}  // namespace kbx::suite
