// Reading submissions (docs/cli.md, "SOURCE").
#include "kbx/submit/source.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "kbx/common/error.h"
#include "kbx/common/files.h"
#include "kbx/common/json.h"
#include "kbx/common/result.h"
#include "kbx/common/strings.h"

namespace kbx::submit {
namespace {

namespace fs = std::filesystem;

const std::string separator(146, '#');

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool contains_word(std::string_view text, std::string_view word) {
  if (word.empty()) {  // a task with an empty entry name: find("") would never advance
    return false;
  }
  std::size_t pos = 0;
  while ((pos = text.find(word, pos)) != std::string_view::npos) {
    bool left = pos == 0 || !is_word_char(text[pos - 1]);
    bool right = pos + word.size() >= text.size() || !is_word_char(text[pos + word.size()]);
    if (left && right) {
      return true;
    }
    pos += word.size();
  }
  return false;
}

/// A fence opener: "```", optional blanks, a language word, the rest of its line.
struct Fence {
  std::string lang;        ///< lower case; empty for an unlabelled fence
  std::size_t body_start;  ///< just after the opener's newline
};

bool is_lang_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '+' || c == '-';
}

/// The first fence opener at or after `from`. An opener needs a newline after it. Linear in the
/// text: a hostile submission can be megabytes long (std::regex overflowed the stack on those).
std::optional<Fence> next_fence(std::string_view text, std::size_t from) {
  std::size_t at = text.find("```", from);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t newline = text.find('\n', at + 3);
  if (newline == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t i = at + 3;
  while (i < newline && (text[i] == ' ' || text[i] == '\t')) {
    ++i;
  }
  Fence fence{"", newline + 1};
  for (; i < newline && is_lang_char(text[i]); ++i) {
    fence.lang += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  return fence;
}

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

/// The first "Category/stem.py" in `text` (letters, then letters, digits and '_') that is a key
/// of the suite. Linear in the text.
std::optional<std::string> first_suite_key(std::string_view text, const suite::Suite& suite) {
  std::size_t floor = 0;  // a key starts after the end of the previous one
  for (std::size_t slash = text.find('/'); slash != std::string_view::npos;
       slash = text.find('/', slash + 1)) {
    std::size_t begin = slash;
    while (begin > floor && is_letter(text[begin - 1])) {
      --begin;
    }
    std::size_t end = slash + 1;
    while (end < text.size() && is_word_char(text[end])) {
      ++end;
    }
    if (begin == slash || end == slash + 1 || text.substr(end, 3) != ".py") {
      continue;
    }
    std::string_view key = text.substr(begin, end + 3 - begin);
    if (suite.find(key) != nullptr) {
      return std::string(key);
    }
    floor = end + 3;
  }
  return std::nullopt;
}

std::string prepare_code(std::string_view raw) { return cut_at_separator(strip_fences(raw)); }

/// "a number", "an array", ...: a JSON value's type, for messages.
std::string_view type_phrase(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::binary:
      return "binary";
    default:
      return "a number";
  }
}

/// ` (its keys: "a", "b")`: what a line holds instead, so a misspelt key is easy to spot.
std::string keys_phrase(const Json& j) {
  if (!j.is_object()) {
    return fmt::format(" (the line is {}, not an object)", type_phrase(j));
  }
  if (j.contains("predict")) {
    return fmt::format(" (\"predict\" is {})", type_phrase(j["predict"]));
  }
  std::string keys;
  std::size_t listed = 0;
  for (const auto& [key, value] : j.items()) {
    if (listed++ == 5) {
      keys += ", ...";
      break;
    }
    keys += fmt::format("{}\"{}\"", keys.empty() ? "" : ", ", printable(key, 40));
  }
  return keys.empty() ? " (the object is empty)" : fmt::format(" (its keys: {})", keys);
}

/// "holds 52428800 bytes, over kbx's limit of 4 MiB for one submission (...)".
std::string too_large(std::uintmax_t bytes) {
  return fmt::format(
      "holds {} bytes, over kbx's limit of {} MiB for one submission (a kernel is "
      "a few kB of code)",
      bytes, max_submission_bytes >> 20);
}

/// The first problem that keeps `line` from being read as JSON at all, if any.
std::optional<std::string> unreadable_line(std::string_view line, int line_no) {
  if (line.size() > max_submission_bytes) {
    return fmt::format("line {} {}; shorten or remove that line, the other lines are evaluated",
                       line_no, too_large(line.size()));
  }
  if (std::size_t valid = utf8_valid_prefix(line); valid < line.size()) {
    return fmt::format(
        "line {} is not UTF-8 text (byte 0x{:02x} at column {}); JSONL is UTF-8: "
        "re-encode or remove that line, the other lines are evaluated",
        line_no, static_cast<unsigned char>(line[valid]), valid + 1);
  }
  auto control = std::find_if(line.begin(), line.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r';
  });
  if (control != line.end()) {  // JSON allows none, not even inside strings: binary data
    return fmt::format(
        "line {} holds the control byte 0x{:02x} at column {}, which JSON text never "
        "does (binary data?); fix or remove that line, the other lines are evaluated",
        line_no, static_cast<unsigned char>(*control), control - line.begin() + 1);
  }
  return std::nullopt;
}

/// The task a line names by "file" (or "instruction"), or the problem that says why none.
Result<std::string> task_of_line(const Json& j, int line_no, const suite::Suite& suite,
                                 bool suggest) {
  auto problem = [](std::string text) { return Error(ErrorKind::input, std::move(text)); };
  if (j.contains("file") && j["file"].is_string()) {
    const auto& file = j["file"].get_ref<const std::string&>();
    if (suite.find(file) != nullptr) {
      return file;
    }
    if (file.size() <= max_name_bytes) {
      if (auto by_path = task_from_path(file, suite)) {
        return *by_path;
      }
    }
    return problem(fmt::format("line {}: {}", line_no, suite.unknown_key_message(file, suggest)));
  }
  if (j.contains("instruction") && j["instruction"].is_string()) {
    if (auto key = task_from_instruction(j["instruction"].get_ref<const std::string&>(), suite)) {
      return *key;
    }
    return problem(
        fmt::format("line {}: its \"instruction\" names no single task; add \"file\": "
                    "\"Category/task.py\"",
                    line_no));
  }
  if (j.contains("file") && !j["file"].is_null()) {
    return problem(
        fmt::format("line {}: \"file\" must be a string naming the task "
                    "(\"Category/task.py\"), not {}",
                    line_no, type_phrase(j["file"])));
  }
  return problem(
      fmt::format("line {} has neither \"file\" nor \"instruction\" to name its task", line_no));
}

/// One line of a JSONL SOURCE: a submission or a problem appended to `out`.
void parse_jsonl_line(std::string_view line, int line_no, std::string_view name,
                      const suite::Suite& suite, SourceContents& out) {
  std::string origin = fmt::format("{}:{}", name, line_no);
  if (auto problem = unreadable_line(line, line_no)) {
    out.problems.push_back({origin, std::move(*problem)});
    return;
  }
  auto parsed = parse_untrusted_json(line);
  if (!parsed) {
    out.problems.push_back({origin, fmt::format("line {} is not valid JSON ({}); fix or remove "
                                                "that line, the other lines are evaluated",
                                                line_no, parsed.error().what())});
    return;
  }
  Json j = std::move(parsed).value();
  if (!j.is_object() || !j.contains("predict") || !j["predict"].is_string()) {
    out.problems.push_back({origin, fmt::format("line {} has no \"predict\" string{}; each line "
                                                "needs {{\"predict\": code, \"file\": "
                                                "\"Category/task.py\"}}",
                                                line_no, keys_phrase(j))});
    return;
  }
  auto task = task_of_line(j, line_no, suite, out.problems.size() < max_closest_suggestions);
  if (!task) {
    out.problems.push_back({origin, task.error().what()});
    return;
  }
  out.submissions.push_back(
      {std::move(task).value(), prepare_code(j["predict"].get_ref<const std::string&>()), origin,
       fmt::format("line {}", line_no), static_cast<int>(out.submissions.size())});
}

/// Notes for tasks named by more than one submission: each is evaluated and counted on its own.
std::vector<std::string> repeated_task_notes(const std::vector<Submission>& submissions) {
  std::map<std::string, std::vector<std::string>> origins;
  std::vector<std::string> order;
  for (const auto& s : submissions) {
    auto& list = origins[s.task_key];
    if (list.empty()) {
      order.push_back(s.task_key);
    }
    list.push_back(s.origin);
  }
  std::vector<std::string> notes;
  std::size_t repeated = 0;
  for (const auto& key : order) {
    const auto& list = origins[key];
    if (list.size() < 2 || ++repeated > max_repeat_notes) {
      continue;
    }
    auto shown_count = static_cast<std::ptrdiff_t>(std::min<std::size_t>(4, list.size()));
    std::vector<std::string> shown(list.begin(), list.begin() + shown_count);
    notes.push_back(fmt::format(
        "{} has {} submissions ({}{}); each is evaluated and counted on its "
        "own, as KernelBench-X counts every line",
        key, list.size(), fmt::join(shown, ", "), list.size() > shown.size() ? ", ..." : ""));
  }
  if (repeated > max_repeat_notes) {
    notes.push_back(
        fmt::format("... and {} more tasks with several submissions", repeated - max_repeat_notes));
  }
  return notes;
}

std::string read_source_file(const fs::path& path) {
  try {
    return read_file(path);
  } catch (const Error& e) {
    throw Error(ErrorKind::input, "{}", e.what());
  }
}

/// Why a .py file's bytes are not a submission's code (not UTF-8), if they are not.
std::optional<std::string> not_utf8_py(const fs::path& path, std::string_view code) {
  std::size_t valid = utf8_valid_prefix(code);
  if (valid == code.size()) {
    return std::nullopt;
  }
  std::size_t line_start = valid == 0 ? std::string_view::npos : code.rfind('\n', valid - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  auto line = 1 + std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(valid), '\n');
  return fmt::format(
      "the file is not UTF-8 text (byte 0x{:02x} at line {}, column {}); Python "
      "reads source files as UTF-8: save {} as UTF-8",
      static_cast<unsigned char>(code[valid]), line, valid - line_start + 1,
      path.filename().string());
}

void read_py(const fs::path& path, const std::string& slot, const suite::Suite& suite,
             SourceContents& out) {
  auto key = task_from_path(path, suite);
  if (!key) {
    out.problems.push_back(
        {path.string(), suite.unknown_key_message(path.filename().string(),
                                                  out.problems.size() < max_closest_suggestions)});
    return;
  }
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (!ec && size > max_submission_bytes) {
    out.problems.push_back({path.string(), "the file " + too_large(size)});
    return;
  }
  std::string code = read_file(path);
  if (auto problem = not_utf8_py(path, code)) {
    out.problems.push_back({path.string(), std::move(*problem)});
    return;
  }
  out.submissions.push_back(
      {*key, prepare_code(code), path.string(), slot, static_cast<int>(out.submissions.size())});
}

}  // namespace

