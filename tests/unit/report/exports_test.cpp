// Tests of metrics.json and summary.json: field names, order and values, and the atomic writes.
#include "kbx/report/exports.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kbx/common/error.h"
#include "support/test_support.h"

namespace kbx::report {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) {
    keys.push_back(item.key());
  }
  return keys;
}

// Totals with every speedup figure `speedup` and `faster` interval wins among the timed rows.
Totals totals(int total, int call_pass, int exe_pass, int perf_pass, double speedup, int faster) {
  Totals t;
  t.total = total;
  t.call_pass = call_pass;
  t.exe_pass = exe_pass;
  t.perf_pass = perf_pass;
  t.avg_speedup_global = t.avg_speedup_per_task = t.geomean_speedup = speedup;
  t.faster_than_reference = faster;
  t.verdicts.faster = faster;
  t.verdicts.none = total - perf_pass;
  t.fast_1_pass = t.fast_1_5_pass = t.fast_2_pass = faster;
  return t;
}

// Three rows: Math/add.py ok (one workload), Conv/conv2d.py incorrect, Conv/pool.py pending.
ReportModel sample_model() {
  ReportModel m;
  SubmissionRow ok;
  ok.file = "Math/add.py";
  ok.category = "Math";
  ok.submission_id = "sA";
  ok.origin = "preds.jsonl:1";
  ok.call_ok = ok.exe_ok = ok.perf_ok = ok.triton_ok = true;
  ok.outcome = "ok";
  ok.runtime_ms = 2;
  ok.ref_runtime_ms = 6;
  ok.gbs = 2000;
  ok.tflops = 1000;
  ok.speedup = 3;
  ok.speedup_ci = stats::Interval{2.5, 3.5};
  ok.speedup_verdict = stats::SpeedupVerdict::faster;
  WorkloadRow w;
  w.index = 0;
  w.params = {{"N", 1}};
  w.bytes = 4e9;
  w.flops = 2e12;
  std::vector<double> candidate = {3, 1, 2};
  std::vector<double> reference = {6, 6, 6};
  w.candidate_ms = stats::summarize(candidate);
  w.reference_ms = stats::summarize(reference);
  w.gbs = 2000;
  w.tflops = 1000;
  w.speedup = 3;
  ok.workloads.push_back(w);

  SubmissionRow bad;
  bad.file = "Conv/conv2d.py";
  bad.category = "Conv";
  bad.submission_id = "sC";
  bad.origin = "preds.jsonl:2";
  bad.call_ok = true;
  bad.outcome = "incorrect";
  bad.reason = "mismatch";
  bad.detail = "max abs err 0.5";
  bad.perf_note = "perf skipped: incorrect";

  SubmissionRow pending;
  pending.file = "Conv/pool.py";
  pending.category = "Conv";
  pending.submission_id = "sD";
  pending.origin = "preds.jsonl:3";
  pending.outcome = "pending";

  m.rows = {ok, bad, pending};
  m.categories = {{"Conv", totals(2, 1, 0, 0, 0, 0)}, {"Math", totals(1, 1, 1, 1, 3, 1)}};
  m.overall = totals(3, 2, 1, 1, 3, 1);
  m.outcomes = {{"ok", 1}, {"incorrect", 1}, {"pending", 1}};
  m.input_errors = {{1, "preds.jsonl:7", "not JSON"}};
  m.environment = {{"gpu", "NVIDIA H200"}};
  m.device = "cuda:0 NVIDIA H200";
  return m;
}

TEST(MetricsJson, EachRowHasKernelBenchXFieldsFirstThenKbxFields) {
  Json metrics = metrics_json(sample_model());
  ASSERT_TRUE(metrics.is_array());
  ASSERT_EQ(metrics.size(), 3U);
  std::vector<std::string> expected = {
      "file",           "call_ok",         "exe_ok",          "perf_ok",       "runtime_ms",
      "gbs",            "tflops",          "speedup",         "category",      "outcome",
      "reason",         "detail",          "triton_ok",       "perf_note",     "ref_runtime_ms",
      "speedup_ci_low", "speedup_ci_high", "speedup_verdict", "host_synchronising",
      "submission_id",  "origin",          "workloads"};
  for (const Json& row : metrics) {
    EXPECT_EQ(keys_of(row), expected);
  }
}

