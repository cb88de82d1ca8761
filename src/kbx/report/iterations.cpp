// Iterations of one method: lineages of submissions across rounds, their transitions and rates.
#include "kbx/report/iterations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "kbx/report/csv.h"
#include "kbx/report/percent.h"
#include "kbx/stats/summary.h"

namespace kbx::report {
namespace {

struct Entry {
  std::string method;
  std::string lineage;
  std::string round;
  long round_number = 0;
  const SubmissionRow* row = nullptr;
};

std::string label_of(const NamedRun& run, const SubmissionRow& row, const std::string& key) {
  if (auto it = row.labels.find(key); it != row.labels.end()) {
    return it->second;
  }
  auto it = run.model.labels.find(key);
  return it == run.model.labels.end() ? std::string() : it->second;
}

long round_number(const std::string& round) {
  char* end = nullptr;
  long n = std::strtol(round.c_str(), &end, 10);
  return end == round.c_str() ? -1 : n;
}

bool timed(const SubmissionRow& r) {
  return r.exe_ok && r.perf_ok && r.speedup > 0 && std::isfinite(r.speedup);
}

// Lineage keys of one run's rows with a round label.
class LineageKeys {
 public:
  explicit LineageKeys(const NamedRun& run) : run_(run) {
    for (const auto& row : run.model.rows) {
      by_id_[row.submission_id] = &row;
    }
  }

  std::string of(const SubmissionRow& row, int depth = 0) {
    if (auto it = memo_.find(&row); it != memo_.end()) {
      return it->second;
    }
    std::string key;
    auto parent = by_id_.find(row.parent_submission_id);
    if (!row.parent_submission_id.empty() && parent != by_id_.end() && depth < 10'000) {
      key = of(*parent->second, depth + 1);
    } else if (row.labels.count("candidate") > 0) {  // a chain's first round
      key = fmt::format("{}|{}", run_.name, row.submission_id);
    } else {
      key = labelled_key(row);
    }
    memo_[&row] = key;
    return key;
  }

 private:
  std::string labelled_key(const SubmissionRow& row) {
    std::map<std::string, std::string> labels = run_.model.labels;
    for (const auto& [k, v] : row.labels) {
      labels[k] = v;
    }
    labels.erase("round");
    std::string key = fmt::format("{}|{}", run_.model.device, row.file);
    for (const auto& [k, v] : labels) {
      key += fmt::format("|{}={}", k, v);
    }
    // The ordinal among this run's submissions of the task (rows are in source order).
    int ordinal = ordinals_[row.file]++;
    return fmt::format("{}|#{}", key, ordinal);
  }

  const NamedRun& run_;
  std::map<std::string, const SubmissionRow*> by_id_;
  std::map<const SubmissionRow*, std::string> memo_;
  std::map<std::string, int> ordinals_;
};

std::vector<Entry> collect_entries(const std::vector<NamedRun>& runs) {
  std::vector<Entry> out;
  for (const auto& run : runs) {
    LineageKeys keys(run);
    for (const auto& row : run.model.rows) {
      std::string round = label_of(run, row, "round");
      if (round.empty() || row.outcome == "pending") {
        continue;
      }
      std::string method = label_of(run, row, "method");
      out.push_back(
          {method.empty() ? "-" : method, keys.of(row), round, round_number(round), &row});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.round_number, a.round) < std::tie(b.round_number, b.round);
  });
  return out;
}

void count_step(Transitions& t, bool before, bool after) {
  if (before) {
    (after ? t.pass_to_pass : t.pass_to_fail) += 1;
  } else {
    (after ? t.fail_to_pass : t.fail_to_fail) += 1;
  }
}

void add_to_group(LineageGroup& g, const SubmissionRow& first_correct,
                  std::vector<double>& speedups) {
  g.lineages += 1;
  if (timed(first_correct)) {
    g.timed += 1;
    speedups.push_back(first_correct.speedup);
  }
}

std::optional<double> geomean_of(const std::vector<double>& v) {
  return v.empty() ? std::nullopt : std::optional<double>(stats::geometric_mean(v));
}

// The round rows, in the entries' (round) order.
std::vector<RoundStats> round_stats(
    const std::vector<const Entry*>& entries,
    const std::map<std::string, std::vector<const Entry*>>& lineages) {
  std::vector<RoundStats> rounds;
  std::map<std::string, std::vector<double>> speedups;
  for (const Entry* e : entries) {
    if (rounds.empty() || rounds.back().round != e->round) {
      rounds.emplace_back();
      rounds.back().round = e->round;
    }
    RoundStats& r = rounds.back();
    r.submissions += 1;
    r.call_pass += e->row->call_ok ? 1 : 0;
    r.exe_pass += e->row->exe_ok ? 1 : 0;
    if (timed(*e->row)) {
      r.perf_pass += 1;
      speedups[e->round].push_back(e->row->speedup);
    }
  }
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    RoundStats& r = rounds[i];
    r.geomean_speedup = geomean_of(speedups[r.round]);
    long upto = round_number(r.round);
    for (const auto& [key, chain] : lineages) {
      if (chain.front()->round_number > upto) {
        continue;
      }
      r.lineages += 1;
      bool solved = std::any_of(chain.begin(), chain.end(), [&](const Entry* e) {
        return e->round_number <= upto && e->row->exe_ok;
      });
      r.solved_by_round += solved ? 1 : 0;
    }
  }
  return rounds;
}

