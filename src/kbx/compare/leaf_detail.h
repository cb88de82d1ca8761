// One-line failure messages for a tensor leaf, built from its LeafStats.
#pragma once

#include <string>
#include <string_view>

#include "kbx/common/tensor_blob.h"
#include "kbx/compare/leaf_scan.h"
#include "kbx/compare/metrics.h"
#include "kbx/compare/tolerance.h"

namespace kbx::compare {

/// Element i as Python prints it: "0.5312", "nan", "(1+2j)", "7", "True". Floats are the
/// shortest text that round-trips in their own precision (float16/bfloat16 as float).
std::string format_element(const TensorBlob& t, std::int64_t i);

/// "rtol=atol=1e-05 for float32", "rtol=0.001, atol=1e-05 for complex64 (each part)",
/// "exact for int32".
std::string describe_tolerance(DType dtype, Tolerance tol);

/// "out[0]: NaN pattern differs at 5 of 8192 elements (first at [0, 3]: got nan, expected 0.25)"
std::string describe_nan_mismatch(std::string_view path, const TensorBlob& ref,
                                  const TensorBlob& cand, const LeafStats& stats);

/// "out[0]: Inf pattern differs at 2 of 8192 elements (first at [1]: got inf, expected -inf)"
std::string describe_inf_mismatch(std::string_view path, const TensorBlob& ref,
                                  const TensorBlob& cand, const LeafStats& stats);

/// "out[0]: 37 of 8192 elements differ (max abs err 3.1e-02 at [12, 7]: got 0.5312, expected
/// 0.5001; max rel err 6.2e-02; first at [0, 3]; rtol=atol=1e-05 for float32)"; a 0-d leaf
/// starts "out: value differs (".
std::string describe_value_mismatch(std::string_view path, const TensorBlob& ref,
                                    const TensorBlob& cand, const LeafStats& stats, Tolerance tol);

/// "out[0]: cosine_sim 0.91 < 0.95 (cosine_sim 0.91, l1_relative 0.03, rmse 0.12 over 8192
/// elements)"
std::string describe_metric_mismatch(std::string_view path, const Metrics& metrics,
                                     const MetricThresholds& thresholds, std::int64_t numel);

}  // namespace kbx::compare
