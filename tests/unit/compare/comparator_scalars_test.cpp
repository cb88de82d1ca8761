// compare_outputs on scalar, str, repr and None leaves: scalars judged as 0-d tensors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kbx/compare/comparator.h"
#include "kbx/compare/scalar_leaf.h"
#include "unit/compare/compare_builders.h"

namespace kbx::compare {
namespace {

using testing::none_leaf;
using testing::scalar_leaf;
using testing::text_leaf;

Verdict compare(const OutputLeaf& ref, const OutputLeaf& cand) {
  return compare_outputs({ref}, {cand}, Contract::kernelbenchx_default());
}

Verdict compare_scalars(const char* dtype, const Json& ref, const Json& cand) {
  return compare(scalar_leaf("out", dtype, ref), scalar_leaf("out", dtype, cand));
}

TEST(CompareScalar, Float64WithinFloat64ToleranceIsOk) {
  Verdict v = compare_scalars("float64", 0.25, 0.25 + 1e-7);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_NEAR(v.err_abs_max, 1e-7, 1e-15);
}

TEST(CompareScalar, Float64OutsideToleranceFailsWithAOneValueMessage) {
  Verdict v = compare_scalars("float64", 0.25, 0.5);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.path, "out");
  EXPECT_EQ(v.mismatch_count, 1);
  EXPECT_EQ(v.first_mismatch_index, 0);
  EXPECT_EQ(v.detail,
            "out: value differs (max abs err 2.5e-01: got 0.5, expected 0.25; max rel "
            "err 1.0e+00; rtol=atol=1e-05 for float64)");
}

TEST(CompareScalar, Float64FollowsAFloat64Override) {
  Contract c = Contract::kernelbenchx_default();
  c.tolerances[DType::float64] = {.rtol = 1, .atol = 0};
  EXPECT_TRUE(compare_outputs({scalar_leaf("out", "float64", 0.25)},
                              {scalar_leaf("out", "float64", 0.5)}, c)
                  .ok);
}

TEST(CompareScalar, IntegersCompareExactly) {
  EXPECT_TRUE(compare_scalars("int64", 3, 3).ok);
  Verdict v = compare_scalars("int64", 3, 4);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.detail,
            "out: value differs (max abs err 1.0e+00: got 4, expected 3; max rel err "
            "3.3e-01; exact for int64)");
}

TEST(CompareScalar, LargeIntegersKeepFullPrecision) {
  EXPECT_FALSE(compare_scalars("int64", 9007199254740993LL, 9007199254740992LL).ok);
}

TEST(CompareScalar, BoolsCompareExactly) {
  EXPECT_TRUE(compare_scalars("bool", true, true).ok);
  Verdict v = compare_scalars("bool", true, false);
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_NE(v.detail.find("got False, expected True"), std::string::npos) << v.detail;
}

TEST(CompareScalar, AnIntWhereAFloatWasExpectedIsADtypeMismatch) {
  Verdict v = compare(scalar_leaf("out", "float64", 3.0), scalar_leaf("out", "int64", 3));
  EXPECT_EQ(v.reason, FailReason::dtype_mismatch);
  EXPECT_EQ(v.detail, "out: dtype int64, expected float64");
}

TEST(CompareScalar, ComplexComparesEachPart) {
  EXPECT_TRUE(compare_scalars("complex128", Json::array({1.0, 2.0}), Json::array({1.0, 2.0})).ok);
  Verdict v = compare_scalars("complex128", Json::array({1.0, 2.0}), Json::array({1.0, 2.5}));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_NE(v.detail.find("got (1+2.5j), expected (1+2j)"), std::string::npos) << v.detail;
}

TEST(CompareScalar, NanMatchesNanAndInfMatchesInf) {
  EXPECT_TRUE(compare_scalars("float64", "nan", "nan").ok);
  EXPECT_TRUE(compare_scalars("float64", "-inf", "-inf").ok);
  EXPECT_TRUE(compare_scalars("complex128", Json::array({"nan", 1}), Json::array({"nan", 1})).ok);
}

