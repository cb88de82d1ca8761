// compare_outputs under a metrics contract: cosine similarity, relative L1 and relative RMSE.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kbx/compare/comparator.h"
#include "kbx/compare/metrics.h"
#include "unit/compare/compare_builders.h"

namespace kbx::compare {
namespace {

using testing::blob;
using testing::f16;
using testing::f32;
using testing::f64;
using testing::out;
using testing::tensor_leaf;

Contract metrics(std::optional<double> cos_min, std::optional<double> l1_max,
                 std::optional<double> rmse_max) {
  Contract c = Contract::kernelbenchx_default();
  c.metrics = MetricThresholds{cos_min, l1_max, rmse_max, std::nullopt};
  return c;
}

const Contract quantization = metrics(0.95, 0.05, 0.1);

Verdict compare(const TensorBlob& ref, const TensorBlob& cand, const Contract& c = quantization) {
  return compare_outputs(out(ref), out(cand), c);
}

TEST(CompareMetrics, OnePercentErrorPassesTheQuantizationContractButNotTheDefault) {
  const std::vector<double> r = {1, -2, 3, -4};
  std::vector<double> c;
  for (double x : r) {
    c.push_back(x * 1.01);
  }
  EXPECT_EQ(compare(f64(r), f64(c), Contract::kernelbenchx_default()).reason,
            FailReason::value_mismatch);
  Verdict v = compare(f64(r), f64(c));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_NEAR(v.cosine_sim, 1, 1e-12);
  EXPECT_NEAR(v.l1_relative, 0.01, 1e-12);
  EXPECT_NEAR(v.rmse, 0.01, 1e-12);
  EXPECT_NEAR(v.err_abs_max, 0.04, 1e-12);
  EXPECT_EQ(v.mismatch_count, 0);  // no elementwise tolerance under metrics
}

TEST(CompareMetrics, FiguresMatchTheirDefinitions) {
  // r = (1, 0), c = (0.6, 0.8): cos = 0.6, l1 = (0.4 + 0.8) / 1, rmse = sqrt(0.16 + 0.64) / 1.
  Verdict v = compare(f64({1, 0}), f64({0.6, 0.8}), metrics(0.5, 2, 1));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_NEAR(v.cosine_sim, 0.6, 1e-12);
  EXPECT_NEAR(v.l1_relative, 1.2, 1e-12);
  EXPECT_NEAR(v.rmse, std::sqrt(0.8), 1e-12);
}

TEST(CompareMetrics, LowCosineSimilarityFailsNamingTheMetric) {
  Verdict v = compare(f64({1, 0}), f64({0.6, 0.8}), metrics(0.95, std::nullopt, std::nullopt));
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_EQ(v.path, "out");
  EXPECT_NEAR(v.cosine_sim, 0.6, 1e-12);
  EXPECT_EQ(v.detail,
            "out: cosine_sim 0.6 < 0.95 (cosine_sim 0.6, l1_relative 1.2, rmse "
            "0.894427 over 2 elements)");
}

TEST(CompareMetrics, HighRelativeL1FailsNamingTheMetric) {
  Verdict v = compare(f64({1, 1}), f64({1.1, 1.1}), metrics(std::nullopt, 0.05, std::nullopt));
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_NE(v.detail.find("out: l1_relative 0.1 > 0.05 ("), std::string::npos) << v.detail;
}

TEST(CompareMetrics, HighRelativeRmseFailsNamingTheMetric) {
  Verdict v = compare(f64({1, 1}), f64({1.2, 1.2}), metrics(std::nullopt, std::nullopt, 0.1));
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_NE(v.detail.find("out: rmse 0.2 > 0.1 ("), std::string::npos) << v.detail;
}

TEST(CompareMetrics, EveryMissedBoundIsListed) {
  Verdict v = compare(f64({1, 0}), f64({0, 1}));
  EXPECT_NE(v.detail.find("cosine_sim 0 < 0.95; l1_relative 2 > 0.05; rmse 1.41421 > 0.1"),
            std::string::npos)
      << v.detail;
}

TEST(CompareMetrics, ScoresExactlyAtTheirThresholdsPass) {
  EXPECT_TRUE(compare(f64({1, 2}), f64({1, 2}), metrics(1, 0, 0)).ok);
  // l1 = 0.5 / 2 and rmse = sqrt(0.25 / 4): both exactly 0.25.
  EXPECT_TRUE(compare(f64({2}), f64({2.5}), metrics(std::nullopt, 0.25, 0.25)).ok);
  EXPECT_FALSE(compare(f64({2}), f64({2.5}), metrics(std::nullopt, 0.2499, std::nullopt)).ok);
}

TEST(CompareMetrics, AnAllZeroReferenceIsMatchedOnlyByAnAllZeroCandidate) {
  Verdict same = compare(f32({0, 0, 0}), f32({0, -0.0f, 0}));
  EXPECT_TRUE(same.ok) << same.detail;
  EXPECT_EQ(same.cosine_sim, 1);
  EXPECT_EQ(same.rmse, 0);
  Verdict v = compare(f32({0, 0, 0}), f32({0, 1e-6f, 0}));
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_EQ(v.cosine_sim, 0);
  EXPECT_EQ(v.l1_relative, std::numeric_limits<double>::infinity());
  EXPECT_EQ(v.rmse, std::numeric_limits<double>::infinity());
  EXPECT_NE(v.detail.find("l1_relative inf > 0.05"), std::string::npos) << v.detail;
}

TEST(CompareMetrics, AnAllZeroCandidateHasZeroCosineSimilarity) {
  Verdict v = compare(f32({1, 2}), f32({0, 0}));
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_EQ(v.cosine_sim, 0);
  EXPECT_EQ(v.l1_relative, 1);
  EXPECT_EQ(v.rmse, 1);
}

TEST(CompareMetrics, EmptyTensorsPassWithPerfectScores) {
  Verdict v = compare(f32({}, {0, 4}), f32({}, {0, 4}));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.cosine_sim, 1);
  EXPECT_EQ(v.l1_relative, 0);
  EXPECT_EQ(v.rmse, 0);
}

TEST(CompareMetrics, NanPatternIsStillCheckedFirstAndMatchedNansAreLeftOut) {
  EXPECT_EQ(compare(f32({1, 2}), f32({1, NAN})).reason, FailReason::nan_mismatch);
  Verdict v = compare(f32({NAN, 2, INFINITY}), f32({NAN, 2, INFINITY}));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.cosine_sim, 1);
}

