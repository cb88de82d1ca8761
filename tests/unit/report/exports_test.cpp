// Tests of the exports: metrics.json and summary.json in the public shape, kbx-results.json and
// kbx-results.csv, and the atomic writes.
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

// Four rows: Math/add.py ok (one workload, code quality measured), Conv/conv2d.py incorrect,
// Conv/pool.py pending, and a second Math/add.py that failed to compile (not kept for its task).
ReportModel sample_model() {
  ReportModel m;
  SubmissionRow ok;
  ok.file = "Math/add.py";
  ok.category = "Math";
  ok.submission_id = "sA";
  ok.origin = "preds.jsonl:1";
  ok.code = "def add(a, b):\n    return a + b\n";
  ok.dtype = "float16";
  ok.call_ok = ok.exe_ok = ok.perf_ok = ok.triton_ok = true;
  ok.outcome = "ok";
  ok.runtime_ms = 2;
  ok.ref_runtime_ms = 6;
  ok.gbs = 2000;
  ok.tflops = 1000;
  ok.speedup = 3;
  ok.avg_speedup = 3;
  ok.speedup_ci = stats::Interval{2.5, 3.5};
  ok.speedup_verdict = stats::SpeedupVerdict::faster;
  ok.code_quality = {1.0, 75.5, ""};
  WorkloadRow w;
  w.index = 0;
  w.params = {{"N", 1}};
  w.input_size = Json::parse("[[1024], [1024]]");
  w.dtype = "float16";
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
  bad.code = "x = 1";
  bad.call_ok = true;
  bad.outcome = "incorrect";
  bad.reason = "mismatch";
  bad.detail = "max abs err 0.5, at \"out[0]\"";
  bad.perf_note = "perf skipped: incorrect";

  SubmissionRow pending;
  pending.file = "Conv/pool.py";
  pending.category = "Conv";
  pending.submission_id = "sD";
  pending.origin = "preds.jsonl:3";
  pending.outcome = "pending";

  SubmissionRow again;
  again.file = "Math/add.py";
  again.category = "Math";
  again.submission_id = "sA2";
  again.origin = "preds.jsonl:4";
  again.outcome = "compile_error";
  again.reason = "SyntaxError";

  m.rows = {ok, bad, pending, again};
  m.task_rows = {0, 1, 2};
  m.task_totals = totals(3, 2, 1, 1, 3, 1);
  m.categories = {{"Conv", totals(2, 1, 0, 0, 0, 0)}, {"Math", totals(2, 1, 1, 1, 3, 1)}};
  m.overall = totals(4, 2, 1, 1, 3, 1);
  m.outcomes = {{"ok", 1}, {"incorrect", 1}, {"compile_error", 1}, {"pending", 1}};
  m.input_errors = {{1, "preds.jsonl:7", "not JSON"}};
  m.environment = {{"gpu", "NVIDIA H200"}};
  m.device = "cuda:0 NVIDIA H200";
  m.labels = {{"method", "reflexion"}};
  m.code_quality_tool = "radon 6.0.1";
  return m;
}

// ---- metrics.json -------------------------------------------------------------------------

TEST(MetricsJson, IsAnObjectKeyedByTaskFileWithOneRecordPerTask) {
  Json metrics = metrics_json(sample_model());
  ASSERT_TRUE(metrics.is_object());
  EXPECT_EQ(keys_of(metrics),
            (std::vector<std::string>{"Math/add.py", "Conv/conv2d.py", "Conv/pool.py"}));
  EXPECT_EQ(metrics["Math/add.py"]["exe_ok"], true);  // the kept row, not the later failure
}

TEST(MetricsJson, EachRecordHasExactlyThePublicFields) {
  std::vector<std::string> expected = {"call_ok", "exe_ok",       "perf_ok",        "method",
                                       "speedup", "avg_speedup",  "runtime_ms",     "gbs",
                                       "tflops",  "dtype",        "performance",    "error",
                                       "code",    "code_quality", "maintainability"};
  Json metrics = metrics_json(sample_model());
  for (const auto& item : metrics.items()) {
    EXPECT_EQ(keys_of(item.value()), expected) << item.key();
  }
}

