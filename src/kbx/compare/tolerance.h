// Contract: how a task's outputs are judged (KernelBench-X's default, per-dtype tolerances, or metrics).
#pragma once

#include <map>
#include <optional>

#include "kbx/common/dtype.h"
#include "kbx/common/json.h"
#include "kbx/common/result.h"

namespace kbx::compare {

/// |cand - ref| <= atol + rtol * |ref|
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// Error-metric thresholds (the Quantization tasks): every bound present must hold.
struct MetricThresholds {
  std::optional<double> cosine_sim_min;
  std::optional<double> l1_relative_max;
  std::optional<double> rmse_max;  ///< RMS of the error relative to the reference's RMS
  std::optional<double> rmse_absolute_max;  ///< RMS of the error itself (KernelBench-X's RMSE)
};

/// The full contract for one task. Exact dtypes (ints, bool) are always compared exactly.
struct Contract {
  std::map<DType, Tolerance> tolerances;  ///< for float and complex dtypes (complex: per part)
  std::optional<MetricThresholds> metrics;
  /// "error_bound": element i may also differ by k * u(dtype) * m_i, where m is the reference
  /// evaluated in float64 on the absolute values of the inputs (docs/suite-format.md).
  std::optional<double> error_bound_k;
  /// Tensors must match the reference's requires_grad flag too (task.json
  /// "compare_requires_grad": factory functions whose requires_grad argument sets the result's;
  /// elsewhere a Triton result rightly leaves autograd out). Not under --rules kernelbenchx.
  bool requires_grad = false;

  /// KernelBench-X: float32/float64 and complex 1e-5, float16/bfloat16 5e-3.
  static Contract kernelbenchx_default();
  /// Tolerance for a float or complex dtype (complex64 uses float32's entry unless it has one).
  [[nodiscard]] Tolerance tolerance_for(DType dtype) const;
};

/// Parses a task.json "precision" value: "default", {"tolerance": {...}} and/or
/// {"error_bound": {"k": K}}, or {"metrics": {...}}.
/// Errors name the offending field.
Result<Contract> parse_contract(const Json& precision);

}  // namespace kbx::compare
