// Contract defaults, per-dtype lookup, and parse_contract's acceptance and error messages.
#include "kbx/compare/tolerance.h"

#include <gtest/gtest.h>

#include <string>

#include "kbx/compare/verdict.h"

namespace kbx::compare {
namespace {

Contract parse_ok(const char* json) {
  Result<Contract> c = parse_contract(Json::parse(json));
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().what());
  return c.ok() ? *c : Contract{};
}

std::string parse_error(const char* json) {
  Result<Contract> c = parse_contract(Json::parse(json));
  EXPECT_FALSE(c.ok()) << "accepted " << json;
  if (c.ok()) {
    return "";
  }
  EXPECT_EQ(c.error().kind(), ErrorKind::suite);
  return c.error().what();
}

void expect_tolerance(const Contract& c, DType dtype, double rtol, double atol) {
  Tolerance t = c.tolerance_for(dtype);
  EXPECT_EQ(t.rtol, rtol) << to_string(dtype);
  EXPECT_EQ(t.atol, atol) << to_string(dtype);
}

TEST(Contract, DefaultIsKernelBenchXOneEMinusFiveForFloat32AndFloat64) {
  Contract c = Contract::kernelbenchx_default();
  expect_tolerance(c, DType::float32, 1e-5, 1e-5);
  expect_tolerance(c, DType::float64, 1e-5, 1e-5);
  EXPECT_FALSE(c.metrics.has_value());
}

TEST(Contract, DefaultIsFiveEMinusThreeForHalfPrecisionTypes) {
  Contract c = Contract::kernelbenchx_default();
  expect_tolerance(c, DType::float16, 5e-3, 5e-3);
  expect_tolerance(c, DType::bfloat16, 5e-3, 5e-3);
}

TEST(Contract, ComplexTypesUseTheirPartTypesTolerance) {
  Contract c = Contract::kernelbenchx_default();
  c.tolerances[DType::float32] = {.rtol = 1e-3, .atol = 2e-3};
  expect_tolerance(c, DType::complex64, 1e-3, 2e-3);
  expect_tolerance(c, DType::complex128, 1e-5, 1e-5);
}

TEST(Contract, AComplexEntryOverridesItsPartType) {
  Contract c = Contract::kernelbenchx_default();
  c.tolerances[DType::complex64] = {.rtol = 0.5, .atol = 0.25};
  expect_tolerance(c, DType::complex64, 0.5, 0.25);
  expect_tolerance(c, DType::float32, 1e-5, 1e-5);
}

TEST(Contract, ExactTypesHaveZeroTolerance) {
  Contract c = Contract::kernelbenchx_default();
  for (DType d :
       {DType::boolean, DType::uint8, DType::int8, DType::int16, DType::int32, DType::int64}) {
    expect_tolerance(c, d, 0, 0);
  }
}

TEST(ParseContract, DefaultStringGivesTheKernelBenchXContract) {
  Contract c = parse_ok(R"("default")");
  expect_tolerance(c, DType::float32, 1e-5, 1e-5);
  expect_tolerance(c, DType::float16, 5e-3, 5e-3);
  EXPECT_FALSE(c.metrics.has_value());
}

TEST(ParseContract, ToleranceOverrideChangesOnlyItsDtype) {
  Contract c = parse_ok(R"({"tolerance": {"float32": {"rtol": 1e-4, "atol": 2e-4}}})");
  expect_tolerance(c, DType::float32, 1e-4, 2e-4);
  expect_tolerance(c, DType::float64, 1e-5, 1e-5);
  expect_tolerance(c, DType::float16, 5e-3, 5e-3);
}

TEST(ParseContract, Float32OverrideAlsoGovernsComplex64) {
  Contract c = parse_ok(R"({"tolerance": {"float32": {"rtol": 1e-4, "atol": 1e-4}}})");
  expect_tolerance(c, DType::complex64, 1e-4, 1e-4);
}

TEST(ParseContract, OverrideMayGiveOneBoundAndKeepTheOtherDefault) {
  Contract c = parse_ok(R"({"tolerance": {"bfloat16": {"atol": 0.02}}})");
  expect_tolerance(c, DType::bfloat16, 5e-3, 0.02);
}

TEST(ParseContract, OverrideAcceptsZeroForExactFloatComparison) {
  Contract c = parse_ok(R"({"tolerance": {"float64": {"rtol": 0, "atol": 0}}})");
  expect_tolerance(c, DType::float64, 0, 0);
}

TEST(ParseContract, OverridesForSeveralDtypesAllApply) {
  Contract c = parse_ok(
      R"({"tolerance": {"float16": {"rtol": 0.01, "atol": 0.01}, "complex128": {"rtol": 1e-7}}})");
  expect_tolerance(c, DType::float16, 0.01, 0.01);
  expect_tolerance(c, DType::complex128, 1e-7, 1e-5);
  expect_tolerance(c, DType::float64, 1e-5, 1e-5);
}

TEST(ParseContract, NegativeRtolIsRejectedNamingTheField) {
  EXPECT_EQ(parse_error(R"({"tolerance": {"float32": {"rtol": -1e-3}}})"),
            "precision.tolerance.float32.rtol must be a non-negative number (got -0.001)");
}

TEST(ParseContract, NonNumericAtolIsRejectedNamingTheField) {
  EXPECT_EQ(parse_error(R"({"tolerance": {"float16": {"atol": "1e-3"}}})"),
            "precision.tolerance.float16.atol must be a non-negative number (got \"1e-3\")");
  EXPECT_EQ(parse_error(R"({"tolerance": {"float16": {"atol": true}}})"),
            "precision.tolerance.float16.atol must be a non-negative number (got true)");
}

TEST(ParseContract, UnknownFieldInADtypeEntryIsRejected) {
  EXPECT_EQ(parse_error(R"({"tolerance": {"float32": {"rtl": 1e-3}}})"),
            "precision.tolerance.float32: unknown field 'rtl' (expected rtol, atol)");
}

TEST(ParseContract, EmptyOrNonObjectDtypeEntryIsRejected) {
  EXPECT_EQ(parse_error(R"({"tolerance": {"float32": {}}})"),
            "precision.tolerance.float32 must be an object with rtol and/or atol");
  EXPECT_EQ(parse_error(R"({"tolerance": {"float32": 1e-3}})"),
            "precision.tolerance.float32 must be an object with rtol and/or atol");
}

TEST(ParseContract, UnknownOrExactDtypeIsRejected) {
  EXPECT_NE(parse_error(R"({"tolerance": {"float33": {"rtol": 1}}})")
                .find("precision.tolerance: 'float33' is not a float or complex dtype"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"tolerance": {"int32": {"rtol": 1}}})")
                .find("integer and bool outputs are always compared exactly"),
            std::string::npos);
}