TEST(MetricsJson, ATimedRecordCarriesItsFiguresAndPerWorkloadPerformance) {
  Json r = metrics_json(sample_model())["Math/add.py"];
  EXPECT_EQ(r["call_ok"], true);
  EXPECT_EQ(r["perf_ok"], true);
  EXPECT_EQ(r["method"], "reflexion");
  EXPECT_EQ(r["speedup"], 3.0);
  EXPECT_EQ(r["avg_speedup"], 3.0);
  EXPECT_EQ(r["runtime_ms"], 2.0);
  EXPECT_EQ(r["gbs"], 2000.0);
  EXPECT_EQ(r["tflops"], 1000.0);
  EXPECT_EQ(r["dtype"], "torch.float16");
  EXPECT_EQ(r["error"], "");
  EXPECT_EQ(r["code"], "def add(a, b):\n    return a + b\n");
  EXPECT_EQ(r["code_quality"], 1.0);
  EXPECT_EQ(r["maintainability"], 75.5);
  ASSERT_EQ(r["performance"].size(), 1U);
  EXPECT_EQ(r["performance"][0], Json::parse(R"({"input_size": [[1024], [1024]], "ms": 2.0,
                                                  "GB/s": 2000.0, "TFLOPS": 1000.0})"));
}

TEST(MetricsJson, MissingFiguresAreNAAndTheErrorSaysWhatWentWrong) {
  Json metrics = metrics_json(sample_model());
  const Json& bad = metrics["Conv/conv2d.py"];
  for (const char* field : {"speedup", "avg_speedup", "runtime_ms", "gbs", "tflops", "dtype",
                            "code_quality", "maintainability"}) {
    EXPECT_EQ(bad[field], "N/A") << field;
  }
  EXPECT_EQ(bad["performance"], Json::array());
  EXPECT_EQ(bad["call_ok"], true);
  EXPECT_EQ(bad["exe_ok"], false);
  EXPECT_EQ(bad["error"], "incorrect (mismatch): max abs err 0.5, at \"out[0]\"");
  EXPECT_EQ(metrics["Conv/pool.py"]["error"], "pending: not evaluated yet");
  EXPECT_EQ(metrics["Conv/pool.py"]["method"], "reflexion");
}

TEST(MetricsJson, AWorkloadWithoutRecordedInputSizesSaysNA) {
  ReportModel m = sample_model();
  m.rows[0].workloads[0].input_size = Json::array();
  EXPECT_EQ(metrics_json(m)["Math/add.py"]["performance"][0]["input_size"], "N/A");
}

TEST(MetricsJson, AnUnlabelledRunHasAnEmptyMethod) {
  ReportModel m = sample_model();
  m.labels.clear();
  EXPECT_EQ(metrics_json(m)["Math/add.py"]["method"], "");
}

// ---- summary.json -------------------------------------------------------------------------

TEST(SummaryJson, HasExactlyThePublicFieldsOverDistinctTasksWithPercentRates) {
  Json summary = summary_json(sample_model());
  EXPECT_EQ(keys_of(summary),
            (std::vector<std::string>{"total", "call_pass", "call_rate", "exe_pass", "exe_rate",
                                      "perf_pass", "perf_rate", "avg_speedup_global",
                                      "avg_speedup_per_task"}));
  EXPECT_EQ(summary["total"], 3);  // three tasks, four submissions
  EXPECT_EQ(summary["call_pass"], 2);
  EXPECT_EQ(summary["call_rate"], 66.7);  // percent, one decimal
  EXPECT_EQ(summary["exe_pass"], 1);
  EXPECT_EQ(summary["exe_rate"], 33.3);
  EXPECT_EQ(summary["perf_pass"], 1);
  EXPECT_EQ(summary["perf_rate"], 33.3);
  EXPECT_EQ(summary["avg_speedup_global"], 3.0);
  EXPECT_EQ(summary["avg_speedup_per_task"], 3.0);
}

