// render_markdown_report: the headline tables of `kbx report` as Markdown, for papers.
#pragma once

#include <string>
#include <vector>

#include "kbx/report/compare.h"
#include "kbx/report/html_report.h"

namespace kbx::report {

/// GitHub-flavoured Markdown: one table per finding (runs; exe rate per category and method;
/// iterations; failure taxonomy; across devices; best known when `options.best_known` is set)
/// and the unsolved tasks. Reads only the models.
std::string render_markdown_report(const std::vector<NamedRun>& runs, const std::string& generator,
                                   const HtmlOptions& options = {});

}  // namespace kbx::report
