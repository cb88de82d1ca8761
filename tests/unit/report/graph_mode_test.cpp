// CUDA-graph mode (`kbx eval --graph`): the graph figures derived from the stored graph samples,
// beside the eager ones and never mixed into them, in kbx-results.json, the CSV, the terminal
// summary and the HTML and Markdown reports; metrics.json and summary.json unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kbx/report/exports.h"
#include "kbx/report/html_report.h"
#include "kbx/report/markdown_report.h"
#include "kbx/report/report_model.h"
#include "support/test_support.h"
#include "unit/report/rows.h"

namespace kbx::report {
namespace {

using kbx::testing::ScopedTempDir;
using store::EvaluationRecord;
using store::TimingRecord;

const std::string kGpu0 = "cuda:0 NVIDIA H200";

TimingRecord timing(int workload, std::vector<double> samples, std::vector<double> graph = {},
                    std::string graph_error = "") {
  TimingRecord t;
  t.workload = workload;
  t.samples_ms = std::move(samples);
  t.graph_samples_ms = std::move(graph);
  t.graph_error = std::move(graph_error);
  return t;
}

EvaluationRecord timed(const std::string& id, std::int64_t session,
                       std::vector<TimingRecord> timings, bool perf_ok = true) {
  EvaluationRecord e;
  e.submission_id = id;
  e.session_id = session;
  e.reference_session_id = session;
  e.device = kGpu0;
  e.outcome = "ok";
  e.call_ok = e.exe_ok = e.triton_ok = true;
  e.perf_ok = perf_ok;
  e.timings = std::move(timings);
  return e;
}

// Four tasks; with `graph`, graph samples beside the eager ones:
//   sA Math/add.py  eager: candidate 2 and 4, reference 6 and 8 (speedup 14/6); graph: candidate
//                   1 and 2, reference 3 and a failed capture -> graph speedup 3 over 1 workload
//   sB Math/mul.py  eager 4 vs 8 (2x); graph 2 vs 2 -> graph speedup 1
//   sC Math/sub.py  eager 1 vs 3; above the threshold, no graph figures
//   sD Math/neg.py  graph samples, but perf failed on its second workload: no graph speedup
struct GraphRun {
  ScopedTempDir dir;
  std::unique_ptr<store::Database> db = store::Database::open(dir.path() / "kbx.db");
  std::int64_t session = db->begin_session({});

