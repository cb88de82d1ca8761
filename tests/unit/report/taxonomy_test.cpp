// Tests of the failure taxonomy: each outcome and reason lands in its family and kind.
#include "kbx/report/taxonomy.h"

#include <gtest/gtest.h>

namespace kbx::report {
namespace {

using F = FailureFamily;

void expect_class(const std::string& outcome, const std::string& reason, F family,
                  const std::string& kind, const std::string& detail = "") {
  auto c = classify_failure(outcome, reason, detail);
  EXPECT_EQ(c.family, family) << outcome << "/" << reason << " -> " << to_string(c.family);
  EXPECT_EQ(c.kind, kind) << outcome << "/" << reason;
}

TEST(Taxonomy, ClassifiesCompileRuntimeResourceAndHarnessFailures) {
  expect_class("compile_error", "syntax_error", F::compile, "syntax_error");
  expect_class("compile_error", "triton_compile_error", F::compile, "triton_compile_error");
  expect_class("compile_error", "", F::compile, "compile_error");
  expect_class("runtime_error", "TypeError", F::runtime, "TypeError");
  expect_class("runtime_error", "out_of_memory", F::runtime, "out_of_memory");
  expect_class("crashed", "SIGSEGV", F::runtime, "SIGSEGV");
  expect_class("timeout", "cases", F::resource, "timeout");
  expect_class("limit_exceeded", "file_size", F::resource, "file_size");
  expect_class("skipped", "input_error", F::harness, "skipped");
  expect_class("skipped", "contract_error", F::harness, "contract_error");
  expect_class("worker_lost", "", F::harness, "worker_lost");
}

TEST(Taxonomy, ClassifiesNumericalFailuresByWhatDiffers) {
  expect_class("incorrect", "nan_mismatch", F::numerical, "nan_inf");
  expect_class("incorrect", "inf_mismatch", F::numerical, "nan_inf");
  expect_class("incorrect", "shape_mismatch", F::numerical, "shape_dtype");
  expect_class("incorrect", "dtype_mismatch", F::numerical, "shape_dtype");
  expect_class("incorrect", "structure_mismatch", F::numerical, "shape_dtype");
  expect_class("incorrect", "device_mismatch", F::numerical, "shape_dtype");
  expect_class("incorrect", "requires_grad_mismatch", F::numerical, "shape_dtype");
  expect_class("incorrect", "metric_mismatch", F::numerical, "precision");
  // value_mismatch: by the largest relative error the detail names.
  expect_class("incorrect", "value_mismatch", F::numerical, "precision",
               "out: 3 of 64 elements differ (max abs err 2.0e-03 at [5]: got 1, expected 1; "
               "max rel err 4.1e-03; first at [5]; rtol=atol=1e-05 for float32)");
  expect_class("incorrect", "value_mismatch", F::numerical, "scale",
               "out: 64 of 64 elements differ (max abs err 1.0e+00 ...; max rel err 1.0e+00; ...)");
  expect_class("incorrect", "value_mismatch", F::numerical, "scale", "no figures");
}

TEST(Taxonomy, ClassifiesContractTritonRuleAndExploitFailures) {
  expect_class("incorrect", "input_mutated", F::contract, "input_mutated");
  expect_class("incorrect", "canonical_mismatch", F::contract, "canonical_mismatch");
  expect_class("incorrect", "expected_error", F::contract, "expected_error");
  expect_class("not_triton", "no_triton_launch", F::triton_rule, "no_triton_launch");
  expect_class("not_triton", "torch_did_the_work", F::triton_rule, "torch_did_the_work");
  expect_class("protocol_violation", "unjudged_case", F::exploit, "unjudged_case");
  expect_class("tampered", "global_flags", F::exploit, "global_flags");
  expect_class("incorrect", "perf_recheck_mismatch", F::exploit, "perf_recheck_mismatch");
}

TEST(Taxonomy, ReadsTheRelativeErrorOfAValueMismatchDetail) {
  EXPECT_DOUBLE_EQ(detail_rel_err("x (max abs err 1e-3 at [0]: ...; max rel err 2.5e-02; ...)"),
                   0.025);
  EXPECT_EQ(detail_rel_err("nothing here"), -1);
}

SubmissionRow failed(const std::string& task, const std::string& outcome,
                     const std::string& reason) {
  SubmissionRow r;
  r.file = task;
  r.category = task.substr(0, task.find('/'));
  r.outcome = outcome;
  r.reason = reason;
  return r;
}

TEST(Taxonomy, CountsPerKindMethodAndCategorySkippingCorrectAndPending) {
  NamedRun a;
  a.name = "a";
  a.model.labels["method"] = "one-shot";
  a.model.rows = {failed("Math/x.py", "compile_error", "syntax_error"),
                  failed("Math/y.py", "ok", ""), failed("Math/z.py", "pending", ""),
                  failed("Reduce/s.py", "not_triton", "no_triton_launch")};
  NamedRun b;
  b.name = "b";
  b.model.rows = {failed("Math/x.py", "compile_error", "syntax_error")};
  b.model.rows[0].labels["method"] = "refine";  // a generated row's own label wins
  Taxonomy t = failure_taxonomy({a, b});
  EXPECT_EQ(t.submissions, 4);
  EXPECT_EQ(t.failures, 3);
  ASSERT_EQ(t.entries.size(), 2U);
  EXPECT_EQ(t.entries[0].kind, "syntax_error");
  EXPECT_EQ(t.entries[0].count, 2);
  EXPECT_EQ(t.entries[0].by_method.at("one-shot"), 1);
  EXPECT_EQ(t.entries[0].by_method.at("refine"), 1);
  EXPECT_EQ(t.entries[0].by_category.at("Math"), 2);
  EXPECT_EQ(t.entries[1].family, F::triton_rule);
  Json j = taxonomy_json(t);
  EXPECT_EQ(j["families"]["compile"], 2);
  EXPECT_EQ(j["families"]["exploit"], 0);
  std::string csv = taxonomy_csv(t);
  EXPECT_NE(csv.find("compile,syntax_error,refine,*,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("triton_rule,no_triton_launch,*,Reduce,1\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace kbx::report