TEST(CompareScalar, NanOrInfAgainstAFiniteValueFailsByPattern) {
  EXPECT_EQ(compare_scalars("float64", 1.0, "nan").reason, FailReason::nan_mismatch);
  EXPECT_EQ(compare_scalars("float64", "inf", 1.0).reason, FailReason::inf_mismatch);
  EXPECT_EQ(compare_scalars("float64", "inf", "-inf").reason, FailReason::inf_mismatch);
}

TEST(CompareText, EqualStringsPass) {
  EXPECT_TRUE(
      compare(text_leaf("out", LeafKind::str, "ok"), text_leaf("out", LeafKind::str, "ok")).ok);
}

TEST(CompareText, DifferentStringsAreAValueMismatchShowingBoth) {
  Verdict v =
      compare(text_leaf("out", LeafKind::str, "abc"), text_leaf("out", LeafKind::str, "abd"));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.detail, "out: str differs (got \"abd\", expected \"abc\")");
  EXPECT_EQ(v.mismatch_count, 1);
}

TEST(CompareText, DifferentReprsFail) {
  Verdict v = compare(text_leaf("out", LeafKind::repr, "torch.float32"),
                      text_leaf("out", LeafKind::repr, "torch.float16"));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.detail, "out: repr differs (got \"torch.float16\", expected \"torch.float32\")");
}

TEST(CompareText, LongTextIsCutInTheMessage) {
  Verdict v = compare(text_leaf("out", LeafKind::str, std::string(500, 'a')),
                      text_leaf("out", LeafKind::str, std::string(500, 'b')));
  EXPECT_LT(v.detail.size(), 250u) << v.detail;
  EXPECT_NE(v.detail.find("..."), std::string::npos);
}

TEST(CompareNone, NoneMatchesNone) { EXPECT_TRUE(compare(none_leaf("out"), none_leaf("out")).ok); }

TEST(ScalarToTensor, DecodesEachDtypeIntoA0dTensor) {
  Result<TensorBlob> f = scalar_to_tensor(Json{{"dtype", "float64"}, {"value", -0.5}});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->dtype, DType::float64);
  EXPECT_TRUE(f->shape.empty());
  EXPECT_EQ(f->real_at(0), -0.5);
  Result<TensorBlob> c = scalar_to_tensor(Json{{"dtype", "complex128"}, {"value", {1, "-inf"}}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->imag_at(0), -std::numeric_limits<double>::infinity());
  Result<TensorBlob> i = scalar_to_tensor(Json{{"dtype", "int64"}, {"value", -7}});
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->int_at(0), -7);
  Result<TensorBlob> b = scalar_to_tensor(Json{{"dtype", "bool"}, {"value", true}});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->int_at(0), 1);
  Result<TensorBlob> whole = scalar_to_tensor(Json{{"dtype", "float64"}, {"value", 2}});
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->real_at(0), 2.0);
}

TEST(ScalarToTensor, RejectsValuesThatDoNotMatchTheirDtype) {
  for (const Json& bad :
       {Json{{"dtype", "int64"}, {"value", 1.5}},
        Json{{"dtype", "int64"}, {"value", 18446744073709551615ULL}},
        Json{{"dtype", "bool"}, {"value", 1}}, Json{{"dtype", "float64"}, {"value", "NaN"}},
        Json{{"dtype", "complex128"}, {"value", {1}}}, Json{{"dtype", "float32"}, {"value", 1.0}},
        Json{{"value", 1.0}}, Json(1.0)}) {
    Result<TensorBlob> r = scalar_to_tensor(bad);
    EXPECT_FALSE(r.ok()) << bad.dump();
    if (!r.ok()) {
      EXPECT_EQ(std::string(r.error().what()).rfind("malformed scalar ", 0), 0u);
    }
  }
}

}  // namespace
}  // namespace kbx::compare
