// The HTML report's analysis sections: pass-rate heatmap, speedup and utilisation distributions,
// iterations, cross-device spread, failure taxonomy and per-task diagnostics.
#pragma once

#include <string>
#include <vector>

#include "kbx/report/compare.h"

namespace kbx::report::html {

/// Category x method heatmap of exe pass rates (SVG), with its CSV.
std::string heatmap_section(const std::vector<NamedRun>& runs);

/// Per category, every correct timed submission's speedup on a log scale, with the median (SVG).
std::string speedup_distribution_section(const std::vector<NamedRun>& runs);

/// Per category, the achieved GB/s of correct timed submissions on a log scale (SVG box plots).
std::string utilisation_section(const std::vector<NamedRun>& runs);

/// Per method with rounds: the exe rate per round and solved-so-far (SVG), transitions and rescued
/// against persistently correct kernels (tables).
std::string iterations_section(const std::vector<NamedRun>& runs);

/// Per configuration on several devices: each task's speedup spread (max/min, SVG) and the tasks
/// whose verdict changed.
std::string cross_device_section(const std::vector<NamedRun>& runs);

/// Failures by family (SVG bars) and kind (a sortable table with counts per method).
std::string taxonomy_section(const std::vector<NamedRun>& runs);

/// One block per task (id task_anchor(key)): each run's submissions with outcome, reason,
/// detail, labels and per-workload timings.
std::string diagnostics_section(const std::vector<NamedRun>& runs);

}  // namespace kbx::report::html
