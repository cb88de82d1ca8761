// Analyses over runs: submissions grouped by labels, device, category or task.
#include "kbx/report/analyze.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "kbx/common/error.h"
#include "kbx/report/csv.h"
#include "kbx/report/percent.h"
#include "kbx/stats/summary.h"

namespace kbx::report {
namespace {

std::string dimension_value(const NamedRun& run, const SubmissionRow& row, const std::string& dim) {
  if (dim == "category") {
    return row.category;
  }
  if (dim == "task") {
    return row.file;
  }
  if (dim == "run") {
    return run.name;
  }
  if (dim == "device") {
    return run.model.device.empty() ? "-" : run.model.device;
  }
  if (auto own = row.labels.find(dim); own != row.labels.end()) {
    return own->second;  // a generated candidate's round, candidate, ...
  }
  auto it = run.model.labels.find(dim);
  return it == run.model.labels.end() ? "-" : it->second;
}

// The row's speedup against torch.compile, counted as against eager: a win from p = 1 on needs
// the verdict `faster` and the interval's low end above p.
void add_vs_compile(GroupStats& g, const SubmissionRow& row) {
  g.compile_fast_p.resize(fast_p_thresholds().size());
  const auto& b = row.vs_compile;
  if (!row.exe_ok || !b || !(b->speedup > 0) || !std::isfinite(b->speedup)) {
    return;
  }
  g.compile_timed += 1;
  g.compile_speedups.push_back(b->speedup);
  const auto& ps = fast_p_thresholds();
  for (std::size_t i = 1; i < ps.size() && b->speedup_ci; ++i) {
    bool win = b->speedup_ci->low > ps[i] &&
               (ps[i] < 1 || b->speedup_verdict == stats::SpeedupVerdict::faster);
    g.compile_fast_p[i] += win ? 1 : 0;
  }
}

void add_row(GroupStats& g, const SubmissionRow& row, std::vector<double>& speedups) {
  add_vs_compile(g, row);
  g.submissions += 1;
  g.call_pass += row.call_ok ? 1 : 0;
  g.exe_pass += row.exe_ok ? 1 : 0;
  g.fast_p.resize(fast_p_thresholds().size());
  if (row.exe_ok) {
    g.fast_p[0] += 1;
  }
  const bool timed = row.exe_ok && row.perf_ok && row.speedup > 0 && std::isfinite(row.speedup);
  if (!timed) {
    return;
  }
  g.perf_pass += 1;
  speedups.push_back(row.speedup);
  g.slower_point += row.speedup < 1 ? 1 : 0;
  g.slower_verdict += row.speedup_verdict == stats::SpeedupVerdict::slower ? 1 : 0;
  if (!row.speedup_ci) {
    return;
  }
  const auto& ps = fast_p_thresholds();
  for (std::size_t i = 1; i < ps.size(); ++i) {
    // From p = 1 on, a win within the same-speed margin of eager (verdict `same`) is no win, as in summary.json.
    bool win = row.speedup_ci->low > ps[i] &&
               (ps[i] < 1 || row.speedup_verdict == stats::SpeedupVerdict::faster);
    g.fast_p[i] += win ? 1 : 0;
  }
}

void finish(GroupStats& g, const std::vector<double>& speedups) {
  g.fast_p.resize(fast_p_thresholds().size());
  if (!speedups.empty()) {
    g.geomean_speedup = stats::geometric_mean(speedups);
  }
}

std::string p_name(double p) {
  std::string s = fmt::format("{:g}", p);
  std::replace(s.begin(), s.end(), '.', '_');
  return "fast_" + s;
}

Json group_json(const GroupStats& g, const std::vector<std::string>& dims) {
  Json j;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    j[dims[i]] = g.key[i];
  }
  j["submissions"] = g.submissions;
  j["call_pass"] = g.call_pass;
  j["exe_pass"] = g.exe_pass;
  j["perf_pass"] = g.perf_pass;
  j["geomean_speedup"] = g.geomean_speedup ? Json(*g.geomean_speedup) : Json(nullptr);
  j["slower_than_eager"] = g.slower_point;
  j["slower_than_eager_by_interval"] = g.slower_verdict;
  const auto& ps = fast_p_thresholds();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    j[p_name(ps[i])] = g.submissions > 0 ? static_cast<double>(g.fast_p[i]) / g.submissions : 0.0;
  }
  if (g.compile_timed > 0) {  // only groups with speedups against torch.compile
    Json c{{"timed", g.compile_timed},
           {"geomean_speedup", stats::geometric_mean(g.compile_speedups)}};
    for (std::size_t i = 1; i < ps.size(); ++i) {
      c[p_name(ps[i])] = static_cast<double>(g.compile_fast_p[i]) / g.submissions;
    }
    j["vs_compile"] = c;
  }
  return j;
}

}  // namespace

