// Comparing runs: a join by task key, spreads of speedups and changed verdicts.
#include "kbx/report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace kbx::report {
namespace {

std::optional<double> quantile(std::vector<double> values, double q) {
  if (values.empty()) {
    return std::nullopt;
  }
  std::sort(values.begin(), values.end());
  // Nearest rank, so the figure is one of the tasks' own spreads.
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

std::string speedup_text(const std::optional<TaskInRun>& t) {
  if (!t) {
    return "-";
  }
  if (t->speedup) {
    return fmt::format("{:.3f}x {}", *t->speedup, stats::to_string(t->verdict));
  }
  return t->outcome == "ok" ? "ok" : t->outcome;
}

}  // namespace

Comparison compare_runs(const std::vector<NamedRun>& runs) {
  Comparison c;
  std::map<std::string, CompareRow> by_task;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    c.runs.push_back(runs[r].name);
    c.devices.push_back(runs[r].model.device);
    c.labels.push_back(runs[r].model.labels);
    for (const auto& row : runs[r].model.rows) {
      auto& cr = by_task[row.file];
      cr.task = row.file;
      cr.runs.resize(runs.size());
      auto& slot = cr.runs[r];
      if (slot) {
        ++slot->submissions;
        continue;
      }
      TaskInRun t;
      t.outcome = row.outcome;
      t.submissions = 1;
      if (row.perf_ok && row.speedup > 0 && std::isfinite(row.speedup)) {
        t.speedup = row.speedup;
      }
      t.verdict = row.speedup_verdict;
      slot = t;
    }
  }
  std::vector<double> spreads;
  for (auto& [key, row] : by_task) {
    row.runs.resize(runs.size());
    std::vector<double> speedups;
    std::vector<std::string> outcomes;
    std::vector<stats::SpeedupVerdict> verdicts;
    bool all = true;
    for (const auto& t : row.runs) {
      if (!t) {
        all = false;
        continue;
      }
      if (t->outcome != "pending") {
        outcomes.push_back(t->outcome);
      }
      if (t->speedup) {
        speedups.push_back(*t->speedup);
      }
      if (t->verdict != stats::SpeedupVerdict::none) {
        verdicts.push_back(t->verdict);
      }
    }
    c.in_all += all ? 1 : 0;
    c.timed_in_all += all && speedups.size() == row.runs.size() ? 1 : 0;
    row.outcome_changed = std::adjacent_find(outcomes.begin(), outcomes.end(),
                                             std::not_equal_to<>()) != outcomes.end();
    if (speedups.size() >= 2) {
      auto [lo, hi] = std::minmax_element(speedups.begin(), speedups.end());
      row.spread = *hi / *lo;
      row.side_changed = *lo <= 1.0 && *hi > 1.0;
      spreads.push_back(*row.spread);
    }
    row.verdict_changed = std::adjacent_find(verdicts.begin(), verdicts.end(),
                                             std::not_equal_to<>()) != verdicts.end();
    c.outcome_changes += row.outcome_changed ? 1 : 0;
    c.verdict_changes += row.verdict_changed ? 1 : 0;
    c.side_changes += row.side_changed ? 1 : 0;
    c.rows.push_back(std::move(row));
  }
  c.median_spread = quantile(spreads, 0.5);
  c.p95_spread = quantile(spreads, 0.95);
  return c;
}

std::vector<DeviceComparison> compare_devices(const std::vector<NamedRun>& runs) {
  std::map<std::string, std::vector<const NamedRun*>> groups;
  for (const auto& run : runs) {
    auto labels = run.model.labels;
    for (const char* key : {"gpu", "device", "machine"}) {
      labels.erase(key);
    }
    if (labels.count("method") == 0 && !run.model.rows.empty()) {
      if (auto m = run.model.rows.front().labels.find("method");
          m != run.model.rows.front().labels.end()) {
        labels["method"] = m->second;
      }
    }
    std::string key;
    for (const auto& [k, v] : labels) {
      key += fmt::format("{}{}={}", key.empty() ? "" : " ", k, v);
    }
    groups[key.empty() ? "(no labels)" : key].push_back(&run);
  }
  std::vector<DeviceComparison> out;
  for (const auto& [labels, members] : groups) {
    std::set<std::string> devices;
    std::vector<NamedRun> copies;
    for (const auto* run : members) {
      devices.insert(run->model.device);
      copies.push_back(*run);
    }
    if (devices.size() >= 2) {
      out.push_back({labels, compare_runs(copies)});
    }
  }
  return out;
}

