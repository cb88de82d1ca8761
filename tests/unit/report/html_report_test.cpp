// Tests of render_html_report: sections, figures, escaping, self-containment, several runs.
#include "kbx/report/html_report.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace kbx::report {
namespace {

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

SubmissionRow timed(const std::string& file, double speedup, double low, double high,
                    stats::SpeedupVerdict verdict) {
  SubmissionRow r;
  r.file = file;
  r.category = file.substr(0, file.find('/'));
  r.submission_id = "id-" + file;
  r.call_ok = r.exe_ok = r.perf_ok = r.triton_ok = true;
  r.outcome = "ok";
  r.speedup = speedup;
  r.speedup_ci = stats::Interval{low, high};
  r.speedup_verdict = verdict;
  return r;
}

// Three tasks: two timed (1.5x faster, 0.5x slower), one incorrect with hostile text.
NamedRun sample_run(const std::string& name) {
  ReportModel m;
  m.rows.push_back(timed("Math/add.py", 1.5, 1.4, 1.6, stats::SpeedupVerdict::faster));
  m.rows.push_back(timed("Math/mul.py", 0.5, 0.45, 0.55, stats::SpeedupVerdict::slower));
  SubmissionRow bad;
  bad.file = "Conv/<conv>.py";
  bad.category = "Conv";
  bad.call_ok = true;
  bad.outcome = "incorrect";
  bad.reason = "value_mismatch";
  bad.detail = "max abs err 0.5 <script>alert(1)</script>";
  m.rows.push_back(bad);
  m.task_rows = {0, 1, 2};
  std::vector<const SubmissionRow*> all{&m.rows[0], &m.rows[1], &m.rows[2]};
  m.overall = m.task_totals = make_totals(all);
  m.categories = {{"Conv", make_totals({&m.rows[2]})},
                  {"Math", make_totals({&m.rows[0], &m.rows[1]})}};
  m.labels = {{"method", "one_shot"}};
  m.device = "cuda:0 NVIDIA H200";
  return {name, m};
}

TEST(HtmlReport, HasEverySectionAndTheScriptMarker) {
  std::string html = render_html_report({sample_run("runs/a")}, "kbx 0.1.0");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  for (const char* id : {"id=\"summary\"", "id=\"categories\"", "id=\"speedups\"", "id=\"tasks\"",
                         "id=\"failures\"", "id=\"task-table\"", "id=\"kbx-script-status\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("kbx 0.1.0"), std::string::npos);
  EXPECT_NE(html.find("method=one_shot"), std::string::npos);
}

TEST(HtmlReport, ShowsTheRunsFigures) {
  std::string html = render_html_report({sample_run("runs/a")}, "kbx");
  EXPECT_NE(html.find("<td>Exe</td><td>2 / 3 (66.7%)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>Call</td><td>3 / 3 (100.0%)</td>"), std::string::npos);
  EXPECT_NE(html.find("faster 1, same 0, slower 1, ambiguous 0"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\" data-sort=\"1.5\">1.50x</td>"), std::string::npos);
  EXPECT_NE(html.find("1.40 - 1.60"), std::string::npos);
  EXPECT_NE(html.find("<tr data-category=\"Math\">"), std::string::npos);
}

TEST(HtmlReport, TheCardSaysHowSamplingEndedAndAShrunkRunsScale) {
  NamedRun run = sample_run("runs/a");
  std::string plain = render_html_report({run}, "kbx");
  EXPECT_EQ(plain.find("<td>Sampling</td>"), std::string::npos);  // no workloads timed
  EXPECT_EQ(plain.find("<td>Perf scale</td>"), std::string::npos);
  WorkloadRow steady;
  steady.candidate_ms = stats::summarize(std::vector<double>(40, 1.0));
  WorkloadRow noisy;
  noisy.index = 1;
  noisy.candidate_ms = stats::summarize(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8});
  run.model.rows[0].workloads = {steady, noisy};
  run.model.perf_scale = 0.5;
  std::string html = render_html_report({run}, "kbx");
  EXPECT_NE(html.find("1 of 2 within 1%</span>, 1 at the budget"), std::string::npos);
  EXPECT_NE(html.find("<td>Perf scale</td><td>0.5 of the workloads' bytes"), std::string::npos);
}

TEST(HtmlReport, DrawsOnePointAndIntervalPerTimedTask) {
  std::string html = render_html_report({sample_run("runs/a")}, "kbx");
  EXPECT_EQ(count_of(html, "<circle class=\"point\""), 2U);
  EXPECT_NE(html.find("<g class=\"faster\"><title>Math/add.py: 1.500x [1.400, 1.600] faster"),
            std::string::npos);
  EXPECT_NE(html.find("<g class=\"slower\">"), std::string::npos);
}

TEST(HtmlReport, ARunWithoutTimedTasksSaysSoInsteadOfAnEmptyChart) {
  NamedRun run = sample_run("cpu");
  for (auto& r : run.model.rows) {
    r.perf_ok = false;
  }
  std::string html = render_html_report({run}, "kbx");
  EXPECT_EQ(html.find("<svg data-run="), std::string::npos);
  EXPECT_NE(html.find("No timed tasks in this run"), std::string::npos);
  EXPECT_NE(html.find("No timed submissions (perf runs only on CUDA"), std::string::npos);
  EXPECT_EQ(html.find("id=\"plot-speedup-distribution\""), std::string::npos);
}

TEST(HtmlReport, EscapesEveryTextFromTheRun) {
  std::string html = render_html_report({sample_run("runs/<b>")}, "kbx");
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(html.find("<conv>"), std::string::npos);
  EXPECT_EQ(html.find("runs/<b>"), std::string::npos);
  EXPECT_NE(html.find("Conv/&lt;conv&gt;.py"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(count_of(html, "<script>"), 1U);  // the page's own
}

TEST(HtmlReport, IsSelfContained) {
  std::string html = render_html_report({sample_run("a")}, "kbx");
  std::regex external(R"((src|href)\s*=\s*["']?(https?:|//))");
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(HtmlReport, PutsSeveralRunsSideBySide) {
  NamedRun b = sample_run("runs/b");
  b.model.rows[2].outcome = "ok";
  b.model.rows[2].exe_ok = true;
  std::string html = render_html_report({sample_run("runs/a"), b}, "kbx");
  EXPECT_NE(html.find("<th>runs/a: Outcome</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>runs/b: Outcome</th>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<div class=\"card\""), 2U);
  EXPECT_EQ(count_of(html, "<tr data-task="), 3U);  // one line per task, a column group per run
  EXPECT_EQ(count_of(html, "<svg data-run="), 2U);
  EXPECT_NE(html.find("2 runs: runs/a, runs/b"), std::string::npos);
}

TEST(HtmlReport, GroupsFailuresByOutcomeAndReason) {
  std::string html = render_html_report({sample_run("a")}, "kbx");
  EXPECT_NE(html.find("<td class=\"o-bad\">incorrect</td><td>value_mismatch</td>"
                      "<td class=\"num\">1</td><td>Conv/&lt;conv&gt;.py</td>"),
            std::string::npos);
}

TEST(HtmlReport, DrawsTheAnalysesEachWithACsvLink) {
  std::string html = render_html_report({sample_run("a")}, "kbx");
  for (const char* id :
       {"id=\"heatmap\"", "id=\"plot-heatmap\"", "id=\"plot-speedup-distribution\"",
        "id=\"iterations\"", "id=\"cross-device\"", "id=\"taxonomy\"", "id=\"plot-taxonomy\"",
        "id=\"diagnostics\"", "id=\"utilisation\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  // Math x one_shot: 2 of 2 correct; Conv x one_shot: 0 of 1.
  EXPECT_NE(html.find("<title>Math x one_shot: 2 of 2 correct</title>"), std::string::npos);
  EXPECT_NE(html.find("100% (2/2)"), std::string::npos);
  EXPECT_NE(html.find("download=\"pass_rates_category_method.csv\" href=\"data:text/csv;"
                      "charset=utf-8,category%2Cmethod%2Csubmissions%2Cexe_pass%2Cexe_rate%0A"),
            std::string::npos);
  EXPECT_NE(html.find("download=\"speedups_per_category.csv\""), std::string::npos);
  EXPECT_NE(html.find("download=\"failure_taxonomy.csv\""), std::string::npos);
  EXPECT_NE(html.find("No method with several rounds"), std::string::npos);
  EXPECT_NE(html.find("Every run with the same labels is on one device"), std::string::npos);
}

TEST(HtmlReport, DrawsBandwidthAndTheSpreadAcrossDevicesWhenRunsHaveThem) {
  NamedRun h200 = sample_run("runs/h200");
  NamedRun a100 = sample_run("runs/a100");
  a100.model.device = "cuda:0 NVIDIA A100";
  a100.model.rows[0].speedup = 6.0;  // Math/add.py: 1.5x on the H200, 6x on the A100
  h200.model.rows[0].gbs = 2000;
  h200.model.rows[1].gbs = 900;
  std::string html = render_html_report({h200, a100}, "kbx");
  EXPECT_NE(html.find("id=\"plot-utilisation\""), std::string::npos);
  EXPECT_NE(html.find("<title>Math/add.py (runs/h200): 2e+03 GB/s</title>"), std::string::npos);
  EXPECT_NE(html.find("id=\"plot-spread-0\""), std::string::npos);
  EXPECT_NE(html.find("<title>Math/add.py: 4x</title>"), std::string::npos);
  EXPECT_NE(html.find("download=\"cross_device_0.csv\""), std::string::npos);
  EXPECT_NE(html.find("<h3>method=one_shot</h3>"), std::string::npos);
}

TEST(HtmlReport, TheBandwidthPlotMarksTheMeasuredCopyBandwidthWhenEveryRunHasIt) {
  NamedRun run = sample_run("runs/h200");
  run.model.rows[0].gbs = 5000;  // beyond the copy: the byte model counts unfused traffic
  std::string without = render_html_report({run}, "kbx");
  EXPECT_NE(without.find("No measured ceilings in these runs"), std::string::npos);
  run.model.ceilings = Json{{"name", "NVIDIA H200"}, {"copy_gbs", 4288.0}};
  std::string html = render_html_report({run}, "kbx");
  EXPECT_NE(html.find("copy bandwidth kbx calibrate measured on this device, 4288 GB/s"),
            std::string::npos);
  EXPECT_NE(html.find(">copy 4288 GB/s</text>"), std::string::npos);
  NamedRun other = sample_run("runs/a100");
  other.model.ceilings = Json{{"name", "NVIDIA A100"}, {"copy_gbs", 1800.0}};
  EXPECT_EQ(render_html_report({run, other}, "kbx").find(">copy 4288 GB/s</text>"),
            std::string::npos);  // different devices: no single line
}

TEST(HtmlReport, TheTaskTableShowsEachTasksShareOfTheMeasuredCeilings) {
  NamedRun run = sample_run("runs/h200");
  EXPECT_EQ(render_html_report({run}, "kbx").find("% of ceiling</th>"), std::string::npos);
  run.model.ceilings = Json{{"name", "NVIDIA H200"}, {"copy_gbs", 4288.0}};
  run.model.rows[0].bandwidth_utilisation = 0.62;
  run.model.rows[1].bandwidth_utilisation = 0.31;
  run.model.rows[1].compute_utilisation = 1.2;  // over the matmul peak: suspect
  run.model.rows[1].utilisation_suspect = true;
  std::string html = render_html_report({run}, "kbx");
  EXPECT_NE(html.find("% of ceiling</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\" data-sort=\"0.62\">62% bw</td>"), std::string::npos);
  EXPECT_NE(html.find("data-sort=\"1.2\" title=\"over 100% of a measured ceiling: suspect\">31% bw, "
                      "120% mm !</td>"),
            std::string::npos);
  // The incorrect task has no figure; its cell sorts last.
  EXPECT_NE(html.find("<td class=\"num\" data-sort=\"\">-</td>"), std::string::npos);
}

TEST(HtmlReport, LinksEachTaskRowToItsDiagnostics) {
  std::string html = render_html_report({sample_run("a")}, "kbx");
  EXPECT_NE(html.find("<td><a href=\"#diag-Math-add-py\">Math/add.py</a></td>"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"diag\" id=\"diag-Math-add-py\">"), std::string::npos);
  EXPECT_EQ(count_of(html, "<details class=\"diag\""), 3U);
  EXPECT_NE(html.find("class=\"grid sortable\" id=\"task-table\""), std::string::npos);
}

TEST(HtmlReport, ShowsTheBestKnownSpeedupBesideTheRuns) {
  NamedRun expert = sample_run("solutions");
  expert.model.rows[0].speedup = 3.0;
  HtmlOptions options;
  options.best_known = &expert;
  std::string html = render_html_report({sample_run("a")}, "kbx", options);
  EXPECT_NE(html.find(">Best known</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num best\" data-sort=\"3\">3.00x</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"num best\" data-sort=\"\">incorrect</td>"), std::string::npos);
  EXPECT_EQ(render_html_report({sample_run("a")}, "kbx").find(">Best known</th>"),
            std::string::npos);
}

}  // namespace
}  // namespace kbx::report