TEST(SummaryJson, WithoutRowsRatesAreZeroAndSpeedupsNA) {
  Json summary = summary_json(ReportModel{});
  EXPECT_EQ(summary["total"], 0);
  EXPECT_EQ(summary["call_rate"], 0.0);
  EXPECT_EQ(summary["exe_rate"], 0.0);
  EXPECT_EQ(summary["perf_rate"], 0.0);
  EXPECT_EQ(summary["avg_speedup_global"], "N/A");
  EXPECT_EQ(summary["avg_speedup_per_task"], "N/A");
}

// ---- kbx-results.json ---------------------------------------------------------------------

TEST(KbxResultsJson, HoldsEverySubmissionInSourceOrderAndMarksTheOnesInMetricsJson) {
  Json results = kbx_results_json(sample_model());
  EXPECT_EQ(results["format"], "kbx-results/1");
  const Json& subs = results["submissions"];
  ASSERT_EQ(subs.size(), 4U);
  std::vector<std::string> ids;
  std::vector<bool> kept;
  for (const Json& s : subs) {
    ids.push_back(s["submission_id"]);
    kept.push_back(s["in_metrics_json"]);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"sA", "sC", "sD", "sA2"}));
  EXPECT_EQ(kept, (std::vector<bool>{true, true, true, false}));
}

TEST(KbxResultsJson, ASubmissionRecordKeepsKbxsFiguresWithNullForMissingOnes) {
  Json subs = kbx_results_json(sample_model())["submissions"];
  const Json& a = subs[0];
  EXPECT_EQ(a["file"], "Math/add.py");
  EXPECT_EQ(a["outcome"], "ok");
  EXPECT_EQ(a["speedup"], 3.0);
  EXPECT_EQ(a["avg_speedup"], 3.0);
  EXPECT_EQ(a["ref_runtime_ms"], 6.0);
  EXPECT_EQ(a["speedup_ci_low"], 2.5);
  EXPECT_EQ(a["speedup_ci_high"], 3.5);
  EXPECT_EQ(a["speedup_verdict"], "faster");
  EXPECT_EQ(a["code_quality"], 1.0);
  EXPECT_EQ(a["maintainability"], 75.5);
  EXPECT_EQ(a["origin"], "preds.jsonl:1");
  ASSERT_EQ(a["workloads"].size(), 1U);
  const Json& w = a["workloads"][0];
  EXPECT_EQ(w["params"], Json({{"N", 1}}));
  EXPECT_EQ(w["input_size"], Json::parse("[[1024], [1024]]"));
  EXPECT_EQ(w["dtype"], "float16");
  EXPECT_EQ(w["runtime_ms"], 2.0);
  EXPECT_EQ(w["runtime_ms_q1"], 1.5);
  EXPECT_EQ(w["runtime_ms_q3"], 2.5);
  EXPECT_EQ(w["n_samples"], 3);
  EXPECT_EQ(w["ref_runtime_ms"], 6.0);
  EXPECT_EQ(w["speedup"], 3.0);
  const Json& bad = subs[1];
  EXPECT_EQ(bad["reason"], "mismatch");
  EXPECT_EQ(bad["perf_note"], "perf skipped: incorrect");
  EXPECT_EQ(bad["speedup_verdict"], "none");
  EXPECT_TRUE(bad["speedup_ci_low"].is_null());
  EXPECT_TRUE(bad["code_quality"].is_null());
  EXPECT_EQ(subs[2]["outcome"], "pending");
}