TEST(MetricsJson, AnOkRowCarriesItsNumbersAndPerWorkloadStatistics) {
  Json row = metrics_json(sample_model())[0];
  EXPECT_EQ(row["file"], "Math/add.py");
  EXPECT_EQ(row["call_ok"], true);
  EXPECT_EQ(row["exe_ok"], true);
  EXPECT_EQ(row["perf_ok"], true);
  EXPECT_EQ(row["runtime_ms"], 2.0);
  EXPECT_EQ(row["gbs"], 2000.0);
  EXPECT_EQ(row["tflops"], 1000.0);
  EXPECT_EQ(row["speedup"], 3.0);
  EXPECT_EQ(row["category"], "Math");
  EXPECT_EQ(row["outcome"], "ok");
  EXPECT_EQ(row["triton_ok"], true);
  EXPECT_EQ(row["ref_runtime_ms"], 6.0);
  EXPECT_EQ(row["speedup_ci_low"], 2.5);
  EXPECT_EQ(row["speedup_ci_high"], 3.5);
  EXPECT_EQ(row["speedup_verdict"], "faster");
  EXPECT_EQ(row["host_synchronising"], false);
  EXPECT_EQ(row["submission_id"], "sA");
  EXPECT_EQ(row["origin"], "preds.jsonl:1");
  ASSERT_EQ(row["workloads"].size(), 1U);
  const Json& w = row["workloads"][0];
  EXPECT_EQ(keys_of(w), (std::vector<std::string>{"index", "params", "bytes", "flops", "runtime_ms",
                                                  "runtime_ms_q1", "runtime_ms_q3", "n_samples",
                                                  "ref_runtime_ms", "gbs", "tflops", "speedup",
                                                  "host_synchronising"}));
  EXPECT_EQ(w["index"], 0);
  EXPECT_EQ(w["params"], Json({{"N", 1}}));
  EXPECT_EQ(w["bytes"], 4e9);
  EXPECT_EQ(w["flops"], 2e12);
  EXPECT_EQ(w["runtime_ms"], 2.0);
  EXPECT_EQ(w["runtime_ms_q1"], 1.5);
  EXPECT_EQ(w["runtime_ms_q3"], 2.5);
  EXPECT_EQ(w["n_samples"], 3);
  EXPECT_EQ(w["ref_runtime_ms"], 6.0);
  EXPECT_EQ(w["speedup"], 3.0);
}

TEST(MetricsJson, FailedAndPendingRowsHaveZerosAndTheirVerdict) {
  Json metrics = metrics_json(sample_model());
  EXPECT_EQ(metrics[1]["outcome"], "incorrect");
  EXPECT_EQ(metrics[1]["reason"], "mismatch");
  EXPECT_EQ(metrics[1]["detail"], "max abs err 0.5");
  EXPECT_EQ(metrics[1]["perf_note"], "perf skipped: incorrect");
  EXPECT_EQ(metrics[1]["call_ok"], true);
  EXPECT_EQ(metrics[1]["exe_ok"], false);
  EXPECT_EQ(metrics[2]["outcome"], "pending");
  EXPECT_EQ(metrics[2]["call_ok"], false);
  EXPECT_EQ(metrics[2]["speedup"], 0.0);
  EXPECT_EQ(metrics[2]["runtime_ms"], 0.0);
  EXPECT_EQ(metrics[2]["workloads"], Json::array());
  EXPECT_EQ(metrics[1]["speedup_verdict"], "none");
  EXPECT_TRUE(metrics[1]["speedup_ci_low"].is_null());
  EXPECT_TRUE(metrics[1]["speedup_ci_high"].is_null());
}

TEST(MetricsJson, ATimedRowWithoutAnIntervalIsAmbiguousWithNullBounds) {
  ReportModel m = sample_model();
  m.rows[0].speedup_ci.reset();
  m.rows[0].speedup_verdict = stats::SpeedupVerdict::ambiguous;
  Json row = metrics_json(m)[0];
  EXPECT_EQ(row["speedup"], 3.0);
  EXPECT_TRUE(row["speedup_ci_low"].is_null());
  EXPECT_TRUE(row["speedup_ci_high"].is_null());
  EXPECT_EQ(row["speedup_verdict"], "ambiguous");
}

