// Pieces shared by the HTML report's sections.
#include "kbx/report/html_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kbx::report::html {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string csv_link(const std::string& file_name, const std::string& csv) {
  std::string uri = "data:text/csv;charset=utf-8,";
  for (unsigned char c : csv) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return fmt::format("<a class=\"csv\" download=\"{}\" href=\"{}\">CSV</a>", escape(file_name),
                     uri);
}

std::string task_anchor(const std::string& task_key) {
  std::string id = "diag-";
  bool replaced = false;
  for (char c : task_key) {
    bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    id += keep ? c : '-';
    replaced = replaced || (!keep && c != '/' && c != '.');
  }
  if (replaced) {  // FNV-1a of the key keeps ids of keys that differ in replaced characters apart
    std::uint32_t h = 2166136261U;
    for (unsigned char c : task_key) {
      h = (h ^ c) * 16777619U;
    }
    id += fmt::format("-{:08x}", h);
  }
  return id;
}

std::string rate_colour(double rate) {
  double r = std::clamp(rate, 0.0, 1.0);
  return fmt::format("hsl({:.0f}, 70%, {:.0f}%)", 120.0 * r, 88.0 - 20.0 * r);
}

}  // namespace kbx::report::html