std::vector<std::string> known_dimensions(const std::vector<NamedRun>& runs) {
  std::set<std::string> labels;
  for (const auto& run : runs) {
    for (const auto& [key, value] : run.model.labels) {
      labels.insert(key);
    }
    for (const auto& row : run.model.rows) {
      for (const auto& [key, value] : row.labels) {
        labels.insert(key);
      }
    }
  }
  std::vector<std::string> out{"category", "task", "run", "device"};
  for (const auto& l : labels) {
    if (std::find(out.begin(), out.end(), l) == out.end()) {
      out.push_back(l);
    }
  }
  return out;
}

Analysis analyze_runs(const std::vector<NamedRun>& runs, const std::vector<std::string>& dimensions) {
  auto known = known_dimensions(runs);
  std::set<std::string> seen;
  for (const auto& d : dimensions) {
    if (std::find(known.begin(), known.end(), d) == known.end()) {
      throw Error(ErrorKind::usage, "--by '{}' is not a dimension of these runs (known: {})", d,
                  fmt::join(known, ", "));
    }
    if (!seen.insert(d).second) {
      throw Error(ErrorKind::usage, "--by names '{}' twice", d);
    }
  }
  Analysis a;
  a.dimensions = dimensions;
  std::map<std::vector<std::string>, std::pair<GroupStats, std::vector<double>>> groups;
  std::vector<double> all_speedups;
  std::map<std::string, bool> solved;  // task -> some submission correct
  for (const auto& run : runs) {
    for (const auto& row : run.model.rows) {
      std::vector<std::string> key;
      for (const auto& d : dimensions) {
        key.push_back(dimension_value(run, row, d));
      }
      auto& [g, speedups] = groups[key];
      g.key = key;
      add_row(g, row, speedups);
      add_row(a.overall, row, all_speedups);
      solved[row.file] = solved[row.file] || row.exe_ok;
    }
  }
  for (auto& [key, entry] : groups) {
    finish(entry.first, entry.second);
    a.groups.push_back(std::move(entry.first));
  }
  finish(a.overall, all_speedups);
  a.tasks = static_cast<int>(solved.size());
  for (const auto& [task, ok] : solved) {
    if (!ok) {
      a.unsolved.push_back(task);
    }
  }
  return a;
}

Result<stats::DevianceDecomposition> exe_deviance(const std::vector<NamedRun>& runs,
                                                  const std::string& a, const std::string& b) {
  auto known = known_dimensions(runs);
  for (const auto& d : {a, b}) {
    if (std::find(known.begin(), known.end(), d) == known.end()) {
      return Error(ErrorKind::usage, "--deviance '{}' is not a dimension of these runs (known: {})",
                   d, fmt::join(known, ", "));
    }
  }
  stats::Factor fa{a, {}};
  stats::Factor fb{b, {}};
  std::vector<int> outcomes;
  for (const auto& run : runs) {
    for (const auto& row : run.model.rows) {
      if (row.outcome == "pending") {
        continue;  // not judged yet
      }
      fa.levels.push_back(dimension_value(run, row, a));
      fb.levels.push_back(dimension_value(run, row, b));
      outcomes.push_back(row.exe_ok ? 1 : 0);
    }
  }
  return stats::decompose_deviance(fa, fb, outcomes);
}

std::string render_deviance(const stats::DevianceDecomposition& d) {
  std::string out = fmt::format(
      "Deviance of exe success explained (binomial logit GLM, {} submissions, null deviance {:.2f}):\n",
      d.n_trials, d.null_deviance);
  for (const auto* m : {&d.a, &d.b, &d.ab}) {
    out += fmt::format("  {:<28} {:6.1f}%  (deviance {:.2f}, {} parameters{})\n", m->terms,
                       100.0 * m->share, m->deviance, m->rank,
                       m->separation ? ", separated: a level always fails or always passes" : "");
  }
  out += fmt::format("  {} given {}: LR {:.2f} on {} df, p = {:.3g}\n", d.a.terms, d.b.terms,
                     d.a_given_b.statistic, d.a_given_b.df, d.a_given_b.p_value);
  out += fmt::format("  {} given {}: LR {:.2f} on {} df, p = {:.3g}\n", d.b.terms, d.a.terms,
                     d.b_given_a.statistic, d.b_given_a.df, d.b_given_a.p_value);
  return out;
}