TEST(SummaryJson, HasTheTotalsRatesAndBlocksInOrder) {
  Json summary = summary_json(sample_model());
  EXPECT_EQ(
      keys_of(summary),
      (std::vector<std::string>{
          "total", "call_pass", "call_rate", "exe_pass", "exe_rate", "perf_pass", "perf_rate",
          "avg_speedup_global", "avg_speedup_per_task", "geomean_speedup", "faster_than_reference",
          "speedup_verdicts", "fast_0", "fast_1", "fast_1_5", "fast_2", "categories", "outcomes",
          "input_errors", "environment", "device", "labels"}));
  EXPECT_EQ(summary["total"], 3);
  EXPECT_EQ(summary["call_pass"], 2);
  EXPECT_DOUBLE_EQ(summary["call_rate"].get<double>(), 2.0 / 3.0);  // a fraction, not percent
  EXPECT_EQ(summary["exe_pass"], 1);
  EXPECT_DOUBLE_EQ(summary["exe_rate"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(summary["perf_pass"], 1);
  EXPECT_DOUBLE_EQ(summary["perf_rate"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(summary["avg_speedup_global"], 3.0);
  EXPECT_EQ(summary["avg_speedup_per_task"], 3.0);
  EXPECT_EQ(summary["geomean_speedup"], 3.0);
  EXPECT_EQ(summary["faster_than_reference"], 1);
  EXPECT_EQ(summary["speedup_verdicts"].dump(),
            R"({"faster":1,"same":0,"slower":0,"ambiguous":0,"none":2})");
  EXPECT_DOUBLE_EQ(summary["fast_0"].get<double>(), 1.0 / 3.0);  // exe_rate
  EXPECT_DOUBLE_EQ(summary["fast_1"].get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(summary["fast_1_5"].get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(summary["fast_2"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(summary["outcomes"].dump(), R"({"ok":1,"incorrect":1,"pending":1})");
  EXPECT_EQ(summary["input_errors"],
            Json::parse(R"([{"origin": "preds.jsonl:7", "message": "not JSON"}])"));
  EXPECT_EQ(summary["environment"], Json({{"gpu", "NVIDIA H200"}}));
  EXPECT_EQ(summary["device"], "cuda:0 NVIDIA H200");
}

TEST(SummaryJson, CategoryBlocksHaveTheSameFieldsAsTheTotals) {
  Json summary = summary_json(sample_model());
  EXPECT_EQ(keys_of(summary["categories"]), (std::vector<std::string>{"Conv", "Math"}));
  const Json& conv = summary["categories"]["Conv"];
  std::vector<std::string> top = keys_of(summary);
  top.resize(16);  // "total" ... "fast_2"
  EXPECT_EQ(keys_of(conv), top);
  EXPECT_EQ(conv["total"], 2);
  EXPECT_EQ(conv["call_rate"], 0.5);
  EXPECT_EQ(conv["exe_rate"], 0.0);
  EXPECT_EQ(conv["geomean_speedup"], 0.0);
  EXPECT_EQ(summary["categories"]["Math"]["perf_rate"], 1.0);
}

TEST(SummaryJson, RatesAreZeroWhenThereAreNoRows) {
  Json summary = summary_json(ReportModel{});
  EXPECT_EQ(summary["total"], 0);
  EXPECT_EQ(summary["call_rate"], 0.0);
  EXPECT_EQ(summary["exe_rate"], 0.0);
  EXPECT_EQ(summary["perf_rate"], 0.0);
  EXPECT_EQ(summary["fast_0"], 0.0);
  EXPECT_EQ(summary["fast_2"], 0.0);
  EXPECT_EQ(summary["categories"], Json::object());
  EXPECT_EQ(summary["outcomes"], Json::object());
  EXPECT_EQ(summary["labels"], Json::object());
}

TEST(SummaryJson, CarriesTheRunsLabels) {
  ReportModel m;
  m.labels = {{"model", "m1"}, {"round", "1"}};
  EXPECT_EQ(summary_json(m)["labels"], (Json{{"model", "m1"}, {"round", "1"}}));
}

TEST(WriteJsonExports, WritesBothFilesAndLeavesNoTemporaryFiles) {
  ScopedTempDir dir;
  auto out = dir.path() / "report";  // created if missing
  ReportModel model = sample_model();
  write_json_exports(model, out);
  EXPECT_EQ(Json::parse(kbx::testing::read_file(out / "metrics.json")), metrics_json(model));
  EXPECT_EQ(Json::parse(kbx::testing::read_file(out / "summary.json")), summary_json(model));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(out)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"metrics.json", "summary.json"}));
}

TEST(WriteJsonExports, ReplacesFilesFromAnEarlierReport) {
  ScopedTempDir dir;
  dir.write("metrics.json", "stale and much longer than what replaces it ...................");
  write_json_exports(ReportModel{}, dir.path());
  EXPECT_EQ(kbx::testing::read_file(dir.path() / "metrics.json"), "[]\n");
}

TEST(WriteJsonExports, AFolderThatCannotBeCreatedIsAnIoError) {
  ScopedTempDir dir;
  auto blocker = dir.write("file", "x");
  try {
    write_json_exports(ReportModel{}, blocker / "sub");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find((blocker / "sub").string()), std::string::npos);
  }
}

}  // namespace
}  // namespace kbx::report
