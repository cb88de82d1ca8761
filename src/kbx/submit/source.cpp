// Reading submissions (docs/cli.md, "SOURCE").
#include "kbx/submit/source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "kbx/common/error.h"
#include "kbx/common/files.h"
#include "kbx/common/json.h"
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

std::string prepare_code(std::string_view raw) { return cut_at_separator(strip_fences(raw)); }

/// One line of a JSONL SOURCE: a submission or a problem appended to `out`.
void parse_jsonl_line(std::string_view line, int line_no, std::string_view name,
                      const suite::Suite& suite, SourceContents& out) {
  std::string origin = fmt::format("{}:{}", name, line_no);
  Json j;
  try {
    j = Json::parse(line);
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
    out.problems.push_back({origin, fmt::format("line {} is not valid JSON ({}); fix or remove "
                                                "that line, the other lines are evaluated",
                                                line_no, e.what())});
    return;
  }
  if (!j.is_object() || !j.contains("predict") || !j["predict"].is_string()) {
    out.problems.push_back({origin, fmt::format("line {} has no \"predict\" string; each line "
                                                "needs {{\"predict\": code, \"file\": "
                                                "\"Category/task.py\"}}",
                                                line_no)});
    return;
  }
  std::optional<std::string> key;
  if (j.contains("file") && j["file"].is_string()) {
    std::string file = j["file"].get<std::string>();
    if (suite.find(file) != nullptr) {
      key = file;
    } else if (auto by_path = task_from_path(file, suite)) {
      key = by_path;
    } else {
      out.problems.push_back(
          {origin, fmt::format("line {}: {}", line_no, suite.unknown_key_message(file))});
      return;
    }
  } else if (j.contains("instruction") && j["instruction"].is_string()) {
    key = task_from_instruction(j["instruction"].get<std::string>(), suite);
    if (!key) {
      out.problems.push_back({origin, fmt::format("line {}: its \"instruction\" names no single "
                                                  "task; add \"file\": \"Category/task.py\"",
                                                  line_no)});
      return;
    }
  } else {
    out.problems.push_back({origin, fmt::format("line {} has neither \"file\" nor "
                                                "\"instruction\" to name its task",
                                                line_no)});
    return;
  }
  out.submissions.push_back({*key, prepare_code(j["predict"].get<std::string>()), origin,
                             fmt::format("line {}", line_no),
                             static_cast<int>(out.submissions.size())});
}

std::string read_source_file(const fs::path& path) {
  try {
    return read_file(path);
  } catch (const Error& e) {
    throw Error(ErrorKind::input, "{}", e.what());
  }
}

void read_py(const fs::path& path, const std::string& slot, const suite::Suite& suite,
             SourceContents& out) {
  auto key = task_from_path(path, suite);
  if (!key) {
    out.problems.push_back({path.string(), suite.unknown_key_message(path.filename().string())});
    return;
  }
  out.submissions.push_back({*key, prepare_code(read_file(path)), path.string(), slot,
                             static_cast<int>(out.submissions.size())});
}

}  // namespace

std::string strip_fences(std::string_view text) {
  static const std::regex fence(R"(```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n)");
  std::string s(text);
  std::smatch m;
  std::optional<std::string> first_unlabelled;
  std::optional<std::string> first_other;  // ```bash and the like: only if nothing else is fenced
  auto begin = s.cbegin();
  while (std::regex_search(begin, s.cend(), m, fence)) {
    std::string lang = m[1].str();
    std::transform(lang.begin(), lang.end(), lang.begin(), ::tolower);
    auto body_start = m[0].second;
    std::string rest(body_start, s.cend());
    auto close = rest.find("```");
    std::string body = close == std::string::npos ? rest : rest.substr(0, close);
    if (lang == "python" || lang == "py" || lang == "python3") {
      return body;
    }
    auto& slot = lang.empty() ? first_unlabelled : first_other;
    if (!slot) {
      slot = body;
    }
    if (close == std::string::npos) {
      break;
    }
    begin = body_start + static_cast<std::ptrdiff_t>(close + 3);
  }
  return first_unlabelled ? *first_unlabelled : first_other ? *first_other : s;
}

std::string cut_at_separator(std::string_view code) {
  auto pos = code.find(separator);
  return std::string(pos == std::string_view::npos ? code : code.substr(0, pos));
}

std::optional<std::string> task_from_instruction(std::string_view instruction,
                                                 const suite::Suite& suite) {
  static const std::regex key_re(R"(([A-Za-z]+)/([A-Za-z0-9_]+)\.py)");
  std::string s(instruction);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), key_re); it != std::sregex_iterator(); ++it) {
    if (suite.find((*it)[0].str()) != nullptr) {
      return (*it)[0].str();
    }
  }
  std::set<std::string> by_def;
  std::set<std::string> by_word;
  for (const auto& t : suite.tasks) {
    for (const auto& name : {t.entry, t.stem()}) {
      if (s.find("def " + name + "(") != std::string::npos) {
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
