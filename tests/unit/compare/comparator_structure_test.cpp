// compare_outputs: leaf structure, shape, dtype and device checks, and the order of all checks.
#include <gtest/gtest.h>

#include <vector>

#include "kbx/compare/comparator.h"
#include "support/test_support.h"
#include "unit/compare/compare_builders.h"

namespace kbx::compare {
namespace {

using testing::f16;
using testing::f32;
using testing::none_leaf;
using testing::out;
using testing::scalar_leaf;
using testing::tensor_leaf;
using testing::text_leaf;

const Contract kbx_default = Contract::kernelbenchx_default();

Verdict compare(const std::vector<OutputLeaf>& ref, const std::vector<OutputLeaf>& cand) {
  return compare_outputs(ref, cand, kbx_default);
}

std::vector<OutputLeaf> pair_of(TensorBlob a, TensorBlob b) {
  return {tensor_leaf("out[0]", std::move(a)), tensor_leaf("out[1]", std::move(b))};
}

TEST(CompareStructure, IdenticalOutputsPassWithZeroErrors) {
  Verdict v = compare(pair_of(f32({1, 2}), f16({0.5})), pair_of(f32({1, 2}), f16({0.5})));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.reason, FailReason::none);
  EXPECT_EQ(v.err_abs_max, 0);
  EXPECT_EQ(v.mismatch_count, 0);
  EXPECT_EQ(v.first_mismatch_index, -1);
}

TEST(CompareStructure, NoLeavesOnEitherSidePass) { EXPECT_TRUE(compare({}, {}).ok); }

TEST(CompareStructure, AMissingLeafFailsNamingIt) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), {tensor_leaf("out[0]", f32({1}))});
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.path, "out[1]");
  EXPECT_EQ(v.detail, "out[1] is missing: the candidate returned 1 output leaves, expected 2");
}

TEST(CompareStructure, AnExtraLeafFailsNamingIt) {
  std::vector<OutputLeaf> cand = pair_of(f32({1}), f32({2}));
  cand.push_back(none_leaf("out[2]"));
  Verdict v = compare(pair_of(f32({1}), f32({2})), cand);
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.path, "out[2]");
  EXPECT_EQ(v.detail, "unexpected out[2]: the candidate returned 3 output leaves, expected 2");
}

TEST(CompareStructure, ATensorWhereATupleWasExpectedFailsOnThePath) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), out(f32({1})));
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.detail, "output leaf 0 is out, expected out[0]");
}

TEST(CompareStructure, NoneWhereATensorWasExpectedFailsOnTheKind) {
  Verdict v =
      compare(pair_of(f32({1}), f32({2})), {tensor_leaf("out[0]", f32({1})), none_leaf("out[1]")});
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.path, "out[1]");
  EXPECT_EQ(v.detail, "out[1]: got none, expected tensor");
}

TEST(CompareStructure, StrAndReprAreDifferentKinds) {
  Verdict v = compare({text_leaf("out", LeafKind::repr, "float32")},
                      {text_leaf("out", LeafKind::str, "float32")});
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.detail, "out: got str, expected repr");
}

TEST(CompareStructure, AScalarWhereATensorWasExpectedFailsOnTheKind) {
  Verdict v = compare(out(f32({1})), {scalar_leaf("out", "float64", 1.0)});
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.detail, "out: got scalar, expected tensor");
}

TEST(CompareStructure, ACandidateTensorWithTooFewBytesFailsWithoutReadingThem) {
  TensorBlob short_blob = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  short_blob.data.resize(20);
  Verdict v = compare(out(f32({1, 2, 3, 4, 5, 6}, {2, 3})), out(short_blob));
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.detail, "out: candidate tensor float32[2, 3] carries 20 bytes, expected 24");
}

TEST(CompareStructure, ANegativeOrOverflowingShapeIsMalformed) {
  TensorBlob negative = f32({});
  negative.shape = {-1};
  EXPECT_EQ(compare(out(f32({})), out(negative)).detail,
            "out: candidate tensor has an invalid shape [-1]");
  TensorBlob huge = f32({});
  huge.shape = {1LL << 40, 1LL << 40};
  EXPECT_EQ(compare(out(huge), out(f32({}))).detail,
            "out: reference tensor has an invalid shape [1099511627776, 1099511627776]");
}

