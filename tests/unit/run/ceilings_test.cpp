// Tests of the device-ceilings cache (keys, reads, writes) and of measure_ceilings' checks of the
// step's reply, with shell scripts standing in for Python.
#include "kbx/run/ceilings.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "kbx/common/files.h"
#include "support/test_support.h"

namespace kbx::run {
namespace {

using kbx::testing::ScopedTempDir;
namespace fs = std::filesystem;

Json gpu(int index) {
  return {{"kind", "cuda"},          {"index", index},        {"name", "NVIDIA H200"},
          {"uuid", "GPU-1234"},      {"capability", "9.0"},   {"driver", "580.159.04"},
          {"torch_cuda", "13.0"},    {"sm_count", 132}};
}

Json measurement(const Json& device) {
  return {{"device", device},
          {"torch", "2.11.0"},
          {"copy_gbs", 4100.5},
          {"matmul_tflops", {{"float16", 700.0}, {"float32", 50.0}}},
          {"method", "test"}};
}

std::string fake_python(const ScopedTempDir& dir, const std::string& body) {
  fs::path script = dir.write("python", "#!/bin/sh\n" + body + "\n");
  fs::permissions(script, fs::perms::owner_all);
  return script.string();
}

TEST(Ceilings, TheKeyIsTheDeviceAndItsSoftwareNotItsIndexOrThreads) {
  EXPECT_EQ(ceilings_key(gpu(0), "2.11.0"), ceilings_key(gpu(3), "2.11.0"));
  EXPECT_NE(ceilings_key(gpu(0), "2.11.0"), ceilings_key(gpu(0), "2.12.0"));
  Json other = gpu(0);
  other["uuid"] = "GPU-5678";
  EXPECT_NE(ceilings_key(gpu(0), "2.11.0"), ceilings_key(other, "2.11.0"));
  Json cpu2{{"kind", "cpu"}, {"name", "AMD EPYC"}, {"threads", 2}};
  Json cpu8{{"kind", "cpu"}, {"name", "AMD EPYC"}, {"threads", 8}};
  EXPECT_EQ(ceilings_key(cpu2, "2.13.0"), ceilings_key(cpu8, "2.13.0"));
}

TEST(Ceilings, WhatIsWrittenIsReadBackForTheSameDeviceOnly) {
  ScopedTempDir dir;
  EXPECT_FALSE(read_ceilings(dir.path(), gpu(0), "2.11.0"));
  fs::path path = write_ceilings(dir.path(), measurement(gpu(0)));
  EXPECT_EQ(path.parent_path(), dir.path() / "ceilings");
  auto back = read_ceilings(dir.path(), gpu(1), "2.11.0");
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ((*back)["copy_gbs"].get<double>(), 4100.5);
  EXPECT_FALSE(read_ceilings(dir.path(), gpu(0), "2.12.0"));
  write_file_atomic(path, "{not json");
  EXPECT_FALSE(read_ceilings(dir.path(), gpu(0), "2.11.0"));  // ignored, calibrate rewrites it
}

TEST(Ceilings, MeasureRunsTheStepWithTheDeviceAndChecksItsReply) {
  ScopedTempDir dir;
  std::string python = fake_python(
      dir, "[ \"$1 $2 $3 $4 $5\" = \"-m kbx_worker.ceilings --device cuda:1 --quick\" ] || exit 9\n"
           "echo '" + measurement(gpu(1)).dump() + "'");
  auto m = measure_ceilings({python, dir.path(), std::chrono::seconds(10)}, "cuda:1", true);
  ASSERT_TRUE(m) << m.error().what();
  EXPECT_EQ(m.value()["matmul_tflops"]["float16"], 700.0);
}

TEST(Ceilings, AFailingStepOrAReplyWithoutFiguresIsAnErrorThatSaysSo) {
  ScopedTempDir dir;
  auto failing = measure_ceilings(
      {fake_python(dir, "echo 'no CUDA device' >&2; exit 1"), dir.path(), std::chrono::seconds(10)},
      "cuda:0", false);
  ASSERT_FALSE(failing);
  EXPECT_NE(std::string(failing.error().what()).find("no CUDA device"), std::string::npos);
  Json zero = measurement(gpu(0));
  zero["matmul_tflops"]["float16"] = 0;
  ScopedTempDir dir2;
  auto bad = measure_ceilings(
      {fake_python(dir2, "echo '" + zero.dump() + "'"), dir2.path(), std::chrono::seconds(10)},
      "cuda:0", false);
  ASSERT_FALSE(bad);
  EXPECT_NE(std::string(bad.error().what()).find("not a measurement"), std::string::npos);
}

}  // namespace
}  // namespace kbx::run
