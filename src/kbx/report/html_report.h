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
/// Then the analyses (html_analysis.h): a category x method heatmap of pass rates, speedup and
/// GB/s distributions per category, iterations, cross-device spread, the failure taxonomy, and a
/// diagnostics block per task that the task table's rows link to. Each plot's data downloads as
/// CSV (a data: URI). `generator` names the tool in the footer ("kbx 0.1.0").
struct HtmlOptions {
  /// A run of kbx's expert kernels (solutions/): the task table gets its speedup per task as a
  /// "Best known" column. Not owned; null for none.
  const NamedRun* best_known = nullptr;
};

std::string render_html_report(const std::vector<NamedRun>& runs, const std::string& generator,
                               const HtmlOptions& options = {});

}  // namespace kbx::report
