// Code extraction from model answers.
#include "kbx/gen/extract.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "kbx/common/strings.h"

namespace kbx::gen {
namespace {

struct Block {
  std::string label;  ///< lower case, first word of the info string
  std::string body;
};

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {  // a final newline ends the last line; it starts none
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string_view strip_cr(std::string_view line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

/// A fence opener: optional indentation of up to 3 spaces, then ``` or ~~~ (3 or more).
bool fence_at(std::string_view line, std::string& marker, std::string& info) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') {
    ++i;
  }
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) {
    return false;
  }
  char c = line[i];
  std::size_t j = i;
  while (j < line.size() && line[j] == c) {
    ++j;
  }
  if (j - i < 3) {
    return false;
  }
  marker = std::string(line.substr(i, j - i));
  info = std::string(trim(line.substr(j)));
  return true;
}

std::vector<Block> fenced_blocks(std::string_view text) {
  std::vector<Block> blocks;
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string marker;
    std::string info;
    if (!fence_at(strip_cr(lines[i]), marker, info)) {
      continue;
    }
    Block b;
    auto space = info.find_first_of(" \t{");
    b.label = info.substr(0, space);
    std::transform(b.label.begin(), b.label.end(), b.label.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    std::size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::string_view l = trim(strip_cr(lines[j]));
      if (l.size() >= marker.size() && l.substr(0, marker.size()) == marker &&
          l.find_first_not_of(marker[0]) == std::string_view::npos) {
        break;
      }
      b.body.append(strip_cr(lines[j]));
      b.body += '\n';
    }
    blocks.push_back(std::move(b));
    i = j;
  }
  return blocks;
}

bool is_python_label(const std::string& label) {
  return label.empty() || label == "python" || label == "py" || label == "python3" ||
         label == "triton";
}

bool defines_entry(std::string_view code, std::string_view entry) {
  return !entry.empty() && code.find(fmt::format("def {}(", entry)) != std::string_view::npos;
}

bool has_line_starting(std::string_view code, std::string_view prefix) {
  for (auto line : lines_of(code)) {
    if (line.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

bool defines_something(std::string_view code) {
  return has_line_starting(code, "def ") || code.find("\ndef ") != std::string_view::npos ||
         code.find("    def ") != std::string_view::npos;
}

/// Whether unfenced text reads as Python, and where its code starts.
std::optional<std::size_t> code_start(std::string_view text) {
  std::size_t offset = 0;
  for (auto line : lines_of(text)) {
    for (std::string_view p : {"import ", "from ", "def ", "@triton"}) {
      if (line.substr(0, p.size()) == p) {
        return offset;
      }
    }
    offset += line.size() + 1;
  }
  return std::nullopt;
}

std::string cut_at_separator(std::string_view code) {
  const std::string separator(146, '#');
  std::size_t offset = 0;
  for (auto line : lines_of(code)) {
    if (trim(strip_cr(line)).substr(0, 146) == separator) {
      return std::string(code.substr(0, offset));
    }
    offset += line.size() + 1;
  }
  return std::string(code);
}

std::string pick_from_blocks(const std::vector<Block>& python, std::string_view entry,
                             std::string& detail) {
  if (python.size() == 1) {
    detail = "one code block";
    return python[0].body;
  }
  std::vector<const Block*> complete;
  for (const auto& b : python) {
    if (defines_entry(b.body, entry) && b.body.find("triton") != std::string::npos) {
      complete.push_back(&b);
    }
  }
  if (complete.size() == 1) {
    detail = fmt::format("the block of {} that defines '{}' with Triton", python.size(), entry);
    return complete[0]->body;
  }
  if (complete.size() > 1) {
    detail =
        fmt::format("the last of {} blocks that define '{}' with Triton", complete.size(), entry);
    return complete.back()->body;
  }
  std::string joined;
  int used = 0;
  for (const auto& b : python) {
    if (!defines_something(b.body) && !has_line_starting(b.body, "import ") &&
        !has_line_starting(b.body, "from ")) {
      continue;  // a usage example or a fragment
    }
    joined += b.body;
    joined += '\n';
    ++used;
  }
  detail = fmt::format("{} of {} code blocks joined", used, python.size());
  return joined;
}

}  // namespace

std::string_view to_string(ExtractStatus status) {
  return status == ExtractStatus::code ? "code" : "no_code";
}

Extraction extract_code(std::string_view answer, std::string_view entry) {
  Extraction out;
  if (trim(answer).empty()) {
    out.detail = "the answer is empty";
    return out;
  }
  auto blocks = fenced_blocks(answer);
  std::vector<Block> python;
  for (auto& b : blocks) {
    if (is_python_label(b.label) && !trim(b.body).empty()) {
      python.push_back(std::move(b));
    }
  }
  std::string code;
  if (!python.empty()) {
    code = pick_from_blocks(python, entry, out.detail);
  } else if (!blocks.empty()) {
    out.detail =
        fmt::format("the answer's {} code block{} hold{} no Python (labelled '{}')", blocks.size(),
                    blocks.size() == 1 ? "" : "s", blocks.size() == 1 ? "s" : "", blocks[0].label);
    return out;
  } else if (auto start = code_start(answer)) {
    code = std::string(answer.substr(*start));
    out.detail = *start == 0 ? "unfenced code" : "unfenced code after prose";
  } else {
    out.detail = "the answer holds no code block and no Python";
    return out;
  }
  code = cut_at_separator(code);
  if (!defines_something(code)) {
    out.detail = fmt::format("the code ({}) defines no function", out.detail);
    return out;
  }
  out.status = ExtractStatus::code;
  out.code = std::move(code);
  return out;
}

}  // namespace kbx::gen
