// Tests of the smaller analyses: utilisation, best known, cross-device groups, the Markdown
// summary.
#include <gtest/gtest.h>

#include "kbx/report/best_known.h"
#include "kbx/report/markdown_report.h"
#include "kbx/report/utilisation.h"

namespace kbx::report {
namespace {

SubmissionRow row(const std::string& file, bool ok, double speedup = 0, double gbs = 0) {
  SubmissionRow r;
  r.file = file;
  r.category = file.substr(0, file.find('/'));
  r.submission_id = "id-" + file;
  r.call_ok = true;
  r.exe_ok = ok;
  r.outcome = ok ? "ok" : "incorrect";
  r.reason = ok ? "" : "nan_mismatch";
  r.perf_ok = speedup > 0;
  r.speedup = speedup;
  r.gbs = gbs;
  return r;
}

NamedRun run(const std::string& name, const std::string& device, std::vector<SubmissionRow> rows,
             const std::string& method = "one-shot") {
  NamedRun r;
  r.name = name;
  r.model.device = device;
  r.model.labels["method"] = method;
  r.model.rows = std::move(rows);
  for (std::size_t i = 0; i < r.model.rows.size(); ++i) {
    r.model.task_rows.push_back(i);
  }
  return r;
}

TEST(Utilisation, SummarisesGbsOfCorrectTimedRowsPerCategory) {
  auto u = utilisation({run("a", "gpu",
                            {row("Math/a.py", true, 1, 100), row("Math/b.py", true, 1, 300),
                             row("Math/c.py", true, 1, 200), row("Math/d.py", false, 0, 999),
                             row("Reduce/s.py", true, 1, 0)})});
  ASSERT_EQ(u.size(), 3U);  // Math, Reduce, ALL
  EXPECT_EQ(u[0].group, "Math");
  EXPECT_EQ(u[0].gbs.n, 3);
  EXPECT_DOUBLE_EQ(u[0].gbs.median, 200);
  EXPECT_DOUBLE_EQ(u[0].gbs.max, 300);
  EXPECT_EQ(u[1].gbs.n, 0);  // no declared bytes
  EXPECT_EQ(u[2].group, "ALL");
  Peaks peaks{400.0, std::nullopt};
  Json j = utilisation_json(u, peaks);
  EXPECT_DOUBLE_EQ(j["groups"][0]["gbs"]["utilisation_median"].get<double>(), 0.5);
  EXPECT_NE(utilisation_csv(u, peaks).find("Math,gbs,3,100,100,200,300,300,0.5\n"),
            std::string::npos);
}

TEST(BestKnown, PutsTheExpertSpeedupBesideEachRunsPerTask) {
  auto expert = run("solutions", "gpu", {row("Math/a.py", true, 2.0), row("Math/b.py", false)});
  auto a = run("a", "gpu", {row("Math/a.py", true, 2.5), row("Math/b.py", true, 1.1)});
  auto b = run("b", "gpu", {row("Math/a.py", true, 1.0), row("Math/c.py", false)});
  BestKnown k = best_known(expert, {a, b});
  ASSERT_EQ(k.rows.size(), 3U);
  EXPECT_EQ(k.rows[0].task, "Math/a.py");
  EXPECT_DOUBLE_EQ(*k.rows[0].best.speedup, 2.0);
  EXPECT_DOUBLE_EQ(*k.rows[0].runs[0].speedup, 2.5);
  EXPECT_EQ(k.rows[1].best.outcome, "incorrect");
  EXPECT_FALSE(k.rows[1].best.speedup);
  EXPECT_EQ(k.rows[2].best.outcome, "");  // the expert run has no Math/c.py
  EXPECT_EQ(k.both_timed, (std::vector<int>{1, 1}));
  EXPECT_EQ(k.at_least_best, (std::vector<int>{1, 0}));
  EXPECT_NE(best_known_csv(k).find("Math/a.py,ok,2,ok,2.5,ok,1\n"), std::string::npos)
      << best_known_csv(k);
}

TEST(CompareDevices, ComparesOnlyRunsWithTheSameLabelsOnSeveralDevices) {
  auto cpu = run("cpu", "cpu", {row("Math/a.py", true, 1.0)});
  auto h200 = run("h200", "cuda:0 NVIDIA H200", {row("Math/a.py", true, 4.0)});
  auto other = run("x", "cuda:0 NVIDIA H200", {row("Math/a.py", true, 1.0)}, "refine");
  auto groups = compare_devices({cpu, h200, other});
  ASSERT_EQ(groups.size(), 1U);
  EXPECT_EQ(groups[0].labels, "method=one-shot");
  EXPECT_DOUBLE_EQ(*groups[0].comparison.rows[0].spread, 4.0);
  EXPECT_TRUE(compare_devices({cpu, other}).empty());
}

TEST(MarkdownReport, HoldsTheHeadlineTables) {
  auto a = run("runs/a", "cpu", {row("Math/a.py", true), row("Math/b.py", false)});
  a.model.overall = make_totals({&a.model.rows[0], &a.model.rows[1]});
  a.model.task_totals = a.model.overall;
  auto expert = run("solutions", "cpu", {row("Math/a.py", true)});
  HtmlOptions options;
  options.best_known = &expert;
  std::string md = render_markdown_report({a}, "kbx 1", options);
  EXPECT_EQ(md.rfind("# kbx report\n", 0), 0U);
  EXPECT_NE(
      md.find("| runs/a | cpu | method=one-shot | 2 | 2 | 100.0% | 50.0% | 0.0% | - | 0.0% |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| Math | 50.0% (1/2) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| numerical | nan_inf | 1 | 100.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Best known (expert kernels: solutions)"), std::string::npos);
  EXPECT_EQ(md.find("## Iterations"), std::string::npos);
}

}  // namespace
}  // namespace kbx::report
