// Tests of load_task and load_suite on task folders written into a temp dir.
#include <gtest/gtest.h>

#include <string>

#include "kbx/common/hash.h"
#include "kbx/suite/suite.h"
#include "support/test_support.h"
#include "unit/suite/suite_fixture.h"

namespace kbx::suite {
namespace {

using kbx::testing::ScopedTempDir;
using testing::valid_task;
using testing::write_task;
using testing::write_task_text;
namespace fs = std::filesystem;

// The task at `dir`; fails the test when it does not load.
Task load_ok(const fs::path& dir, const std::string& key) {
  auto r = load_task(dir, key);
  if (!r) {
    ADD_FAILURE() << "load_task failed: " << r.error().what();
    return {};
  }
  return std::move(r).value();
}

// The message of the error loading `dir` gives; fails the test when it loads.
std::string load_error(const fs::path& dir, const std::string& key) {
  auto r = load_task(dir, key);
  if (r) {
    ADD_FAILURE() << "expected " << key << " to fail to load";
    return {};
  }
  EXPECT_EQ(r.error().kind(), ErrorKind::suite);
  return r.error().what();
}

// A task whose perf section sweeps M and N over two workloads, with `args`/`kwargs` templates.
Json perf_task(const Json& args, const Json& kwargs = Json::object()) {
  Json task = valid_task("Math/softmax.py", "softmax");
  task["perf"] = Json{{"workloads", {{{"M", 4}, {"N", 8}}, {{"M", 16}, {"N", 32}}}},
                      {"args", args},
                      {"kwargs", kwargs},
                      {"bytes", "M * N * 4 * 2"},
                      {"flops", "3 * M * N"}};
  return task;
}


TEST(LoadTask, ReadsEveryFieldOfAValidTask) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["notes"] = "differs from upstream";
  json["mutated_args"] = {0};
  json["precision"] = Json{{"tolerance", {{"float32", {{"rtol", 1e-4}}}}}};
  auto dir = write_task(root, json);

  Task t = load_ok(dir, "Math/softmax.py");
  EXPECT_EQ(t.key, "Math/softmax.py");
  EXPECT_EQ(t.entry, "softmax");
  EXPECT_EQ(t.category, "Math");
  EXPECT_EQ(t.difficulty, 2);
  EXPECT_EQ(t.signature, "softmax(input, dim)");
  EXPECT_EQ(t.description, "what softmax computes");
  EXPECT_EQ(t.notes, "differs from upstream");
  EXPECT_EQ(t.dtypes, std::vector<std::string>{"float32"});
  EXPECT_EQ(t.precision, json["precision"]);
  EXPECT_EQ(t.mutated_args, std::vector<int>{0});
  EXPECT_EQ(t.dir, dir);
  EXPECT_EQ(t.reference_path(), dir / "reference.py");
  ASSERT_EQ(t.cases.size(), 1U);
  EXPECT_EQ(t.cases[0].name, "small");
  EXPECT_EQ(t.cases[0].args, json["cases"][0]["args"]);
  EXPECT_EQ(t.cases[0].kwargs, (Json{{"dim", 1}}));
  EXPECT_TRUE(t.workloads.empty());
}

TEST(LoadTask, OptionalFieldsTakeTheirDefaults) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  for (const char* field : {"difficulty", "dtypes", "precision", "mutated_args"}) {
    json.erase(field);
  }
  json["cases"][0].erase("kwargs");
  json["cases"][0].erase("args");
  Task t = load_ok(write_task(root, json), "Math/softmax.py");
  ASSERT_EQ(t.cases.size(), 1U);
  EXPECT_EQ(t.difficulty, 0);
  EXPECT_TRUE(t.dtypes.empty());
  EXPECT_EQ(t.precision, Json("default"));
  EXPECT_TRUE(t.mutated_args.empty());
  EXPECT_EQ(t.cases[0].args, Json::array());
  EXPECT_EQ(t.cases[0].kwargs, Json::object());
}

