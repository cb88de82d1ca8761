// Error-bound contracts: parsing, the per-element allowance k * u * m, structure-only comparison,
// and KernelBench-X's absolute RMSE.
#include <gtest/gtest.h>

#include "unit/compare/compare_builders.h"
#include "kbx/compare/comparator.h"
#include "kbx/compare/leaf_scan.h"
#include "kbx/compare/metrics.h"
#include "kbx/compare/tolerance.h"

namespace kbx::compare {
namespace {

using testing::f32;
using testing::f64;
using testing::tensor_leaf;

Contract bound_contract(double k) {
  auto c = parse_contract(Json::parse(fmt::format(R"({{"error_bound": {{"k": {}}}}})", k)));
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().what());
  return c.ok() ? *c : Contract{};
}

TEST(ErrorBound, ParsesAloneOrWithATolerance) {
  EXPECT_EQ(*bound_contract(64).error_bound_k, 64);
  auto both = parse_contract(
      Json::parse(R"({"error_bound": {"k": 8}, "tolerance": {"float32": {"atol": 1e-4}}})"));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both->error_bound_k, 8);
  EXPECT_EQ(both->tolerance_for(DType::float32).atol, 1e-4);
  EXPECT_FALSE(parse_contract(Json::parse("\"default\""))->error_bound_k.has_value());
}

TEST(ErrorBound, RejectsBadValuesAndMetricsBesideIt) {
  for (const char* bad : {R"({"error_bound": {"k": 0}})", R"({"error_bound": {"k": -1}})",
                          R"({"error_bound": {"k": "x"}})", R"({"error_bound": {"k": 1, "j": 2}})",
                          R"({"error_bound": {"k": 1}, "metrics": {"rmse_max": 0.1}})"}) {
    auto c = parse_contract(Json::parse(bad));
    EXPECT_FALSE(c.ok()) << bad;
  }
}

TEST(ErrorBound, TheMagnitudeWidensTheBoundOfItsElementOnly) {
  // Element 0 is off by 1e-3: beyond atol + rtol * |r| = 2e-5, within k * u * m = 64 * 2^-24 * 1000.
  auto ref = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.0f, 1.0f}))};
  auto cand = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.001f, 1.0f}))};
  auto mag = std::vector<OutputLeaf>{tensor_leaf("out", f64({1000.0, 1.0}))};
  Contract c = bound_contract(64);
  EXPECT_TRUE(compare_outputs(ref, cand, c, &mag).ok);
  EXPECT_FALSE(compare_outputs(ref, cand, c).ok) << "without magnitudes the default bound holds";
  auto small = std::vector<OutputLeaf>{tensor_leaf("out", f64({1.0, 1000.0}))};
  Verdict v = compare_outputs(ref, cand, c, &small);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.first_mismatch_index, 0);
}

TEST(ErrorBound, IgnoresMagnitudesOfTheWrongShapeOrWithoutABound) {
  auto ref = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.0f, 1.0f}))};
  auto cand = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.001f, 1.0f}))};
  auto wrong = std::vector<OutputLeaf>{tensor_leaf("out", f64({1000.0}))};
  EXPECT_FALSE(compare_outputs(ref, cand, bound_contract(64), &wrong).ok);
  auto mag = std::vector<OutputLeaf>{tensor_leaf("out", f64({1000.0, 1.0}))};
  EXPECT_FALSE(compare_outputs(ref, cand, Contract::kernelbenchx_default(), &mag).ok);
}

TEST(ErrorBound, NanAndInfPatternsStillDecide) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto ref = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.0f, 2.0f}))};
  auto cand = std::vector<OutputLeaf>{tensor_leaf("out", f32({nan, 2.0f}))};
  auto mag = std::vector<OutputLeaf>{tensor_leaf("out", f64({1e30, 1e30}))};
  Verdict v = compare_outputs(ref, cand, bound_contract(64), &mag);
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
}

TEST(ErrorBound, UnitRoundoffPerDtype) {
  EXPECT_EQ(unit_roundoff(DType::float32), 0x1p-24);
  EXPECT_EQ(unit_roundoff(DType::float16), 0x1p-11);
  EXPECT_EQ(unit_roundoff(DType::bfloat16), 0x1p-8);
  EXPECT_EQ(unit_roundoff(DType::float64), 0x1p-53);
  EXPECT_EQ(unit_roundoff(DType::int32), 0);
}

TEST(CompareStructure, ChecksShapeDtypeAndDeviceButNotValues) {
  auto ref = std::vector<OutputLeaf>{tensor_leaf("out", f32({1.0f, 2.0f}))};
  EXPECT_TRUE(compare_structure(ref, {tensor_leaf("out", f32({9.0f, -9.0f}))}).ok);
  EXPECT_EQ(compare_structure(ref, {tensor_leaf("out", f32({1.0f}))}).reason,
            FailReason::shape_mismatch);
  EXPECT_EQ(compare_structure(ref, {tensor_leaf("out", f64({1.0, 2.0}))}).reason,
            FailReason::dtype_mismatch);
  EXPECT_EQ(compare_structure(ref, {}).reason, FailReason::structure_mismatch);
}

TEST(Metrics, AbsoluteRmseIsTheErrorsOwnRms) {
  MetricSums s;
  s.diff_sq = 8;
  s.diff_abs = 4;
  s.ref_sq = 100;
  s.ref_abs = 10;
  s.cand_sq = 100;
  s.dot = 90;
  s.parts = 2;
  Metrics m = metrics_from(s);
  EXPECT_DOUBLE_EQ(m.rmse_absolute, 2.0);
  MetricThresholds t;
  t.rmse_absolute_max = 1.5;
  EXPECT_FALSE(meets(m, t));
  EXPECT_NE(describe_misses(m, t).find("rmse (absolute) 2 > 1.5"), std::string::npos);
  t.rmse_absolute_max = 2.5;
  EXPECT_TRUE(meets(m, t));
}

}  // namespace
}  // namespace kbx::compare
