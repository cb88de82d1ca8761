// Reading KernelBench-X submissions: JSONL predictions, single .py files, folders of them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/suite/suite.h"

namespace kbx::submit {

/// One submission, resolved to a task.
struct Submission {
  std::string task_key;  ///< "Math/softmax.py"
  std::string code;      ///< what runs: fences stripped, cut at the line of 146 '#'
  std::string origin;    ///< "preds.jsonl:12" or the file path
  /// Where in the source it sits, independent of how the source was named on the command line:
  /// "line 12" (JSONL), the path relative to the folder, or the file name. Part of its identity,
  /// so fixing a bad line or adding a file does not change the identity of the others.
  std::string slot;
  int ordinal = 0;       ///< position in the source (report order)
};

/// A problem with one item of the source; the other items are still evaluated.
struct InputProblem {
  std::string origin;
  std::string message;
};

struct SourceContents {
  std::vector<Submission> submissions;
  std::vector<InputProblem> problems;
  /// Things worth saying that are not problems: tasks named by several submissions (each is
  /// evaluated and counted, as KernelBench-X counts every line).
  std::vector<std::string> notes;
};

/// The most bytes one submission may hold: a JSONL line, or a .py file. A larger one is an
/// InputProblem naming the limit (a kernel is a few kB; this keeps a hostile SOURCE from costing
/// memory and time in every later stage).
constexpr std::size_t max_submission_bytes = std::size_t{4} << 20;

/// The longest "file" value tried as a path (longer ones name no task).
constexpr std::size_t max_name_bytes = 4096;

/// At most this many tasks get a note about several submissions; one more note counts the rest.
constexpr std::size_t max_repeat_notes = 5;

/// Once a SOURCE has this many problems, unknown task names get no closest keys in their message
/// (each suggestion costs an edit distance to every key; 100,000 bad lines would take minutes).
constexpr std::size_t max_closest_suggestions = 100;

/// Reads SOURCE: a `.jsonl` file (one {"predict", "file" | "instruction"} object per line), a
/// `.py` file named after a task, or a folder searched recursively for such files.
/// Throws Error(input) only when SOURCE itself is unusable (missing, unreadable, wrong kind).
SourceContents read_source(const std::filesystem::path& source, const suite::Suite& suite);

/// Parses the text of a JSONL SOURCE named `name`: one submission or one problem per non-blank
/// line, in order, with origins "name:LINE". Pure (no I/O); any bytes are accepted.
SourceContents parse_jsonl(std::string_view text, std::string_view name, const suite::Suite& suite);

/// The code inside the first ```python (or ```py) fenced block, else the first unlabelled one,
/// else the first block in another language, or the text itself when it has no fence. An
/// unterminated fence runs to the end of the text.
std::string strip_fences(std::string_view text);

/// The code above the first run of 146 '#' (KernelBench-X's separator before its tests).
std::string cut_at_separator(std::string_view code);

/// The task an instruction names: a "Category/stem.py" key if present, else the unique task
/// whose entry name appears as `def name(` or as a whole word. nullopt when none or ambiguous.
std::optional<std::string> task_from_instruction(std::string_view instruction,
                                                 const suite::Suite& suite);

/// The task a .py path names: "<dir>/<Category>/<stem>.py" -> that key if it exists, else the
/// unique task with that stem or entry name.
std::optional<std::string> task_from_path(const std::filesystem::path& path,
                                          const suite::Suite& suite);

}  // namespace kbx::submit