std::string strip_fences(std::string_view text) {
  std::optional<std::string_view> first_unlabelled;
  std::optional<std::string_view>
      first_other;  // ```bash and the like: only if nothing else is fenced
  std::size_t from = 0;
  while (auto fence = next_fence(text, from)) {
    std::string_view rest = text.substr(fence->body_start);
    std::size_t close = rest.find("```");
    std::string_view body = rest.substr(0, close);
    if (fence->lang == "python" || fence->lang == "py" || fence->lang == "python3") {
      return std::string(body);
    }
    auto& slot = fence->lang.empty() ? first_unlabelled : first_other;
    if (!slot) {
      slot = body;
    }
    if (close == std::string_view::npos) {
      break;
    }
    from = fence->body_start + close + 3;
  }
  return std::string(first_unlabelled ? *first_unlabelled : first_other ? *first_other : text);
}

std::string cut_at_separator(std::string_view code) {
  auto pos = code.find(separator);
  return std::string(pos == std::string_view::npos ? code : code.substr(0, pos));
}

std::optional<std::string> task_from_instruction(std::string_view instruction,
                                                 const suite::Suite& suite) {
  if (auto key = first_suite_key(instruction, suite)) {
    return key;
  }
  std::string_view s = instruction;
  std::set<std::string> by_def;
  std::set<std::string> by_word;
  for (const auto& t : suite.tasks) {
    for (const auto& name : {t.entry, t.stem()}) {
      if (s.find("def " + name + "(") != std::string_view::npos) {
        by_def.insert(t.key);
      }
      if (contains_word(s, name)) {
        by_word.insert(t.key);
      }
    }
  }
  if (by_def.size() == 1) {
    return *by_def.begin();
  }
  if (by_def.empty() && by_word.size() == 1) {
    return *by_word.begin();
  }
  return std::nullopt;
}

