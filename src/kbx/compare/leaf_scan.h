// scan_leaf: one pass over a reference/candidate tensor pair, counting mismatches and errors.
#pragma once

#include <cstdint>
#include <limits>

#include "kbx/common/tensor_blob.h"
#include "kbx/compare/metrics.h"
#include "kbx/compare/tolerance.h"

namespace kbx::compare {

/// What one pass found. Indices are flat element indices; a complex element counts once and
/// fails when either part fails. Each element lands in at most one mismatch class, the first of
/// NaN, Inf, value.
struct LeafStats {
  std::int64_t numel = 0;
  std::int64_t nan_mismatch_count = 0;    ///< NaN on one side only (in some part)
  std::int64_t inf_mismatch_count = 0;    ///< else: an Inf on either side, and the sides differ
  std::int64_t value_mismatch_count = 0;  ///< else: outside the tolerance (exact dtypes: unequal)
  std::int64_t first_nan_mismatch = -1;
  std::int64_t first_inf_mismatch = -1;
  std::int64_t first_value_mismatch = -1;
  double err_abs_max = 0;               ///< max |c - r| over parts finite on both sides
  std::int64_t err_abs_max_index = -1;  ///< first element reaching err_abs_max; -1 if that is 0
  double err_rel_max = 0;               ///< max |c - r| / |r| over those parts, skipping r == 0
  MetricSums sums;                      ///< filled only when scan_leaf is asked for metrics

  [[nodiscard]] std::int64_t mismatch_count() const {
    return nan_mismatch_count + inf_mismatch_count + value_mismatch_count;
  }
};

/// A tolerance that every finite pair meets: with it only the NaN and Inf patterns can fail.
inline constexpr Tolerance unbounded_tolerance{.rtol = 0,
                                               .atol = std::numeric_limits<double>::infinity()};

/// Scans cand against ref, which must be well-formed blobs of one dtype and shape (checked).
/// Float and complex parts pass when |c - r| <= atol + rtol * |r|, evaluated in double; integer
/// and bool elements must be equal (tol is ignored). NaN matches NaN; ±Inf must match exactly.
/// One pass over the bytes, no allocation; float16/bfloat16 are decoded inline. Thread-safe.
LeafStats scan_leaf(const TensorBlob& ref, const TensorBlob& cand, Tolerance tol,
                    bool with_metrics);

/// scan_leaf for a real floating leaf under an error bound: element i passes when
/// |c - r| <= atol + rtol * |r| + scale * m_i, with m a float64 blob of the same shape (the
/// magnitude reference). Element by element; the metrics sums are not filled.
LeafStats scan_leaf_bounded(const TensorBlob& ref, const TensorBlob& cand, Tolerance tol,
                            const TensorBlob& magnitude, double scale);

/// The unit roundoff of a floating dtype (2^-24 for float32); 0 for other dtypes.
double unit_roundoff(DType dtype);

}  // namespace kbx::compare