TEST(LoadTask, VersionIsTheSha256OfTaskJsonFollowedByReferencePy) {
  ScopedTempDir root;
  std::string text = valid_task("Math/softmax.py", "softmax").dump();
  auto dir = write_task_text(root, "Math/softmax", text, false);
  root.write("Math/softmax/reference.py", "def softmax(x, dim):\n    return x\n");
  Task t = load_ok(dir, "Math/softmax.py");
  EXPECT_EQ(t.version, sha256_hex(text + "def softmax(x, dim):\n    return x\n"));

  root.write("Math/softmax/reference.py", "def softmax(x, dim):\n    return x * 1\n");
  EXPECT_NE(load_ok(dir, "Math/softmax.py").version, t.version);
}

TEST(LoadTask, RejectsAKeyThatDoesNotMatchItsFolder) {
  ScopedTempDir root;
  auto dir =
      write_task_text(root, "Math/softmax", valid_task("Math/softmax2.py", "softmax").dump());
  std::string message = load_error(dir, "Math/softmax.py");
  EXPECT_CONTAINS(message, "key 'Math/softmax2.py' does not match its folder");
  EXPECT_CONTAINS(message, "expected 'Math/softmax.py'");
}

TEST(LoadTask, RejectsAFolderWithoutReferencePy) {
  ScopedTempDir root;
  auto dir = write_task(root, valid_task("Math/softmax.py", "softmax"), false);
  std::string message = load_error(dir, "Math/softmax.py");
  EXPECT_CONTAINS(message, "missing reference.py");
  EXPECT_CONTAINS(message, dir.string());
}

TEST(LoadTask, RejectsTextThatIsNotJsonNamingTheFile) {
  ScopedTempDir root;
  auto dir = write_task_text(root, "Math/softmax", "{\"format\": 1,");
  std::string message = load_error(dir, "Math/softmax.py");
  EXPECT_CONTAINS(message, "not valid JSON");
  EXPECT_CONTAINS(message, (dir / "task.json").string());
}

TEST(LoadTask, RejectsAnUnsupportedFormat) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["format"] = 2;
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"), "unsupported format 2");
}

TEST(LoadTask, RejectsAMissingRequiredField) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json.erase("entry");
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"), "missing field 'entry'");
}

TEST(LoadTask, RejectsARequiredFieldOfTheWrongType) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["signature"] = 3;
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "field 'signature' has the wrong type");
}

TEST(LoadTask, RejectsAnOptionalFieldOfTheWrongTypeAsAnErrorValue) {
  ScopedTempDir root;
  for (auto [field, value] : {std::pair<const char*, Json>{"difficulty", "hard"},
                              {"dtypes", "float32"},
                              {"mutated_args", {"x"}},
                              {"notes", 3}}) {
    Json json = valid_task("Math/softmax.py", "softmax");
    json[field] = value;
    std::string message = load_error(write_task(root, json), "Math/softmax.py");
    EXPECT_CONTAINS(message, (root.path() / "Math/softmax/task.json").string());
  }
}

TEST(LoadTask, RejectsDuplicateCaseNames) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["cases"].push_back(json["cases"][0]);
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "case 'small': duplicate case name");
}

TEST(LoadTask, RejectsAnEmptyCaseList) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["cases"] = Json::array();
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "'cases' must be a non-empty array");
}

TEST(LoadTask, RejectsAnUnknownValueSpec) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["cases"][0]["kwargs"]["dim"] = Json{{"weird", 1}};
  std::string message = load_error(write_task(root, json), "Math/softmax.py");
  EXPECT_CONTAINS(message, "unknown value spec {\"weird\":1}");
  EXPECT_CONTAINS(message, "case 'small'");
}

TEST(LoadTask, RejectsANegativeLiteralShape) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  json["cases"][0]["args"][0]["tensor"]["shape"] = {2, -1};
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "shape entries must be non-negative integers or expressions");
}

