// Tests of `kbx analyze`: grouping by labels and categories, rates, fast_p and unsolved tasks.
#include <gtest/gtest.h>

#include <cmath>

#include "kbx/common/error.h"
#include "kbx/report/analyze.h"

namespace kbx::report {
namespace {

using V = stats::SpeedupVerdict;

SubmissionRow row(const std::string& file, bool exe_ok, double speedup = 0, V verdict = V::none,
                  double low = 0, double high = 0) {
  SubmissionRow r;
  r.file = file;
  r.category = file.substr(0, file.find('/'));
  r.call_ok = true;
  r.exe_ok = exe_ok;
  r.perf_ok = speedup > 0;
  r.speedup = speedup;
  r.speedup_verdict = verdict;
  if (speedup > 0) {
    r.speedup_ci = stats::Interval{low, high};
  }
  return r;
}

NamedRun run(const std::string& name, const std::string& method, std::vector<SubmissionRow> rows) {
  NamedRun r;
  r.name = name;
  r.model.rows = std::move(rows);
  r.model.labels["method"] = method;
  return r;
}

std::vector<NamedRun> two_methods() {
  return {run("a", "one-shot",
              {row("Math/x.py", true, 2.0, V::faster, 1.9, 2.1),
               row("Math/y.py", true, 0.5, V::slower, 0.45, 0.55),
               row("Quantization/q.py", false)}),
          run("b", "repair",
              {row("Math/x.py", true, 1.01, V::same, 1.005, 1.015),
               row("Math/y.py", false),
               row("Quantization/q.py", false)})};
}

TEST(Analyze, GroupsByALabelWithRatesGeomeanAndSlowerShare) {
  auto a = analyze_runs(two_methods(), {"method"});
  ASSERT_EQ(a.groups.size(), 2U);
  const auto& one_shot = a.groups[0];  // sorted: "one-shot" < "repair"
  EXPECT_EQ(one_shot.key, std::vector<std::string>{"one-shot"});
  EXPECT_EQ(one_shot.submissions, 3);
  EXPECT_EQ(one_shot.exe_pass, 2);
  EXPECT_EQ(one_shot.perf_pass, 2);
  EXPECT_DOUBLE_EQ(*one_shot.geomean_speedup, 1.0);  // sqrt(2 * 0.5)
  EXPECT_EQ(one_shot.slower_point, 1);
  EXPECT_EQ(one_shot.slower_verdict, 1);
  // fast_0, 0.5, 0.8, 1, 1.5, 2: x clears up to 1.5 (low 1.9); y clears none (low 0.45).
  EXPECT_EQ(one_shot.fast_p, (std::vector<int>{2, 1, 1, 1, 1, 0}));
  const auto& repair = a.groups[1];
  // x's interval [1.005, 1.015] is `same`: it clears 0.5 and 0.8 but is no win over eager.
  EXPECT_EQ(repair.fast_p, (std::vector<int>{1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(a.overall.submissions, 6);
  EXPECT_EQ(a.tasks, 3);
  EXPECT_EQ(a.unsolved, std::vector<std::string>{"Quantization/q.py"});
}

TEST(Analyze, GroupsByTwoDimensionsAndMissingLabelsReadAsDash) {
  auto runs = two_methods();
  runs[1].model.labels.clear();
  runs[1].model.labels["round"] = "1";
  auto a = analyze_runs(runs, {"category", "method"});
  ASSERT_EQ(a.groups.size(), 4U);
  EXPECT_EQ(a.groups[0].key, (std::vector<std::string>{"Math", "-"}));
  EXPECT_EQ(a.groups[1].key, (std::vector<std::string>{"Math", "one-shot"}));
  auto j = analysis_json(a);
  EXPECT_EQ(j["groups"][1]["category"], "Math");
  EXPECT_EQ(j["groups"][1]["fast_1_5"], 0.5);
  EXPECT_EQ(j["unsolved_tasks"][0], "Quantization/q.py");
  std::string csv = analysis_csv(a);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "category,method,submissions,call_pass,exe_pass,perf_pass,geomean_speedup,"
            "slower_than_eager,slower_than_eager_by_interval,fast_0,fast_0_5,fast_0_8,fast_1,"
            "fast_1_5,fast_2");
  EXPECT_NE(csv.find("\nALL,,6,"), std::string::npos) << csv;
}

TEST(Analyze, UnknownOrRepeatedDimensionsAreUsageErrors) {
  EXPECT_THROW(analyze_runs(two_methods(), {"gpu_kind"}), Error);
  EXPECT_THROW(analyze_runs(two_methods(), {"method", "method"}), Error);
  EXPECT_NO_THROW(analyze_runs(two_methods(), {}));
}

TEST(Analyze, TheTableHasAHeaderAGroupLineATotalAndTheUnsolvedTasks) {
  std::string text = render_analysis(analyze_runs(two_methods(), {"method"}));
  EXPECT_EQ(text.rfind("method", 0), 0U) << text;
  EXPECT_NE(text.find("\none-shot"), std::string::npos) << text;
  EXPECT_NE(text.find("\nALL"), std::string::npos) << text;
  EXPECT_NE(text.find("3 tasks; 1 with no correct submission in any run: Quantization/q.py"),
            std::string::npos)
      << text;
}

TEST(Analyze, TheDevianceOfExeSuccessIsSharedOutByTwoDimensions) {
  auto d = exe_deviance(two_methods(), "category", "method");
  ASSERT_TRUE(d.ok()) << d.error().what();
  EXPECT_EQ(d.value().n_trials, 6);
  EXPECT_EQ(d.value().a.terms, "category");
  EXPECT_EQ(d.value().b.terms, "method");
  EXPECT_TRUE(d.value().a.separation);  // Quantization never passes
  EXPECT_GT(d.value().a.share, d.value().b.share);
  EXPECT_GE(d.value().ab.share, d.value().a.share);
  EXPECT_LE(d.value().ab.share, 1.0);
  std::string text = render_deviance(d.value());
  EXPECT_NE(text.find("6 submissions"), std::string::npos) << text;
  EXPECT_NE(text.find("category given method: LR"), std::string::npos) << text;
  EXPECT_EQ(deviance_json(d.value())["a"]["terms"], "category");
  auto unknown = exe_deviance(two_methods(), "category", "gpu_kind");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.error().what()).find("gpu_kind"), std::string::npos);
}

}  // namespace
}  // namespace kbx::report