Iterations method_iterations(const std::string& method, const std::vector<const Entry*>& entries) {
  Iterations it;
  it.method = method;
  std::map<std::string, std::vector<const Entry*>> lineages;  // entries keep round order
  for (const Entry* e : entries) {
    lineages[e->lineage].push_back(e);
  }
  it.rounds = round_stats(entries, lineages);
  std::map<std::pair<long, long>, RoundStep> steps;
  std::vector<double> persistent_speedups;
  std::vector<double> rescued_speedups;
  for (const auto& [key, chain] : lineages) {
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      auto& step = steps[{chain[i]->round_number, chain[i + 1]->round_number}];
      step.from = chain[i]->round;
      step.to = chain[i + 1]->round;
      count_step(step.counts, chain[i]->row->exe_ok, chain[i + 1]->row->exe_ok);
      count_step(it.total, chain[i]->row->exe_ok, chain[i + 1]->row->exe_ok);
    }
    auto first_ok =
        std::find_if(chain.begin(), chain.end(), [](const Entry* e) { return e->row->exe_ok; });
    if (first_ok == chain.end()) {
      it.never_correct += 1;
    } else if (first_ok == chain.begin()) {
      add_to_group(it.persistent, *(*first_ok)->row, persistent_speedups);
    } else {
      add_to_group(it.rescued, *(*first_ok)->row, rescued_speedups);
    }
  }
  it.lineages = static_cast<int>(lineages.size());
  it.persistent.geomean_speedup = geomean_of(persistent_speedups);
  it.rescued.geomean_speedup = geomean_of(rescued_speedups);
  for (auto& [rounds, step] : steps) {
    it.steps.push_back(step);
  }
  return it;
}

std::string speedup_text(const std::optional<double>& s) {
  return s ? fmt::format("{:.2f}x", *s) : std::string("-");
}

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : std::string();
}

Json transitions_json(const Transitions& t) {
  return Json{{"fail_to_pass", t.fail_to_pass},
              {"pass_to_fail", t.pass_to_fail},
              {"pass_to_pass", t.pass_to_pass},
              {"fail_to_fail", t.fail_to_fail}};
}

Json group_json(const LineageGroup& g) {
  return Json{{"lineages", g.lineages},
              {"timed", g.timed},
              {"geomean_speedup", g.geomean_speedup ? Json(*g.geomean_speedup) : Json(nullptr)}};
}

}  // namespace

std::vector<Iterations> iterations(const std::vector<NamedRun>& runs) {
  auto entries = collect_entries(runs);
  std::map<std::string, std::vector<const Entry*>> by_method;
  for (const Entry& e : entries) {
    by_method[e.method].push_back(&e);
  }
  std::vector<Iterations> out;
  for (const auto& [method, list] : by_method) {
    Iterations it = method_iterations(method, list);
    if (it.rounds.size() > 1 || !it.steps.empty()) {
      out.push_back(std::move(it));
    }
  }
  return out;
}