TEST(LoadTask, KeepsLiteralCaseValuesAsWritten) {
  ScopedTempDir root;
  Json json = valid_task("Math/softmax.py", "softmax");
  Json args =
      Json::array({1, 2.5, true, "tanh", nullptr, Json::array({1, "N"}),
                   Json{{"tuple", {3, {{"dtype", "float64"}}}}}, Json{{"device", true}},
                   Json{{"generator", {{"seed", 42}}}},
                   Json{{"builder", "spd_matrix"}, {"params", {{"n", 16}, {"dtype", "N"}}}}});
  json["cases"][0]["args"] = args;
  Task t = load_ok(write_task(root, json), "Math/softmax.py");
  ASSERT_EQ(t.cases.size(), 1U);
  EXPECT_EQ(t.cases[0].args, args);
}

TEST(LoadTask, ResolvesShapeExpressionsPerWorkload) {
  ScopedTempDir root;
  Json args = {
      {{"tensor", {{"shape", {"M", "N * 2", 3}}, {"dtype", "float32"}, {"init", "randn"}}}}};
  Task t = load_ok(write_task(root, perf_task(args)), "Math/softmax.py");
  ASSERT_EQ(t.workloads.size(), 2U);
  EXPECT_EQ(t.workloads[0].index, 0);
  EXPECT_EQ(t.workloads[1].index, 1);
  EXPECT_EQ(t.workloads[0].args[0]["tensor"]["shape"], Json({4, 16, 3}));
  EXPECT_EQ(t.workloads[1].args[0]["tensor"]["shape"], Json({16, 64, 3}));
  EXPECT_TRUE(t.workloads[1].args[0]["tensor"]["shape"][0].is_number_integer());
  EXPECT_EQ(t.workloads[1].args[0]["tensor"]["dtype"], "float32");
  EXPECT_EQ(t.workloads[1].params, (Json{{"M", 16}, {"N", 32}}));
}

TEST(LoadTask, ResolvesNumericTensorFieldsAndLeavesOtherTensorStringsAlone) {
  ScopedTempDir root;
  Json args = {
      {{"tensor",
        {{"shape", {"M"}}, {"dtype", "int64"}, {"init", "randint"}, {"low", "-M"}, {"high", "N"}}}},
      {{"tensor",
        {{"shape", {"M"}},
         {"dtype", "float32"},
         {"init", "randn"},
         {"mean", "M / 8"},
         {"std", 2}}}}};
  Task t = load_ok(write_task(root, perf_task(args)), "Math/softmax.py");
  ASSERT_EQ(t.workloads.size(), 2U);
  const Json& ints = t.workloads[0].args[0]["tensor"];
  EXPECT_EQ(ints["low"], -4);
  EXPECT_EQ(ints["high"], 8);
  EXPECT_TRUE(ints["high"].is_number_integer());
  EXPECT_EQ(ints["init"], "randint");
  EXPECT_EQ(ints["dtype"], "int64");
  const Json& floats = t.workloads[0].args[1]["tensor"];
  EXPECT_TRUE(floats["mean"].is_number_float());
  EXPECT_EQ(floats["mean"], 0.5);
  EXPECT_EQ(floats["std"], 2);
}

TEST(LoadTask, ResolvesExprValuesToIntegersWhenIntegralAndFloatsOtherwise) {
  ScopedTempDir root;
  Json args = {{{"expr", "N // 2"}}, {{"expr", "N / 3"}}, {{"tuple", {{{"expr", "M * 2"}}, "M"}}}};
  Task t = load_ok(write_task(root, perf_task(args)), "Math/softmax.py");
  ASSERT_EQ(t.workloads.size(), 2U);
  const Json& a = t.workloads[1].args;
  EXPECT_EQ(a[0], 16);
  EXPECT_TRUE(a[0].is_number_integer());
  EXPECT_TRUE(a[1].is_number_float());
  EXPECT_DOUBLE_EQ(a[1].get<double>(), 32.0 / 3.0);
  EXPECT_EQ(a[2], (Json{{"tuple", {32, "M"}}}));
}