  explicit GraphRun(bool graph, double candidate_graph_ms = 1) {
    Json config{{"device", "cuda"}};
    if (graph) {
      config["graph_max_ms"] = 0.05;
    }
    db->set_run_config(config);
    auto g = [graph](std::vector<double> samples) {
      return graph ? samples : std::vector<double>{};
    };
    std::string capture_error = graph ? "RuntimeError: operation not permitted" : "";
    for (const char* key : {"Math/add.py", "Math/mul.py", "Math/sub.py", "Math/neg.py"}) {
      db->upsert_task({key, "Math", "f", "v1", 1, {{0, {}, 1e9, 0, Json::array(), "float32"},
                                                   {1, {}, 1e9, 0, Json::array(), "float32"}}});
    }
    db->save_reference_timings(session, "Math/add.py",
                               {timing(0, {6, 6, 6}, g({3, 3, 3})),
                                timing(1, {8, 8, 8}, {}, capture_error)},
                               kGpu0);
    db->save_reference_timings(session, "Math/mul.py", {timing(0, {8, 8, 8}, g({2, 2}))}, kGpu0);
    db->save_reference_timings(session, "Math/sub.py", {timing(0, {3, 3, 3})}, kGpu0);
    db->save_reference_timings(session, "Math/neg.py", {timing(0, {3, 3}, g({1, 1}))}, kGpu0);
    int ordinal = 0;
    for (const auto& [id, key] : std::vector<std::pair<std::string, std::string>>{
             {"sA", "Math/add.py"}, {"sB", "Math/mul.py"}, {"sC", "Math/sub.py"},
             {"sD", "Math/neg.py"}}) {
      db->upsert_submission({id, key, "preds.jsonl", ordinal++, "code"});
    }
    double c = candidate_graph_ms;
    db->save_evaluation(timed("sA", session,
                              {timing(0, {2, 2, 2}, g({c, c, c})),
                               timing(1, {4, 4, 4}, g({2 * c, 2 * c}))}));
    db->save_evaluation(timed("sB", session, {timing(0, {4, 4, 4}, g({2, 2, 2}))}));
    db->save_evaluation(timed("sC", session, {timing(0, {1, 1, 1})}));
    db->save_evaluation(timed("sD", session, {timing(0, {1, 1}, g({0.5}))}, /*perf_ok=*/false));
  }
};

using rows::row_of;

TEST(GraphMode, WorkloadFiguresComeFromEachSidesGraphSamples) {
  GraphRun run(true);
  auto m = build_report_model(*run.db);
  EXPECT_TRUE(m.graph_mode);
  const SubmissionRow& a = row_of(m, "sA");
  EXPECT_DOUBLE_EQ(a.workloads[0].graph_ms.median, 1.0);
  EXPECT_DOUBLE_EQ(a.workloads[0].ref_graph_ms.median, 3.0);
  EXPECT_DOUBLE_EQ(a.workloads[0].graph_speedup, 3.0);
  EXPECT_DOUBLE_EQ(a.workloads[1].graph_ms.median, 2.0);
  EXPECT_EQ(a.workloads[1].ref_graph_ms.n, 0U);
  EXPECT_EQ(a.workloads[1].graph_speedup, 0);  // one side only
  EXPECT_EQ(a.workloads[1].ref_graph_error, "RuntimeError: operation not permitted");
  EXPECT_TRUE(a.workloads[1].graph_error.empty());
}

TEST(GraphMode, ASubmissionsGraphSpeedupIsARatioOfSumsOverWorkloadsBothSidesReplayed) {
  GraphRun run(true);
  auto m = build_report_model(*run.db);
  const SubmissionRow& a = row_of(m, "sA");
  ASSERT_TRUE(a.graph_speedup);
  EXPECT_DOUBLE_EQ(*a.graph_speedup, 3.0);
  EXPECT_EQ(a.graph_workloads, 1);
  EXPECT_DOUBLE_EQ(*row_of(m, "sB").graph_speedup, 1.0);
  EXPECT_FALSE(row_of(m, "sC").graph_speedup);  // above the threshold: never captured
  EXPECT_EQ(row_of(m, "sC").graph_workloads, 0);
  EXPECT_FALSE(row_of(m, "sD").graph_speedup);  // no perf: no speed figure of any kind
  EXPECT_DOUBLE_EQ(row_of(m, "sD").workloads[0].graph_speedup, 2.0);
}

TEST(GraphMode, GraphFiguresNeverTouchTheEagerSpeedupsVerdictsOrPublicExports) {
  GraphRun eager_only(false);
  auto plain = build_report_model(*eager_only.db);
  for (double forged : {1.0, 1e-9}) {  // an honest figure and an absurd one
    GraphRun run(true, forged);
    auto m = build_report_model(*run.db);
    for (const std::string id : {"sA", "sB", "sC", "sD"}) {
      const SubmissionRow& r = row_of(m, id);
      const SubmissionRow& p = row_of(plain, id);
      EXPECT_EQ(r.perf_ok, p.perf_ok) << id;
      EXPECT_DOUBLE_EQ(r.speedup, p.speedup) << id;
      EXPECT_EQ(r.speedup_verdict, p.speedup_verdict) << id;
      EXPECT_EQ(r.speedup_ci.has_value(), p.speedup_ci.has_value()) << id;
      if (r.speedup_ci) {
        EXPECT_DOUBLE_EQ(r.speedup_ci->low, p.speedup_ci->low) << id;
        EXPECT_DOUBLE_EQ(r.speedup_ci->high, p.speedup_ci->high) << id;
      }
    }
    EXPECT_EQ(m.overall.geomean_speedup, plain.overall.geomean_speedup);
    EXPECT_EQ(metrics_json(m), metrics_json(plain));
    EXPECT_EQ(summary_json(m), summary_json(plain));
  }
}

TEST(GraphMode, TotalsCountTheReplayedWorkloadsAndCompareWithEagerOnTheSameRows) {
  GraphRun run(true);
  auto m = build_report_model(*run.db);
  const Totals::Graph& g = m.overall.graph;
  EXPECT_EQ(g.timed, 2);
  EXPECT_EQ(g.tasks, 2);
  EXPECT_EQ(g.workloads, 2);
  EXPECT_DOUBLE_EQ(g.geomean_speedup, std::sqrt(3.0 * 1.0));
  EXPECT_DOUBLE_EQ(g.eager_geomean_speedup, std::sqrt(14.0 / 6.0 * 2.0));
  EXPECT_EQ(g.failed_workloads, 1);
}

TEST(GraphMode, KbxResultsAndTheCsvCarryTheGraphFiguresBesideTheEagerOnes) {
  GraphRun run(true);
  auto m = build_report_model(*run.db);
  Json results = kbx_results_json(m);
  const Json& a = results["submissions"][0];
  EXPECT_DOUBLE_EQ(a["speedup"].get<double>(), 14.0 / 6.0);
  EXPECT_DOUBLE_EQ(a["graph_speedup"].get<double>(), 3.0);
  EXPECT_EQ(a["graph_workloads"], 1);
  const Json& w0 = a["workloads"][0];
  EXPECT_DOUBLE_EQ(w0["graph_runtime_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(w0["ref_graph_runtime_ms"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(w0["graph_speedup"].get<double>(), 3.0);
  EXPECT_FALSE(w0.contains("graph_error"));
  EXPECT_FALSE(w0.contains("ref_graph_error"));
  const Json& w1 = a["workloads"][1];
  EXPECT_TRUE(w1["ref_graph_runtime_ms"].is_null());
  EXPECT_TRUE(w1["graph_speedup"].is_null());
  EXPECT_EQ(w1["ref_graph_error"], "RuntimeError: operation not permitted");
  const Json& c = results["submissions"][2];
  EXPECT_TRUE(c["graph_speedup"].is_null());
  EXPECT_EQ(c["graph_workloads"], 0);
  EXPECT_TRUE(c["workloads"][0]["graph_runtime_ms"].is_null());
  EXPECT_EQ(results["summary"]["graph"]["workloads"], 2);
  EXPECT_DOUBLE_EQ(results["summary"]["graph"]["geomean_speedup"].get<double>(), std::sqrt(3.0));
  std::string csv = kbx_results_csv(m);
  EXPECT_NE(csv.find(",detail,graph_speedup,graph_workloads\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",3,1\n"), std::string::npos) << csv;   // sA
  EXPECT_NE(csv.find(",1,1\n"), std::string::npos) << csv;   // sB
  EXPECT_NE(csv.find(",,0\n"), std::string::npos) << csv;    // sC
}

TEST(GraphMode, TheTerminalSummaryHasOneLineApartFromTheEagerFigures) {
  GraphRun run(true);
  auto m = build_report_model(*run.db);
  std::string summary = render_terminal_summary(m, false);
  EXPECT_NE(summary.find("CUDA graphs: 2 launch-bound workloads in 2 tasks replayed as graphs; "
                         "geomean speedup in graph mode 1.73x (eager 2.16x on the same tasks); "
                         "capture failed on 1 workload (graph_error in kbx-results.json)\n"),
            std::string::npos)
      << summary;
}

TEST(GraphMode, TheReportsShowTheGraphFiguresBesideTheEagerOnes) {
  GraphRun run(true);
  NamedRun named{"runs/g", build_report_model(*run.db)};
  named.model.labels["method"] = "m";  // the Markdown report's heat map groups by method
  std::string html = render_html_report({named}, "kbx");
  EXPECT_NE(html.find("<tr><td>CUDA graphs</td><td><span title="), std::string::npos);
  EXPECT_NE(html.find("geomean 1.73x over 2 submissions (2 workloads); eager 2.16x on the same"
                      "</span>; capture failed on 1 workload</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("Graph speedup</th>"), std::string::npos);
  // sA's cell (3x over the one workload both sides replayed); sC has none.
  EXPECT_NE(html.find("data-sort=\"3\" title=\"over 1 workload replayed as CUDA graphs on both "
                      "sides\">3.00x</td>"),
            std::string::npos);
  std::string md = render_markdown_report({named}, "kbx", {});
  EXPECT_NE(md.find("## CUDA graphs\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| runs/g | 2 | 2 | 2 | 1.73x | 2.16x | 1 |\n"), std::string::npos) << md;
  // Without graph mode, neither report mentions graphs.
  GraphRun plain(false);
  NamedRun eager{"runs/e", build_report_model(*plain.db)};
  eager.model.labels["method"] = "m";
  EXPECT_EQ(render_html_report({eager}, "kbx").find("CUDA graphs"), std::string::npos);
  EXPECT_EQ(render_markdown_report({eager}, "kbx", {}).find("CUDA graphs"), std::string::npos);
}

TEST(GraphMode, ARunWithoutItShowsNoneOfItsFields) {
  GraphRun run(false);
  auto m = build_report_model(*run.db);
  EXPECT_FALSE(m.graph_mode);
  Json results = kbx_results_json(m);
  EXPECT_FALSE(results["summary"].contains("graph"));
  EXPECT_FALSE(results["submissions"][0].contains("graph_speedup"));
  EXPECT_FALSE(results["submissions"][0]["workloads"][0].contains("graph_runtime_ms"));
  EXPECT_EQ(kbx_results_csv(m).find("graph"), std::string::npos);
  EXPECT_EQ(render_terminal_summary(m, false).find("CUDA graphs"), std::string::npos);
}

TEST(GraphMode, OneSubmissionsRecordCarriesItsGraphFigures) {
  GraphRun run(true);
  auto row = build_submission_row(*run.db, "sA");
  ASSERT_TRUE(row);
  Json j = submission_record_json(*row, true);
  EXPECT_DOUBLE_EQ(j["graph_speedup"].get<double>(), 3.0);
  auto plain = build_submission_row(*run.db, "sC");
  EXPECT_FALSE(submission_record_json(*plain, true).contains("graph_speedup"));
}

}  // namespace
}  // namespace kbx::report