TEST(CompareStructure, AMalformedScalarFailsAsStructure) {
  Verdict v = compare({scalar_leaf("out", "float64", 1.0)}, {scalar_leaf("out", "float64", "one")});
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
  EXPECT_EQ(v.detail,
            "out: candidate malformed scalar {\"dtype\":\"float64\",\"value\":\"one\"}: expected "
            "dtype bool, int64, float64 or complex128 with a matching value");
}

TEST(CompareShape, ADifferentShapeFailsShowingBoth) {
  Verdict v =
      compare(out(f32({1, 2, 3, 4, 5, 6}, {2, 3})), out(f32(std::vector<float>(8), {2, 4})));
  EXPECT_EQ(v.reason, FailReason::shape_mismatch);
  EXPECT_EQ(v.path, "out");
  EXPECT_EQ(v.detail, "out: shape [2, 4], expected [2, 3]");
}

TEST(CompareShape, TheSameElementsInAnotherShapeStillFail) {
  Verdict v = compare(out(f32({1, 2, 3, 4, 5, 6}, {2, 3})), out(f32({1, 2, 3, 4, 5, 6}, {3, 2})));
  EXPECT_EQ(v.reason, FailReason::shape_mismatch);
}

TEST(CompareShape, EmptyTensorsOfDifferentShapesFail) {
  Verdict v = compare(out(f32({}, {0, 3})), out(f32({}, {0, 4})));
  EXPECT_EQ(v.reason, FailReason::shape_mismatch);
}

TEST(CompareShape, EmptyTensorsOfTheSameShapePass) {
  Verdict v = compare(out(f32({}, {0, 3})), out(f32({}, {0, 3})));
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.err_abs_max, 0);
}

TEST(CompareDtype, Float16WhereFloat32WasExpectedFails) {
  Verdict v = compare(out(f32({1})), out(f16({1})));
  EXPECT_EQ(v.reason, FailReason::dtype_mismatch);
  EXPECT_EQ(v.detail, "out: dtype float16, expected float32");
}

TEST(CompareDevice, DeviceIndexIsIgnored) {
  TensorBlob ref = f32({1});
  TensorBlob cand = f32({1});
  ref.device = "cuda";
  cand.device = "cuda:0";
  EXPECT_TRUE(compare(out(ref), out(cand)).ok);
  ref.device = "cuda:1";
  EXPECT_TRUE(compare(out(ref), out(cand)).ok);
}

TEST(CompareDevice, ACpuTensorWhereCudaWasExpectedFails) {
  TensorBlob ref = f32({1});
  TensorBlob cand = f32({1});
  ref.device = "cuda:0";
  cand.device = "cpu";
  Verdict v = compare(out(ref), out(cand));
  EXPECT_EQ(v.reason, FailReason::device_mismatch);
  EXPECT_EQ(v.detail, "out: on device 'cpu', expected 'cuda:0'");
}

TEST(CompareRequiresGrad, IsJudgedOnlyWhereTheContractAsks) {
  TensorBlob ref = f32({1, 2});
  ref.requires_grad = true;
  TensorBlob cand = f32({1, 2});
  EXPECT_TRUE(compare(out(ref), out(cand)).ok);  // a Triton result rightly leaves autograd out
  Contract asks = Contract::kernelbenchx_default();
  asks.requires_grad = true;
  Verdict v = compare_outputs(out(ref), out(cand), asks);
  EXPECT_EQ(v.reason, FailReason::requires_grad_mismatch);
  EXPECT_EQ(v.path, "out");
  EXPECT_CONTAINS(v.detail, "out: requires_grad=False, expected True");
  cand.requires_grad = true;
  EXPECT_TRUE(compare_outputs(out(ref), out(cand), asks).ok);
  ref.requires_grad = false;  // set where the call did not ask for it
  EXPECT_EQ(compare_outputs(out(ref), out(cand), asks).reason, FailReason::requires_grad_mismatch);
}