TEST(LoadTask, ResolvesKwargsAndBuilderParamsPerKeyLeavingLiteralStringsUntouched) {
  ScopedTempDir root;
  Json args = {{{"builder", "spd_matrix"},
                {"params", {{"n", {{"expr", "N"}}}, {"dtype", "float32"}, {"label", "M"}}}}};
  Json kwargs = {{"dim", {{"expr", "M - 1"}}}, {"mode", "M"}, {"reduction", "mean"}};
  Task t = load_ok(write_task(root, perf_task(args, kwargs)), "Math/softmax.py");
  ASSERT_EQ(t.workloads.size(), 2U);
  const auto& w = t.workloads[0];
  EXPECT_EQ(w.args[0]["builder"], "spd_matrix");
  EXPECT_EQ(w.args[0]["params"], (Json{{"n", 8}, {"dtype", "float32"}, {"label", "M"}}));
  EXPECT_EQ(w.kwargs, (Json{{"dim", 3}, {"mode", "M"}, {"reduction", "mean"}}));
}

TEST(LoadTask, EvaluatesBytesAndFlopsForEachWorkload) {
  ScopedTempDir root;
  Task t = load_ok(write_task(root, perf_task(Json::array())), "Math/softmax.py");
  ASSERT_EQ(t.workloads.size(), 2U);
  EXPECT_EQ(t.bytes_model, "M * N * 4 * 2");
  EXPECT_EQ(t.flops_model, "3 * M * N");
  EXPECT_EQ(t.workloads[0].bytes, 4 * 8 * 4 * 2);
  EXPECT_EQ(t.workloads[0].flops, 3 * 4 * 8);
  EXPECT_EQ(t.workloads[1].bytes, 16 * 32 * 4 * 2);
  EXPECT_EQ(t.workloads[1].flops, 3 * 16 * 32);
}

TEST(LoadTask, PerfExpressionErrorNamesTheWorkloadAndTheExpression) {
  ScopedTempDir root;
  Json args = {{{"tensor", {{"shape", {"M", "K"}}, {"dtype", "float32"}, {"init", "randn"}}}}};
  std::string message = load_error(write_task(root, perf_task(args)), "Math/softmax.py");
  EXPECT_CONTAINS(message, "perf workload 0");
  EXPECT_CONTAINS(message, "expression 'K': unknown name 'K'");
}

TEST(LoadTask, ByteModelErrorNamesTheWorkload) {
  ScopedTempDir root;
  Json json = perf_task(Json::array());
  json["perf"]["flops"] = "M / (N - 8)";
  std::string message = load_error(write_task(root, json), "Math/softmax.py");
  EXPECT_CONTAINS(message, "perf workload 0");
  EXPECT_CONTAINS(message, "division by zero");
}

TEST(LoadTask, RejectsANonNumericWorkloadParameter) {
  ScopedTempDir root;
  Json json = perf_task(Json::array());
  json["perf"]["workloads"][1]["N"] = "32";
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "perf workload 1: parameter 'N' must be a number");
}

TEST(LoadTask, RejectsAPerfSectionWithoutWorkloadsOrModels) {
  ScopedTempDir root;
  Json json = perf_task(Json::array());
  json["perf"]["workloads"] = Json::array();
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"),
                  "'workloads' must be a non-empty array");
  json = perf_task(Json::array());
  json["perf"].erase("bytes");
  EXPECT_CONTAINS(load_error(write_task(root, json), "Math/softmax.py"), "missing field 'bytes'");
}