std::string render_iterations(const std::vector<Iterations>& its) {
  std::string out;
  for (const auto& it : its) {
    out += fmt::format("Iterations of {} ({} lineages):\n", it.method, it.lineages);
    out += fmt::format("  {:>6} {:>5} {:>7} {:>7} {:>7} {:>8} {:>14}\n", "round", "subs", "call",
                       "exe", "perf", "geomean", "solved so far");
    for (const auto& r : it.rounds) {
      out += fmt::format("  {:>6} {:>5} {:>7} {:>7} {:>7} {:>8} {:>14}\n", r.round, r.submissions,
                         percent_text(r.call_pass, r.submissions),
                         percent_text(r.exe_pass, r.submissions),
                         percent_text(r.perf_pass, r.submissions), speedup_text(r.geomean_speedup),
                         fmt::format("{}/{} ({})", r.solved_by_round, r.lineages,
                                     percent_text(r.solved_by_round, r.lineages)));
    }
    for (const auto& s : it.steps) {
      out += fmt::format(
          "  round {} -> {}: fail->pass {}, pass->fail {}, pass->pass {}, "
          "fail->fail {}\n",
          s.from, s.to, s.counts.fail_to_pass, s.counts.pass_to_fail, s.counts.pass_to_pass,
          s.counts.fail_to_fail);
    }
    out += fmt::format(
        "  persistently correct {} (geomean {} over {} timed); rescued {} (geomean {} over {} "
        "timed); never correct {}\n",
        it.persistent.lineages, speedup_text(it.persistent.geomean_speedup), it.persistent.timed,
        it.rescued.lineages, speedup_text(it.rescued.geomean_speedup), it.rescued.timed,
        it.never_correct);
  }
  return out;
}

Json iterations_json(const std::vector<Iterations>& its) {
  Json j = Json::array();
  for (const auto& it : its) {
    Json m{{"method", it.method},
           {"lineages", it.lineages},
           {"transitions", transitions_json(it.total)},
           {"persistent", group_json(it.persistent)},
           {"rescued", group_json(it.rescued)},
           {"never_correct", it.never_correct}};
    m["rounds"] = Json::array();
    for (const auto& r : it.rounds) {
      m["rounds"].push_back(
          Json{{"round", r.round},
               {"submissions", r.submissions},
               {"call_pass", r.call_pass},
               {"exe_pass", r.exe_pass},
               {"perf_pass", r.perf_pass},
               {"geomean_speedup", r.geomean_speedup ? Json(*r.geomean_speedup) : Json(nullptr)},
               {"lineages", r.lineages},
               {"solved_by_round", r.solved_by_round}});
    }
    m["steps"] = Json::array();
    for (const auto& s : it.steps) {
      m["steps"].push_back(
          Json{{"from", s.from}, {"to", s.to}, {"counts", transitions_json(s.counts)}});
    }
    j.push_back(std::move(m));
  }
  return j;
}

std::string iterations_csv(const std::vector<Iterations>& its) {
  std::string out =
      "table,method,round,submissions,call_pass,exe_pass,perf_pass,geomean_speedup,lineages,"
      "solved_by_round\n";
  for (const auto& it : its) {
    for (const auto& r : it.rounds) {
      out += fmt::format("round,{},{},{},{},{},{},{},{},{}\n", csv_field(it.method),
                         csv_field(r.round), r.submissions, r.call_pass, r.exe_pass, r.perf_pass,
                         csv_number(r.geomean_speedup), r.lineages, r.solved_by_round);
    }
  }
  out += "table,method,from,to,fail_to_pass,pass_to_fail,pass_to_pass,fail_to_fail\n";
  for (const auto& it : its) {
    for (const auto& s : it.steps) {
      out += fmt::format("step,{},{},{},{},{},{},{}\n", csv_field(it.method), csv_field(s.from),
                         csv_field(s.to), s.counts.fail_to_pass, s.counts.pass_to_fail,
                         s.counts.pass_to_pass, s.counts.fail_to_fail);
    }
  }
  out += "table,method,group,lineages,timed,geomean_speedup\n";
  for (const auto& it : its) {
    out += fmt::format("lineage,{},persistent,{},{},{}\n", csv_field(it.method),
                       it.persistent.lineages, it.persistent.timed,
                       csv_number(it.persistent.geomean_speedup));
    out += fmt::format("lineage,{},rescued,{},{},{}\n", csv_field(it.method), it.rescued.lineages,
                       it.rescued.timed, csv_number(it.rescued.geomean_speedup));
    out += fmt::format("lineage,{},never_correct,{},0,\n", csv_field(it.method), it.never_correct);
  }
  return out;
}

}  // namespace kbx::report
