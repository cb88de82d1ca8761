// compare_outputs on tensor values: NaN/Inf patterns, tolerance bounds per dtype, overrides,
// complex and exact types, and the diagnostics a failure carries.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kbx/compare/comparator.h"
#include "unit/compare/compare_builders.h"

namespace kbx::compare {
namespace {

using testing::bf16;
using testing::blob;
using testing::c64;
using testing::f16;
using testing::f32;
using testing::f64;
using testing::out;
using testing::tensor_leaf;

constexpr float nanf = std::numeric_limits<float>::quiet_NaN();
constexpr float inff = std::numeric_limits<float>::infinity();

Verdict compare(const TensorBlob& ref, const TensorBlob& cand,
                const Contract& contract = Contract::kernelbenchx_default()) {
  return compare_outputs(out(ref), out(cand), contract);
}

Contract with_tolerance(DType dtype, double rtol, double atol) {
  Contract c = Contract::kernelbenchx_default();
  c.tolerances[dtype] = {.rtol = rtol, .atol = atol};
  return c;
}

TEST(CompareNan, NanInTheSamePlacesOnBothSidesPasses) {
  Verdict v = compare(f32({1, nanf, 3}), f32({1, nanf, 3}));
  EXPECT_TRUE(v.ok) << v.detail;
}

TEST(CompareNan, NanSignAndPayloadDoNotMatter) {
  TensorBlob ref = blob(DType::float16, std::vector<std::uint16_t>{0x7E00});
  TensorBlob cand = blob(DType::float16, std::vector<std::uint16_t>{0xFE01});
  EXPECT_TRUE(compare(ref, cand).ok);
}

TEST(CompareNan, NanInTheCandidateWhereTheReferenceIsFiniteFails) {
  Verdict v = compare(f32({1, 2, 3, 4}), f32({1, nanf, 3, nanf}));
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_EQ(v.nan_mismatch_count, 2);
  EXPECT_EQ(v.mismatch_count, 2);
  EXPECT_EQ(v.first_mismatch_index, 1);
  EXPECT_EQ(v.detail,
            "out: NaN pattern differs at 2 of 4 elements (first at [1]: got nan, "
            "expected 2)");
}

TEST(CompareNan, NanInTheReferenceOnlyFailsToo) {
  Verdict v = compare(f32({1, nanf}), f32({1, 2}));
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_EQ(v.first_mismatch_index, 1);
}

TEST(CompareNan, OtherMismatchesInTheSameLeafAreCountedAndMentioned) {
  Verdict v = compare(f32({1, 2, 3, 4}), f32({nanf, 2.5, inff, 4}));
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_EQ(v.nan_mismatch_count, 1);
  EXPECT_EQ(v.inf_mismatch_count, 1);
  EXPECT_EQ(v.mismatch_count, 3);
  EXPECT_EQ(v.err_abs_max, 0.5);
  EXPECT_EQ(v.detail,
            "out: NaN pattern differs at 1 of 4 elements (first at [0]: got nan, "
            "expected 1; 3 elements mismatch in all)");
}

TEST(CompareInf, MatchingInfinitiesPass) {
  EXPECT_TRUE(compare(f32({inff, -inff, 1}), f32({inff, -inff, 1})).ok);
}

TEST(CompareInf, OppositeInfinitiesFail) {
  Verdict v = compare(f32({inff, 1}), f32({-inff, 1}));
  EXPECT_EQ(v.reason, FailReason::inf_mismatch);
  EXPECT_EQ(v.inf_mismatch_count, 1);
  EXPECT_EQ(v.first_mismatch_index, 0);
  EXPECT_EQ(v.detail,
            "out: Inf pattern differs at 1 of 2 elements (first at [0]: got -inf, "
            "expected inf)");
}

TEST(CompareInf, InfinityWhereTheReferenceIsFiniteFails) {
  EXPECT_EQ(compare(f32({3e38f}), f32({inff})).reason, FailReason::inf_mismatch);
}

TEST(CompareInf, AFiniteValueWhereTheReferenceIsInfiniteFails) {
  EXPECT_EQ(compare(f64({-INFINITY}), f64({-1.7e308})).reason, FailReason::inf_mismatch);
}

TEST(CompareInf, InfinitiesInHalfPrecisionAreDecoded) {
  TensorBlob ref = blob(DType::bfloat16, std::vector<std::uint16_t>{0x7F80, 0x3F80});
  TensorBlob cand = blob(DType::bfloat16, std::vector<std::uint16_t>{0x7F80, 0x7F80});
  Verdict v = compare(ref, cand);
  EXPECT_EQ(v.reason, FailReason::inf_mismatch);
  EXPECT_EQ(v.first_mismatch_index, 1);
}

TEST(CompareTolerance, Float64DifferenceExactlyAtTheBoundPasses) {
  // rtol = atol = 2^-10 and r = 1 make the bound exactly 2^-9, as is |c - r|.
  const Contract c = with_tolerance(DType::float64, 0x1p-10, 0x1p-10);
  EXPECT_TRUE(compare(f64({1.0}), f64({1.0 + 0x1p-9}), c).ok);
  EXPECT_TRUE(compare(f64({1.0}), f64({1.0 - 0x1p-9}), c).ok);
}

TEST(CompareTolerance, Float64DifferenceOneUlpOverTheBoundFails) {
  const Contract c = with_tolerance(DType::float64, 0x1p-10, 0x1p-10);
  Verdict v = compare(f64({1.0}), f64({std::nextafter(1.0 + 0x1p-9, 2.0)}), c);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
}

TEST(CompareTolerance, Float32DifferenceExactlyAtTheBoundPassesAndOneUlpOverFails) {
  // r = 2: bound = 2^-8 + 2 * 2^-8 = 3 * 2^-8.
  const Contract c = with_tolerance(DType::float32, 0x1p-8, 0x1p-8);
  EXPECT_TRUE(compare(f32({2.0f}), f32({2.0f + 3 * 0x1p-8f}), c).ok);
  EXPECT_FALSE(compare(f32({2.0f}), f32({std::nextafter(2.0f + 3 * 0x1p-8f, 3.0f)}), c).ok);
}

TEST(CompareTolerance, Float32DefaultAcceptsTheLastFloatInsideOneEMinusFiveAroundZero) {
  float inside = 1e-5f;
  while (static_cast<double>(inside) > 1e-5) {
    inside = std::nextafter(inside, 0.0f);
  }
  EXPECT_TRUE(compare(f32({0}), f32({inside})).ok);
  EXPECT_FALSE(compare(f32({0}), f32({std::nextafter(inside, 1.0f)})).ok);
}

TEST(CompareTolerance, Float32DefaultAppliesTheRelativeTermToLargeValues) {
  EXPECT_TRUE(compare(f32({1000}), f32({1000.0078125f})).ok);  // 7.8e-3 <= 1e-5 + 1e-2
  EXPECT_FALSE(compare(f32({1000}), f32({1000.0156250f})).ok);
}

TEST(CompareTolerance, Float16IsDecodedAndJudgedAtFiveEMinusThree) {
  // Around 1 a float16 ulp is 2^-10; the bound is 5e-3 + 5e-3 = 0.01, i.e. 10.24 ulps.
  EXPECT_TRUE(compare(f16({1}), f16({1 + 10 * 0x1p-10f})).ok);
  Verdict v = compare(f16({1}), f16({1 + 11 * 0x1p-10f}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.err_abs_max, 11 * 0x1p-10);
  EXPECT_EQ(v.detail,
            "out: 1 of 1 elements differ (max abs err 1.1e-02 at [0]: got 1.0107422, "
            "expected 1; max rel err 1.1e-02; first at [0]; rtol=atol=0.005 for "
            "float16)");
}

TEST(CompareTolerance, Float16SubnormalsAreDecoded) {
  const float tiny = 0x1p-24f;  // smallest float16 subnormal
  const Contract exact = with_tolerance(DType::float16, 0, 0);
  EXPECT_TRUE(compare(f16({tiny}), f16({tiny}), exact).ok);
  Verdict v = compare(f16({tiny}), f16({2 * tiny}), exact);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.err_abs_max, 0x1p-24);
}

TEST(CompareTolerance, BFloat16IsDecodedAndJudgedAtFiveEMinusThree) {
  EXPECT_TRUE(compare(bf16({1}), bf16({1 + 0x1p-7f})).ok);  // 7.8e-3 <= 0.01
  Verdict v = compare(bf16({1}), bf16({1 + 0x1p-6f}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.err_abs_max, 0x1p-6);
}

TEST(CompareTolerance, Float16ExactlyAtAnOverriddenBoundPasses) {
  const Contract c = with_tolerance(DType::float16, 0x1p-10, 0x1p-10);
  EXPECT_TRUE(compare(f16({1}), f16({1 + 2 * 0x1p-10f}), c).ok);
  EXPECT_FALSE(compare(f16({1}), f16({1 + 3 * 0x1p-10f}), c).ok);
}

TEST(CompareTolerance, AnOverrideLoosensOnlyItsOwnDtype) {
  const Contract c = with_tolerance(DType::float32, 1e-3, 1e-3);
  std::vector<OutputLeaf> ref = {tensor_leaf("out[0]", f32({1})), tensor_leaf("out[1]", f64({1}))};
  std::vector<OutputLeaf> cand = {tensor_leaf("out[0]", f32({1.0001f})),
                                  tensor_leaf("out[1]", f64({1.0001}))};
  Verdict v = compare_outputs(ref, cand, c);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.path, "out[1]");
  EXPECT_NE(v.detail.find("rtol=atol=1e-05 for float64"), std::string::npos) << v.detail;
}

TEST(CompareTolerance, AnOverrideCanTightenBelowTheDefault) {
  const Contract c = with_tolerance(DType::float32, 0, 0);
  Verdict v = compare(f32({1}), f32({1.0000001f}), c);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_NE(v.detail.find("rtol=atol=0 for float32"), std::string::npos) << v.detail;
}

TEST(CompareTolerance, UnequalRtolAndAtolAreBothShown) {
  Verdict v = compare(f32({1}), f32({2}), with_tolerance(DType::float32, 1e-4, 1e-3));
  EXPECT_NE(v.detail.find("rtol=0.0001, atol=0.001 for float32"), std::string::npos) << v.detail;
}

TEST(CompareComplex, EachPartIsJudgedWithTheFloatTypesTolerance) {
  EXPECT_TRUE(compare(c64({{1, 2}}), c64({{1.000005f, 2.00001f}})).ok);
  Verdict v = compare(c64({{1, 2}, {3, 4}}), c64({{1, 2.5f}, {3, 4}}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.mismatch_count, 1);
  EXPECT_EQ(v.first_mismatch_index, 0);
  EXPECT_EQ(v.detail,
            "out: 1 of 2 elements differ (max abs err 5.0e-01 at [0]: got (1+2.5j), "
            "expected (1+2j); max rel err 2.5e-01; first at [0]; rtol=atol=1e-05 for "
            "complex64 (each part))");
}

TEST(CompareComplex, Complex64FollowsAFloat32Override) {
  const Contract c = with_tolerance(DType::float32, 0.25, 0.25);
  EXPECT_TRUE(compare(c64({{1, 2}}), c64({{1, 2.5f}}), c).ok);
}

TEST(CompareComplex, Complex128UsesFloat64sTolerance) {
  TensorBlob ref = blob(DType::complex128, std::vector<double>{1, -2}, {1});
  TensorBlob near = blob(DType::complex128, std::vector<double>{1, -2.00002}, {1});
  TensorBlob far = blob(DType::complex128, std::vector<double>{1, -2.0001}, {1});
  EXPECT_TRUE(compare(ref, near).ok);
  Verdict v = compare(ref, far);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_NE(v.detail.find("got (1-2.0001j), expected (1-2j)"), std::string::npos) << v.detail;
  EXPECT_TRUE(compare(ref, far, with_tolerance(DType::float64, 1e-4, 1e-4)).ok);
}

TEST(CompareComplex, NanInOnePartIsANanMismatch) {
  Verdict v = compare(c64({{1, 2}}), c64({{1, nanf}}));
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_NE(v.detail.find("got (1+nanj)"), std::string::npos) << v.detail;
}

TEST(CompareExact, IntegersMustBeEqual) {
  EXPECT_TRUE(compare(blob(DType::int32, std::vector<std::int32_t>{7, -3}),
                      blob(DType::int32, std::vector<std::int32_t>{7, -3}))
                  .ok);
  Verdict v = compare(blob(DType::int32, std::vector<std::int32_t>{5, 7, 9}),
                      blob(DType::int32, std::vector<std::int32_t>{5, 8, 9}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.mismatch_count, 1);
  EXPECT_EQ(v.first_mismatch_index, 1);
  EXPECT_EQ(v.err_abs_max, 1);
  EXPECT_EQ(v.detail,
            "out: 1 of 3 elements differ (max abs err 1.0e+00 at [1]: got 8, expected "
            "7; max rel err 1.4e-01; first at [1]; exact for int32)");
}

TEST(CompareExact, IntegersIgnoreAnyFloatTolerance) {
  Contract loose = Contract::kernelbenchx_default();
  for (auto& [dtype, tol] : loose.tolerances) {
    tol = {.rtol = 1, .atol = 1};
  }
  Verdict v = compare(blob(DType::int64, std::vector<std::int64_t>{100}),
                      blob(DType::int64, std::vector<std::int64_t>{101}), loose);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
}

TEST(CompareExact, BoolsAreShownAsPythonPrintsThem) {
  Verdict v = compare(blob(DType::boolean, std::vector<std::uint8_t>{1, 0}),
                      blob(DType::boolean, std::vector<std::uint8_t>{1, 1}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_NE(v.detail.find("got True, expected False"), std::string::npos) << v.detail;
}

TEST(CompareDiagnostics, AValueMismatchReportsCountsLocationsAndErrors) {
  Verdict v = compare(f32({0.5, 1, 2, 3, 4, 5}, {2, 3}), f32({0.5, 1.25, 2.5, 3, 4, 5.25}, {2, 3}));
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.path, "out");
  EXPECT_EQ(v.mismatch_count, 3);
  EXPECT_EQ(v.first_mismatch_index, 1);
  EXPECT_EQ(v.err_abs_max, 0.5);
  EXPECT_EQ(v.err_rel_max, 0.25);
  EXPECT_EQ(v.nan_mismatch_count, 0);
  EXPECT_EQ(v.inf_mismatch_count, 0);
  EXPECT_EQ(v.detail,
            "out: 3 of 6 elements differ (max abs err 5.0e-01 at [0, 2]: got 2.5, "
            "expected 2; max rel err 2.5e-01; first at [0, 1]; rtol=atol=1e-05 for "
            "float32)");
}

TEST(CompareDiagnostics, MaxRelativeErrorIgnoresZeroReferenceElements) {
  Verdict v = compare(f32({0, 4}), f32({0.25, 5}));
  EXPECT_EQ(v.err_abs_max, 1);
  EXPECT_EQ(v.err_rel_max, 0.25);
}

TEST(CompareDiagnostics, AMismatchInALargeTensorIsLocatedByMultiIndex) {
  std::vector<float> r(100'000);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i] = static_cast<float>(i % 97) / 8;
  }
  std::vector<float> c = r;
  c[54'321] += 0.5f;
  Verdict v = compare(f32(r, {100, 1000}), f32(c, {100, 1000}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.mismatch_count, 1);
  EXPECT_EQ(v.first_mismatch_index, 54'321);
  EXPECT_NE(v.detail.find("1 of 100000 elements differ (max abs err 5.0e-01 at [54, 321]"),
            std::string::npos)
      << v.detail;
}

TEST(CompareDiagnostics, APassingVerdictCarriesTheWorstFiguresOverAllLeaves) {
  std::vector<OutputLeaf> ref = {tensor_leaf("out[0]", f32({1, 100})),
                                 tensor_leaf("out[1]", f64({0.001}))};
  std::vector<OutputLeaf> cand = {tensor_leaf("out[0]", f32({1, 100.0009765625f})),
                                  tensor_leaf("out[1]", f64({0.001 + 5e-6}))};
  Verdict v = compare_outputs(ref, cand, Contract::kernelbenchx_default());
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.err_abs_max, 0x1p-10);                           // from out[0]
  EXPECT_EQ(v.err_rel_max, ((0.001 + 5e-6) - 0.001) / 0.001);  // from out[1]
  EXPECT_EQ(v.mismatch_count, 0);
  EXPECT_EQ(v.first_mismatch_index, -1);
  EXPECT_EQ(v.cosine_sim, 0);  // no metrics contract
  EXPECT_TRUE(v.detail.empty());
}

}  // namespace
}  // namespace kbx::compare