TEST(LoadTask, RejectsAShapeExpressionThatIsNotANonNegativeInteger) {
  ScopedTempDir root;
  for (const char* dim : {"N / 3", "M - N"}) {
    Json args = {{{"tensor", {{"shape", {dim}}, {"dtype", "float32"}, {"init", "randn"}}}}};
    std::string message = load_error(write_task(root, perf_task(args)), "Math/softmax.py");
    EXPECT_CONTAINS(message, "perf workload 0");
    EXPECT_CONTAINS(message, dim);
  }
}

TEST(LoadTask, RejectsAnExprThatIsNotAString) {
  ScopedTempDir root;
  Json args = {{{"expr", 3}}};
  std::string message = load_error(write_task(root, perf_task(args)), "Math/softmax.py");
  EXPECT_CONTAINS(message, "perf workload 0");
  EXPECT_CONTAINS(message, "'expr'");
}

TEST(LoadSuite, LoadsEveryTaskSortedByKeyAndSkipsFoldersWithoutTaskJson) {
  ScopedTempDir root;
  write_task(root, valid_task("Math/softmax.py", "softmax"));
  write_task(root, valid_task("Activation/relu.py", "relu"));
  write_task(root, valid_task("Math/add.py", "add"));
  root.write("Math/notes/README.md", "not a task");
  root.write("README.md", "a file at the category level");
  root.write("Math/stray.json", "{}");

  Suite suite = load_suite(root.path());
  EXPECT_EQ(suite.root, root.path());
  EXPECT_TRUE(suite.errors.empty());
  EXPECT_EQ(suite.keys(),
            (std::vector<std::string>{"Activation/relu.py", "Math/add.py", "Math/softmax.py"}));
}

TEST(LoadSuite, MalformedTaskLeavesTheOthersUsableWithItsErrorListed) {
  ScopedTempDir root;
  write_task(root, valid_task("Math/softmax.py", "softmax"));
  write_task(root, valid_task("Activation/relu.py", "relu"));
  write_task_text(root, "Loss/mse_loss", "not json");

  Suite suite = load_suite(root.path());
  EXPECT_EQ(suite.keys(), (std::vector<std::string>{"Activation/relu.py", "Math/softmax.py"}));
  ASSERT_EQ(suite.errors.size(), 1U);
  EXPECT_EQ(suite.errors[0].kind(), ErrorKind::suite);
  EXPECT_CONTAINS(suite.errors[0].what(), "Loss/mse_loss/task.json");
}

TEST(LoadSuite, TaskWithAFieldOfTheWrongTypeLeavesTheOthersUsable) {
  ScopedTempDir root;
  write_task(root, valid_task("Math/softmax.py", "softmax"));
  Json bad = valid_task("Activation/relu.py", "relu");
  bad["difficulty"] = "easy";
  write_task(root, bad);

  Suite suite = load_suite(root.path());
  EXPECT_EQ(suite.keys(), (std::vector<std::string>{"Math/softmax.py"}));
  ASSERT_EQ(suite.errors.size(), 1U);
  EXPECT_CONTAINS(suite.errors[0].what(), "Activation/relu/task.json");
}

TEST(LoadSuite, MissingRootIsASuiteError) {
  ScopedTempDir root;
  try {
    (void)load_suite(root.path() / "nowhere");
    ADD_FAILURE() << "expected a kbx::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::suite);
    EXPECT_CONTAINS(e.what(), (root.path() / "nowhere").string());
    EXPECT_CONTAINS(e.what(), "--suite");
  }
}

TEST(LoadSuite, RootThatIsAFileIsASuiteError) {
  ScopedTempDir root;
  auto file = root.write("suite.json", "{}");
  EXPECT_THROW((void)load_suite(file), Error);
}

TEST(LoadSuite, EmptyRootGivesAnEmptySuite) {
  ScopedTempDir root;
  Suite suite = load_suite(root.path());
  EXPECT_TRUE(suite.tasks.empty());
  EXPECT_TRUE(suite.errors.empty());
}

}  // namespace
}  // namespace kbx::suite