TEST(KbxResultsJson, ItsSummaryHasKbxsTotalsOverEverySubmissionAsFractions) {
  Json summary = kbx_results_json(sample_model())["summary"];
  EXPECT_EQ(summary, kbx_summary_json(sample_model()));
  EXPECT_EQ(summary["total"], 4);
  EXPECT_EQ(summary["tasks"], 3);
  EXPECT_DOUBLE_EQ(summary["call_rate"].get<double>(), 0.5);  // a fraction
  EXPECT_EQ(summary["geomean_speedup"], 3.0);
  EXPECT_EQ(summary["speedup_verdicts"].dump(),
            R"({"faster":1,"same":0,"slower":0,"ambiguous":0,"none":3})");
  EXPECT_DOUBLE_EQ(summary["fast_1"].get<double>(), 0.25);
  EXPECT_EQ(keys_of(summary["categories"]), (std::vector<std::string>{"Conv", "Math"}));
  EXPECT_EQ(summary["categories"]["Conv"]["call_rate"], 0.5);
  EXPECT_EQ(summary["outcomes"]["compile_error"], 1);
  EXPECT_EQ(summary["input_errors"],
            Json::parse(R"([{"origin": "preds.jsonl:7", "message": "not JSON"}])"));
  EXPECT_EQ(summary["environment"], Json({{"gpu", "NVIDIA H200"}}));
  EXPECT_EQ(summary["device"], "cuda:0 NVIDIA H200");
  EXPECT_EQ(summary["labels"], Json({{"method", "reflexion"}}));
  EXPECT_EQ(summary["code_quality_tool"], "radon 6.0.1");
}

// ---- kbx-results.csv ----------------------------------------------------------------------

TEST(KbxResultsCsv, HasAHeaderAndOneQuotedLinePerSubmission) {
  std::string csv = kbx_results_csv(sample_model());
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = csv.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(csv.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_EQ(lines[0].substr(0, 45), "file,category,submission_id,origin,outcome,re");
  EXPECT_EQ(lines[1],
            "Math/add.py,Math,sA,preds.jsonl:1,ok,,true,true,true,true,2,6,3,3,2.5,3.5,faster,"
            "2000,1000,1,75.5,true,");
  EXPECT_EQ(lines[2],
            "Conv/conv2d.py,Conv,sC,preds.jsonl:2,incorrect,mismatch,true,false,false,false,,,,,,"
            ",none,,,,,true,\"max abs err 0.5, at \"\"out[0]\"\"\"");
  EXPECT_EQ(lines[4].substr(0, 30), "Math/add.py,Math,sA2,preds.jso");
  EXPECT_NE(lines[4].find(",false,"), std::string::npos);  // not in metrics.json
}

// ---- the files ----------------------------------------------------------------------------

TEST(WriteExports, WritesTheFourFilesAndLeavesNoTemporaryFiles) {
  ScopedTempDir dir;
  auto out = dir.path() / "report";  // created if missing
  ReportModel model = sample_model();
  write_exports(model, out);
  EXPECT_EQ(Json::parse(kbx::testing::read_file(out / "metrics.json")), metrics_json(model));
  EXPECT_EQ(Json::parse(kbx::testing::read_file(out / "summary.json")), summary_json(model));
  EXPECT_EQ(Json::parse(kbx::testing::read_file(out / "kbx-results.json")),
            kbx_results_json(model));
  EXPECT_EQ(kbx::testing::read_file(out / "kbx-results.csv"), kbx_results_csv(model));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(out)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kbx-results.csv", "kbx-results.json", "metrics.json",
                                             "summary.json"}));
}

TEST(WriteExports, ReplacesFilesFromAnEarlierReport) {
  ScopedTempDir dir;
  dir.write("metrics.json", "stale and much longer than what replaces it ...................");
  write_exports(ReportModel{}, dir.path());
  EXPECT_EQ(kbx::testing::read_file(dir.path() / "metrics.json"), "{}\n");
}

TEST(WriteExports, AFolderThatCannotBeCreatedIsAnIoError) {
  ScopedTempDir dir;
  auto blocker = dir.write("file", "x");
  try {
    write_exports(ReportModel{}, blocker / "sub");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find((blocker / "sub").string()), std::string::npos);
  }
}

}  // namespace
}  // namespace kbx::report
