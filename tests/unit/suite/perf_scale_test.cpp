// Tests of apply_perf_scale (`kbx eval --perf-scale`): workloads shrunk by their byte model.
#include <gtest/gtest.h>

#include <string>

#include "kbx/suite/suite.h"
#include "support/test_support.h"
#include "unit/suite/suite_fixture.h"

namespace kbx::suite {
namespace {

using testing::valid_task;

const std::string key = "Math/softmax.py";

// A task whose perf inputs are an [M, N] matrix and a [N] vector (sized by M and N), with a
// keyword `dim` and a float `eps` that size nothing.
Task perf_task(Json workloads) {
  Json t = valid_task(key, "softmax");
  t["perf"] = {
      {"workloads", std::move(workloads)},
      {"args",
       {{{"tensor", {{"shape", {"M", "N"}}, {"dtype", "float32"}, {"init", "randn"}}}},
        {{"tensor", {{"shape", {"N"}}, {"dtype", "float32"}, {"init", "randn"}}}}}},
      {"kwargs", {{"dim", {{"expr", "dim"}}}, {"eps", {{"expr", "eps"}}}}},
      {"bytes", "M * N * 4"},
      {"flops", "M * N"},
  };
  auto task = parse_task_json(t.dump(), "nowhere/Math/softmax", key);
  EXPECT_TRUE(task.ok()) << task.error().what();
  task->version = "abc";
  return std::move(task).value();
}

TEST(PerfScale, ShrinksTheSizesToAboutTheFractionOfTheBytes) {
  Task task = perf_task({{{"M", 4096}, {"N", 8192}, {"dim", 1}, {"eps", 0.5}},
                         {{"M", 64}, {"N", 1000}, {"dim", 1}, {"eps", 0.5}}});
  double full0 = task.workloads[0].bytes;
  double full1 = task.workloads[1].bytes;
  apply_perf_scale(task, 0.25);
  const Workload& w0 = task.workloads[0];
  EXPECT_EQ(w0.params["M"], 2048);  // both halved: a quarter of the bytes
  EXPECT_EQ(w0.params["N"], 4096);
  EXPECT_EQ(w0.params["dim"], 1);   // not a size
  EXPECT_EQ(w0.params["eps"], 0.5);
  EXPECT_EQ(w0.args[0]["tensor"]["shape"], Json({2048, 4096}));
  EXPECT_EQ(w0.kwargs["dim"], 1);
  EXPECT_LE(w0.bytes, 0.25 * full0);
  EXPECT_GT(w0.bytes, 0.2 * full0);
  EXPECT_DOUBLE_EQ(w0.flops, 2048.0 * 4096);
  EXPECT_LE(task.workloads[1].bytes, 0.25 * full1);
  EXPECT_GT(task.workloads[1].bytes, 0.15 * full1);
  EXPECT_EQ(task.workloads[1].params["M"].get<int>() % 16, 0);  // 64 stays on a multiple of 16
  EXPECT_EQ(task.version, "abc+perf-scale=0.25");
}

TEST(PerfScale, SizesNeverGoBelowOne) {
  Task task = perf_task({{{"M", 2}, {"N", 3}, {"dim", 0}, {"eps", 1e-5}}});
  apply_perf_scale(task, 1e-6);
  EXPECT_EQ(task.workloads[0].params["M"], 1);
  EXPECT_EQ(task.workloads[0].params["N"], 1);
}

TEST(PerfScale, OneChangesNothingAndOutsideTheRangeIsAUsageError) {
  Task task = perf_task({{{"M", 64}, {"N", 64}, {"dim", 1}, {"eps", 0.5}}});
  apply_perf_scale(task, 1);
  EXPECT_EQ(task.workloads[0].params["M"], 64);
  EXPECT_EQ(task.version, "abc");
  for (double bad : {0.0, -1.0, 2.0}) {
    try {
      apply_perf_scale(task, bad);
      ADD_FAILURE() << "scale " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
    }
  }
}

TEST(PerfScale, EveryTaskOfTheSuiteScalesToAtMostItsFraction) {
  Suite suite = load_suite(KBX_TEST_PYTHON_DIR "/../suites/kernelbenchx");
  ASSERT_EQ(suite.tasks.size(), 176U);
  int shrunk = 0;
  for (Task task : suite.tasks) {
    std::vector<Workload> full = task.workloads;
    apply_perf_scale(task, 0.25);
    for (std::size_t i = 0; i < full.size(); ++i) {
      // At most a quarter, unless the sizes it changed are all down to 1 (fixed dimensions
      // carry the rest) or it has no sizes.
      const Workload& w = task.workloads[i];
      bool floor = true;
      for (const auto& [name, value] : w.params.items()) {
        floor = floor && (value == full[i].params[name] || value == 1);
      }
      EXPECT_TRUE(w.bytes <= 0.25 * full[i].bytes * (1 + 1e-9) || floor)
          << task.key << " " << i << " " << w.params.dump() << " " << w.bytes / full[i].bytes;
      shrunk += w.bytes < full[i].bytes ? 1 : 0;
    }
  }
  EXPECT_GT(shrunk, 2000);  // of about 2,200 workloads
}

}  // namespace
}  // namespace kbx::suite
