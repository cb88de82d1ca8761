// The "best known" column: the expert run's speedup per task beside the runs'.
#include "kbx/report/best_known.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "kbx/report/csv.h"

namespace kbx::report {
namespace {

std::string text(const TaskSpeedup& t) {
  if (t.speedup) {
    return fmt::format("{:.2f}x", *t.speedup);
  }
  return t.outcome.empty() ? "-" : t.outcome;
}

Json figure_json(const TaskSpeedup& t) {
  return Json{{"outcome", t.outcome.empty() ? Json(nullptr) : Json(t.outcome)},
              {"speedup", t.speedup ? Json(*t.speedup) : Json(nullptr)}};
}

}  // namespace

TaskSpeedup task_speedup(const ReportModel& model, const std::string& task) {
  for (std::size_t i : model.task_rows) {
    const SubmissionRow& r = model.rows[i];
    if (r.file != task) {
      continue;
    }
    TaskSpeedup t{r.outcome, std::nullopt};
    if (r.exe_ok && r.perf_ok && r.speedup > 0 && std::isfinite(r.speedup)) {
      t.speedup = r.speedup;
    }
    return t;
  }
  return {};
}

BestKnown best_known(const NamedRun& expert, const std::vector<NamedRun>& runs) {
  BestKnown b;
  b.source = expert.name;
  std::set<std::string> tasks;
  for (const auto& run : runs) {
    b.runs.push_back(run.name);
    for (const auto& row : run.model.rows) {
      tasks.insert(row.file);
    }
  }
  b.both_timed.assign(runs.size(), 0);
  b.at_least_best.assign(runs.size(), 0);
  for (const auto& task : tasks) {
    BestKnownRow row{task, task_speedup(expert.model, task), {}};
    for (std::size_t r = 0; r < runs.size(); ++r) {
      row.runs.push_back(task_speedup(runs[r].model, task));
      if (row.best.speedup && row.runs.back().speedup) {
        b.both_timed[r] += 1;
        b.at_least_best[r] += *row.runs.back().speedup >= *row.best.speedup ? 1 : 0;
      }
    }
    b.rows.push_back(std::move(row));
  }
  return b;
}

std::string render_best_known(const BestKnown& b) {
  std::string out = fmt::format("Best known (expert kernels of {}) beside each run:\n", b.source);
  out += fmt::format("  {:<40} {:>14}", "task", "best known");
  for (const auto& r : b.runs) {
    out += fmt::format(" {:>14}", r.size() > 14 ? r.substr(r.size() - 14) : r);
  }
  out += "\n";
  for (const auto& row : b.rows) {
    out += fmt::format("  {:<40} {:>14}", row.task, text(row.best));
    for (const auto& t : row.runs) {
      out += fmt::format(" {:>14}", text(t));
    }
    out += "\n";
  }
  for (std::size_t r = 0; r < b.runs.size(); ++r) {
    out += fmt::format("  {}: at least the best known's speedup on {} of {} tasks both timed\n",
                       b.runs[r], b.at_least_best[r], b.both_timed[r]);
  }
  return out;
}

Json best_known_json(const BestKnown& b) {
  Json j{{"source", b.source}, {"runs", b.runs}};
  j["tasks"] = Json::array();
  for (const auto& row : b.rows) {
    Json per_run = Json::array();
    for (const auto& t : row.runs) {
      per_run.push_back(figure_json(t));
    }
    j["tasks"].push_back(
        Json{{"task", row.task}, {"best_known", figure_json(row.best)}, {"runs", per_run}});
  }
  j["both_timed"] = b.both_timed;
  j["at_least_best_known"] = b.at_least_best;
  return j;
}

std::string best_known_csv(const BestKnown& b) {
  std::string out = "task,best_known_outcome,best_known_speedup";
  for (const auto& r : b.runs) {
    out += fmt::format(",{},{}", csv_field(r + "_outcome"), csv_field(r + "_speedup"));
  }
  out += "\n";
  auto cells = [](const TaskSpeedup& t) {
    return fmt::format(",{},{}", t.outcome, t.speedup ? fmt::format("{:.6g}", *t.speedup) : "");
  };
  for (const auto& row : b.rows) {
    out += csv_field(row.task) + cells(row.best);
    for (const auto& t : row.runs) {
      out += cells(t);
    }
    out += "\n";
  }
  return out;
}

}  // namespace kbx::report