std::optional<std::string> task_from_path(const fs::path& path, const suite::Suite& suite) {
  std::string stem = path.stem().string();
  std::string category = path.parent_path().filename().string();
  std::string key = fmt::format("{}/{}.py", category, stem);
  if (suite.find(key) != nullptr) {
    return key;
  }
  if (const auto* t = suite.find_by_name(stem)) {
    return t->key;
  }
  return std::nullopt;
}

SourceContents parse_jsonl(std::string_view text, std::string_view name, const suite::Suite& suite) {
  SourceContents out;
  int line_no = 0;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_no;
    if (!trim(line).empty()) {
      parse_jsonl_line(line, line_no, name, suite, out);
    }
  }
  out.notes = repeated_task_notes(out.submissions);
  return out;
}

SourceContents read_source(const fs::path& source, const suite::Suite& suite) {
  std::error_code ec;
  auto status = fs::status(source, ec);
  if (ec || !fs::exists(status)) {
    throw Error(ErrorKind::input, "SOURCE '{}' does not exist; pass a .jsonl file, a .py file or "
                                  "a folder of .py files",
                source.string());
  }
  SourceContents out;
  if (fs::is_directory(status)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(source)) {
      if (entry.is_regular_file() && entry.path().extension() == ".py") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      read_py(f, fs::relative(f, source).generic_string(), suite, out);
    }
    out.notes = repeated_task_notes(out.submissions);
    if (files.empty()) {
      throw Error(ErrorKind::input, "folder '{}' holds no .py submissions", source.string());
    }
  } else if (source.extension() == ".py") {
    read_py(source, source.filename().string(), suite, out);
  } else if (source.extension() == ".jsonl" || source.extension() == ".json") {
    out = parse_jsonl(read_source_file(source), source.string(), suite);
  } else {
    throw Error(ErrorKind::input, "SOURCE '{}' is neither a .jsonl file, a .py file nor a folder",
                source.string());
  }
  return out;
}

}  // namespace kbx::submit