TEST(CompareRequiresGrad, CompareStructureJudgesItWhenAsked) {
  TensorBlob ref = f32({1});
  ref.requires_grad = true;
  TensorBlob cand = f32({9});  // values are the canonical form's to judge
  EXPECT_TRUE(compare_structure(out(ref), out(cand)).ok);
  EXPECT_EQ(compare_structure(out(ref), out(cand), /*requires_grad=*/true).reason,
            FailReason::requires_grad_mismatch);
}

TEST(CompareOrder, DeviceIsJudgedBeforeRequiresGradAndRequiresGradBeforeValues) {
  Contract asks = Contract::kernelbenchx_default();
  asks.requires_grad = true;
  TensorBlob tracked = f32({1});
  tracked.requires_grad = true;
  TensorBlob cpu = f32({2});
  cpu.device = "cpu";
  TensorBlob ref2 = f32({2});
  ref2.requires_grad = true;
  Verdict v = compare_outputs(pair_of(tracked, ref2), pair_of(f32({1}), cpu), asks);
  EXPECT_EQ(v.reason, FailReason::device_mismatch);
  v = compare_outputs(pair_of(tracked, f32({2})), pair_of(f32({NAN}), f32({2})), asks);
  EXPECT_EQ(v.reason, FailReason::requires_grad_mismatch);
}

TEST(CompareOrder, StructureIsJudgedBeforeAShapeMismatchInAnEarlierLeaf) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), {tensor_leaf("out[0]", f32({1, 2}))});
  EXPECT_EQ(v.reason, FailReason::structure_mismatch);
}

TEST(CompareOrder, ShapeInALaterLeafIsJudgedBeforeDtypeInAnEarlierOne) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f16({1}), f32({2, 3})));
  EXPECT_EQ(v.reason, FailReason::shape_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareOrder, DtypeInALaterLeafIsJudgedBeforeDeviceInAnEarlierOne) {
  TensorBlob cpu = f32({1});
  cpu.device = "cpu";
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(cpu, f16({2})));
  EXPECT_EQ(v.reason, FailReason::dtype_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareOrder, DeviceInALaterLeafIsJudgedBeforeNanInAnEarlierOne) {
  TensorBlob cpu = f32({2});
  cpu.device = "cpu";
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f32({NAN}), cpu));
  EXPECT_EQ(v.reason, FailReason::device_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareOrder, NanInALaterLeafIsJudgedBeforeInfInAnEarlierOne) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f32({INFINITY}), f32({NAN})));
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareOrder, InfInALaterLeafIsJudgedBeforeValueInAnEarlierOne) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f32({1.5}), f32({-INFINITY})));
  EXPECT_EQ(v.reason, FailReason::inf_mismatch);
  EXPECT_EQ(v.path, "out[1]");
}

TEST(CompareOrder, TextValueInALaterLeafIsJudgedAfterNanInAnEarlierOne) {
  Verdict v = compare({tensor_leaf("out[0]", f32({1})), text_leaf("out[1]", LeafKind::str, "a")},
                      {tensor_leaf("out[0]", f32({NAN})), text_leaf("out[1]", LeafKind::str, "b")});
  EXPECT_EQ(v.reason, FailReason::nan_mismatch);
  EXPECT_EQ(v.path, "out[0]");
}

TEST(CompareOrder, AmongLeavesFailingTheSameWayTheFirstIsReported) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f32({1.5}), f32({2.5})));
  EXPECT_EQ(v.reason, FailReason::value_mismatch);
  EXPECT_EQ(v.path, "out[0]");
}

TEST(CompareOrder, AmongLeavesWithBadShapesTheFirstIsReported) {
  Verdict v = compare(pair_of(f32({1}), f32({2})), pair_of(f32({1, 1}), f32({2, 2})));
  EXPECT_EQ(v.path, "out[0]");
}

}  // namespace
}  // namespace kbx::compare