Json deviance_json(const stats::DevianceDecomposition& d) {
  auto model = [](const stats::ModelDeviance& m) {
    return Json{{"terms", m.terms},         {"deviance", m.deviance},   {"share", m.share},
                {"parameters", m.rank},     {"separation", m.separation}, {"converged", m.converged}};
  };
  auto lr = [](const stats::LikelihoodRatio& t) {
    return Json{{"statistic", t.statistic}, {"df", t.df}, {"p_value", t.p_value}};
  };
  return Json{{"submissions", d.n_trials}, {"null_deviance", d.null_deviance},
              {"a", model(d.a)},           {"b", model(d.b)},
              {"both", model(d.ab)},       {"a_given_b", lr(d.a_given_b)},
              {"b_given_a", lr(d.b_given_a)}};
}

std::string render_analysis(const Analysis& a) {
  std::vector<std::string> header = a.dimensions;
  if (header.empty()) {
    header.push_back("group");
  }
  for (const char* h : {"subs", "call", "exe", "perf", "geomean", "slower"}) {
    header.emplace_back(h);
  }
  for (double p : fast_p_thresholds()) {
    header.push_back(fmt::format("f{:g}", p));
  }
  auto line_of = [&](const GroupStats& g, const std::vector<std::string>& key) {
    std::vector<std::string> cells = key;
    cells.push_back(std::to_string(g.submissions));
    cells.push_back(percent_text(g.call_pass, g.submissions));
    cells.push_back(percent_text(g.exe_pass, g.submissions));
    cells.push_back(percent_text(g.perf_pass, g.submissions));
    cells.push_back(g.geomean_speedup ? fmt::format("{:.2f}x", *g.geomean_speedup) : "-");
    cells.push_back(percent_text(g.slower_point, g.perf_pass));
    for (int n : g.fast_p) {
      cells.push_back(percent_text(n, g.submissions));
    }
    return cells;
  };
  std::vector<std::vector<std::string>> table{header};
  for (const auto& g : a.groups) {
    table.push_back(line_of(g, a.dimensions.empty() ? std::vector<std::string>{"all"} : g.key));
  }
  if (!a.dimensions.empty()) {
    std::vector<std::string> all_key(a.dimensions.size(), "");
    all_key[0] = "ALL";
    table.push_back(line_of(a.overall, all_key));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : table) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  const std::size_t key_columns = std::max<std::size_t>(1, a.dimensions.size());
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += i < key_columns ? fmt::format("{:<{}}  ", row[i], width[i])
                              : fmt::format("{:>{}}  ", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  out += fmt::format(
      "slower: share of correct, timed submissions below 1.0x (point estimate); fN: share of "
      "submissions correct and faster than N x eager by the 95% interval (f0: correct)\n");
  out += fmt::format("{} tasks; {} with no correct submission in any run{}{}\n", a.tasks,
                     a.unsolved.size(), a.unsolved.empty() ? "" : ": ",
                     fmt::join(a.unsolved, ", "));
  return out;
}

Json analysis_json(const Analysis& a) {
  Json j;
  j["dimensions"] = a.dimensions;
  j["groups"] = Json::array();
  for (const auto& g : a.groups) {
    j["groups"].push_back(group_json(g, a.dimensions));
  }
  j["overall"] = group_json(a.overall, {});
  j["tasks"] = a.tasks;
  j["unsolved_tasks"] = a.unsolved;
  return j;
}

std::string analysis_csv(const Analysis& a) {
  std::vector<std::string> cols = a.dimensions;
  for (const char* c : {"submissions", "call_pass", "exe_pass", "perf_pass", "geomean_speedup",
                        "slower_than_eager", "slower_than_eager_by_interval"}) {
    cols.emplace_back(c);
  }
  for (double p : fast_p_thresholds()) {
    cols.push_back(p_name(p));
  }
  std::string out = fmt::format("{}\n", fmt::join(cols, ","));
  auto line = [&](const GroupStats& g, const std::vector<std::string>& key) {
    std::vector<std::string> cells;
    for (const auto& k : key) {
      cells.push_back(csv_field(k));
    }
    for (int n : {g.submissions, g.call_pass, g.exe_pass, g.perf_pass}) {
      cells.push_back(std::to_string(n));
    }
    cells.push_back(g.geomean_speedup ? fmt::format("{:.6g}", *g.geomean_speedup) : "");
    cells.push_back(std::to_string(g.slower_point));
    cells.push_back(std::to_string(g.slower_verdict));
    for (int n : g.fast_p) {
      cells.push_back(std::to_string(n));
    }
    out += fmt::format("{}\n", fmt::join(cells, ","));
  };
  for (const auto& g : a.groups) {
    line(g, g.key);
  }
  std::vector<std::string> all_key(a.dimensions.size(), "");
  if (!all_key.empty()) {
    all_key[0] = "ALL";
    line(a.overall, all_key);
  }
  return out;
}

}  // namespace kbx::report