TEST(CompareMetrics, IntegerLeavesStayExact) {
  Verdict v = compare(blob(DType::int32, std::vector<std::int32_t>{1000}),
                      blob(DType::int32, std::vector<std::int32_t>{1001}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
}

TEST(CompareMetrics, AnExactValueMismatchOutranksAMetricMissInAnEarlierLeaf) {
  std::vector<OutputLeaf> ref = {
      tensor_leaf("out[0]", f32({1, 0})),
      tensor_leaf("out[1]", blob(DType::int64, std::vector<std::int64_t>{3}))};
  std::vector<OutputLeaf> cand = {
      tensor_leaf("out[0]", f32({0, 1})),
      tensor_leaf("out[1]", blob(DType::int64, std::vector<std::int64_t>{4}))};
  Verdict v = compare_outputs(ref, cand, quantization);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareMetrics, HalfPrecisionLeavesAreDecodedBeforeScoring) {
  Verdict v = compare(f16({1, 2, 4}), f16({1, 2, 4.5}), metrics(std::nullopt, std::nullopt, 0.1));
  EXPECT_EQ(v.reason, FailReason::metric_mismatch);
  EXPECT_NEAR(v.rmse, std::sqrt(0.25 / 21), 1e-12);
}

TEST(CompareMetrics, APassingVerdictCarriesTheWorstScoreOfEachKind) {
  std::vector<OutputLeaf> ref = {tensor_leaf("out[0]", f64({1, 1})),
                                 tensor_leaf("out[1]", f64({1, 0}))};
  std::vector<OutputLeaf> cand = {tensor_leaf("out[0]", f64({1.04, 1.04})),
                                  tensor_leaf("out[1]", f64({1, 0.2}))};
  Verdict v = compare_outputs(ref, cand, metrics(0.9, 0.5, 0.5));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_NEAR(v.cosine_sim, 1 / std::sqrt(1.04), 1e-12);  // out[1]
  EXPECT_NEAR(v.l1_relative, 0.2, 1e-12);                 // out[1]
  EXPECT_NEAR(v.rmse, 0.2, 1e-12);                        // out[1]
  EXPECT_NEAR(v.err_abs_max, 0.2, 1e-12);
}

TEST(Metrics, FromSumsHandlesTheZeroDenominators) {
  Metrics empty = metrics_from(MetricSums{});
  EXPECT_EQ(empty.cosine_sim, 1);
  EXPECT_EQ(empty.l1_relative, 0);
  EXPECT_EQ(empty.rmse, 0);
  // A reference so small its squares underflow: matched exactly, it is perfect, not 0 / 0.
  MetricSums tiny{.dot = 0,
                  .cand_sq = 0,
                  .ref_sq = 0,
                  .diff_sq = 0,
                  .diff_abs = 0,
                  .ref_abs = 1e-200,
                  .parts = 1};
  EXPECT_EQ(metrics_from(tiny).rmse, 0);
  tiny.diff_abs = 1e-210;  // its square underflows too: rmse falls back to l1_relative
  EXPECT_EQ(metrics_from(tiny).l1_relative, 1e-210 / 1e-200);
  EXPECT_EQ(metrics_from(tiny).rmse, 1e-210 / 1e-200);
  tiny.diff_sq = 1e-300;  // an error whose square did not underflow dominates
  EXPECT_EQ(metrics_from(tiny).rmse, std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace kbx::compare
