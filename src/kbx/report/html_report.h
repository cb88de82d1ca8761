// render_html_report: one self-contained HTML page (inline CSS, JS and SVG) over one or more runs.
#pragma once

#include <string>
#include <vector>

#include "kbx/report/compare.h"

namespace kbx::report {

/// The page `kbx report` writes: each run's summary, pass rates per category, the timed tasks'
/// speedups with their 95% intervals (SVG), a sortable and filterable table with one line per task
/// (the submission metrics.json keeps) and a column group per run, and the failure reasons. No
/// network access: everything is inline. The script marks `#kbx-script-status` with
/// data-status="ok" once it has run (or "error: ..."), so a headless browser can check it.
/// `generator` names the tool in the footer ("kbx 0.1.0").
std::string render_html_report(const std::vector<NamedRun>& runs, const std::string& generator);

}  // namespace kbx::report