TEST(ParseContract, ToleranceMustBeAnObject) {
  EXPECT_EQ(parse_error(R"({"tolerance": [1e-3]})"),
            "precision.tolerance must be an object keyed by dtype");
}

TEST(ParseContract, MetricsContractKeepsDefaultTolerancesAndSetsThresholds) {
  Contract c = parse_ok(
      R"({"metrics": {"cosine_sim_min": 0.95, "l1_relative_max": 0.05, "rmse_max": 0.1}})");
  ASSERT_TRUE(c.metrics.has_value());
  EXPECT_EQ(c.metrics->cosine_sim_min, 0.95);
  EXPECT_EQ(c.metrics->l1_relative_max, 0.05);
  EXPECT_EQ(c.metrics->rmse_max, 0.1);
  expect_tolerance(c, DType::float32, 1e-5, 1e-5);
}

TEST(ParseContract, MetricsMayGiveASingleThreshold) {
  Contract c = parse_ok(R"({"metrics": {"rmse_max": 0.2}})");
  ASSERT_TRUE(c.metrics.has_value());
  EXPECT_FALSE(c.metrics->cosine_sim_min.has_value());
  EXPECT_FALSE(c.metrics->l1_relative_max.has_value());
  EXPECT_EQ(c.metrics->rmse_max, 0.2);
}

TEST(ParseContract, MetricThresholdsAreValidatedByName) {
  EXPECT_EQ(parse_error(R"({"metrics": {"cosine_sim_min": 1.5}})"),
            "precision.metrics.cosine_sim_min must be a number in [0, 1] (got 1.5)");
  EXPECT_EQ(parse_error(R"({"metrics": {"rmse_max": -0.1}})"),
            "precision.metrics.rmse_max must be a non-negative number (got -0.1)");
  EXPECT_EQ(parse_error(R"({"metrics": {"l1_relative_max": null}})"),
            "precision.metrics.l1_relative_max must be a non-negative number (got null)");
}

TEST(ParseContract, UnknownOrMissingMetricsAreRejected) {
  EXPECT_EQ(parse_error(R"({"metrics": {"cosine_min": 0.9}})"),
            "precision.metrics: unknown field 'cosine_min' (expected cosine_sim_min, "
            "l1_relative_max, rmse_max, rmse_absolute_max)");
  EXPECT_EQ(parse_error(R"({"metrics": {}})"),
            "precision.metrics must be an object with cosine_sim_min, l1_relative_max and/or "
            "rmse_max");
}

TEST(ParseContract, UnknownContractNameIsRejected) {
  EXPECT_EQ(parse_error(R"("strict")"),
            "precision: unknown contract \"strict\" (expected \"default\", or an object with "
            "tolerance or metrics)");
}

TEST(ParseContract, ObjectsWithoutExactlyOneOfToleranceOrMetricsAreRejected) {
  for (const char* bad : {R"({})", R"({"tolerances": {}})", R"(null)", R"(1e-5)",
                          R"({"tolerance": {}, "metrics": {"rmse_max": 1}})"}) {
    EXPECT_EQ(parse_error(bad).rfind("precision must be \"default\"", 0), 0u) << bad;
  }
}

TEST(FailReason, NamesMatchTheEnumerators) {
  EXPECT_EQ(to_string(FailReason::none), "none");
  EXPECT_EQ(to_string(FailReason::structure_mismatch), "structure_mismatch");
  EXPECT_EQ(to_string(FailReason::shape_mismatch), "shape_mismatch");
  EXPECT_EQ(to_string(FailReason::dtype_mismatch), "dtype_mismatch");
  EXPECT_EQ(to_string(FailReason::device_mismatch), "device_mismatch");
  EXPECT_EQ(to_string(FailReason::requires_grad_mismatch), "requires_grad_mismatch");
  EXPECT_EQ(to_string(FailReason::nan_mismatch), "nan_mismatch");
  EXPECT_EQ(to_string(FailReason::inf_mismatch), "inf_mismatch");
  EXPECT_EQ(to_string(FailReason::value_mismatch), "value_mismatch");
  EXPECT_EQ(to_string(FailReason::metric_mismatch), "metric_mismatch");
}

}  // namespace
}  // namespace kbx::compare