std::string render_comparison(const Comparison& c, int top) {
  std::string out;
  for (std::size_t r = 0; r < c.runs.size(); ++r) {
    std::string labels;
    for (const auto& [key, value] : c.labels[r]) {
      labels += fmt::format(" {}={}", key, value);
    }
    out += fmt::format("run {}: {}{}{}\n", r + 1, c.runs[r],
                       c.devices[r].empty() ? "" : fmt::format(" ({})", c.devices[r]), labels);
  }
  auto pct = [](std::optional<double> spread) {
    return spread ? fmt::format("{:.2f}%", 100.0 * (*spread - 1.0)) : std::string("-");
  };
  out += fmt::format(
      "{} tasks, {} in every run, {} timed in every run; speedup spread (max/min - 1) median {}, "
      "p95 {}; outcome changed on {}, speedup verdict (95% interval) changed on {}, point "
      "estimate crossed 1.0x on {}\n",
      c.rows.size(), c.in_all, c.timed_in_all, pct(c.median_spread), pct(c.p95_spread),
      c.outcome_changes, c.verdict_changes, c.side_changes);
  std::vector<const CompareRow*> shown;
  for (const auto& row : c.rows) {
    if (row.outcome_changed || row.verdict_changed || row.spread) {
      shown.push_back(&row);
    }
  }
  std::stable_sort(shown.begin(), shown.end(), [](const CompareRow* a, const CompareRow* b) {
    if (a->outcome_changed != b->outcome_changed) {
      return a->outcome_changed;
    }
    if (a->verdict_changed != b->verdict_changed) {
      return a->verdict_changed;
    }
    return a->spread.value_or(1.0) > b->spread.value_or(1.0);
  });
  if (top >= 0 && shown.size() > static_cast<std::size_t>(top)) {
    shown.resize(static_cast<std::size_t>(top));
  }
  if (shown.empty()) {
    return out;
  }
  std::size_t width = 4;
  for (const auto* row : shown) {
    width = std::max(width, row->task.size());
  }
  out += fmt::format("{:<{}}", "task", width);
  for (std::size_t r = 0; r < c.runs.size(); ++r) {
    out += fmt::format("  {:>22}", fmt::format("run {}", r + 1));
  }
  out += "   spread\n";
  for (const auto* row : shown) {
    out += fmt::format("{:<{}}", row->task, width);
    for (const auto& t : row->runs) {
      out += fmt::format("  {:>22}", speedup_text(t));
    }
    out += fmt::format("  {:>7}{}{}\n", pct(row->spread), row->outcome_changed ? "  outcome" : "",
                       row->verdict_changed ? "  verdict" : "");
  }
  return out;
}

Json comparison_json(const Comparison& c) {
  Json j;
  j["runs"] = Json::array();
  for (std::size_t r = 0; r < c.runs.size(); ++r) {
    j["runs"].push_back({{"name", c.runs[r]}, {"device", c.devices[r]}, {"labels", c.labels[r]}});
  }
  auto opt = [](std::optional<double> v) { return v ? Json(*v) : Json(nullptr); };
  j["tasks"] = c.rows.size();
  j["in_all"] = c.in_all;
  j["timed_in_all"] = c.timed_in_all;
  j["outcome_changes"] = c.outcome_changes;
  j["faster_than_eager_changes"] = c.side_changes;
  j["verdict_changes"] = c.verdict_changes;
  j["median_spread"] = opt(c.median_spread);
  j["p95_spread"] = opt(c.p95_spread);
  j["rows"] = Json::array();
  for (const auto& row : c.rows) {
    Json per_run = Json::array();
    for (const auto& t : row.runs) {
      if (!t) {
        per_run.push_back(nullptr);
      } else {
        per_run.push_back({{"outcome", t->outcome},
                           {"speedup", opt(t->speedup)},
                           {"speedup_verdict", std::string(stats::to_string(t->verdict))},
                           {"submissions", t->submissions}});
      }
    }
    j["rows"].push_back({{"task", row.task},
                         {"runs", per_run},
                         {"spread", opt(row.spread)},
                         {"outcome_changed", row.outcome_changed},
                         {"faster_than_eager_changed", row.side_changed},
                         {"verdict_changed", row.verdict_changed}});
  }
  return j;
}

}  // namespace kbx::report
