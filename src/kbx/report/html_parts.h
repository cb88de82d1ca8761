// Pieces shared by the HTML report's sections: escaping, CSV download links, anchors, colours.
#pragma once

#include <string>

namespace kbx::report::html {

/// Text safe inside an element or a quoted attribute.
std::string escape(const std::string& text);

/// A link that downloads `csv` as `file_name` from a data: URI (works offline, no script):
/// `<a class="csv" download="heatmap.csv" href="data:text/csv;charset=utf-8,...">CSV</a>`.
std::string csv_link(const std::string& file_name, const std::string& csv);

/// The id of a task's diagnostics block: "diag-" + the key with every character outside
/// [A-Za-z0-9_-] as '-', unique per task key (a hash suffix when characters were replaced).
std::string task_anchor(const std::string& task_key);

/// A fill for a pass rate in [0, 1], red (0) through amber to green (1).
std::string rate_colour(double rate);

}  // namespace kbx::report::html
