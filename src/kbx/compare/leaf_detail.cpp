// Failure messages: what differed, where (multi-index), and by how much, on one line.
#include "kbx/compare/leaf_detail.h"

#include <fmt/format.h>

#include "kbx/common/check.h"

namespace kbx::compare {
namespace {

std::string format_real(DType dtype, double v) {
  return dtype == DType::float64 || dtype == DType::complex128
             ? fmt::format("{}", v)
             : fmt::format("{}", static_cast<float>(v));
}

/// " at [1, 2]" (nothing for a 0-d tensor, whose only element needs no address).
std::string at(const TensorBlob& t, std::int64_t i) {
  return t.shape.empty() ? "" : " at " + unravel_index(t.shape, i);
}

std::string got_expected(const TensorBlob& ref, const TensorBlob& cand, std::int64_t i) {
  KBX_CHECK(i >= 0 && i < ref.numel()) << "element " << i << " of " << describe(ref);
  return fmt::format("got {}, expected {}", format_element(cand, i), format_element(ref, i));
}

std::string pattern_mismatch(std::string_view what, std::string_view path, const TensorBlob& ref,
                             const TensorBlob& cand, std::int64_t count, std::int64_t first,
                             const LeafStats& stats) {
  std::string also = stats.mismatch_count() > count
                         ? fmt::format("; {} elements mismatch in all", stats.mismatch_count())
                         : "";
  return fmt::format("{}: {} pattern differs at {} of {} elements (first{}: {}{})", path, what,
                     count, stats.numel, at(ref, first), got_expected(ref, cand, first), also);
}

}  // namespace

std::string format_element(const TensorBlob& t, std::int64_t i) {
  if (t.dtype == DType::boolean) {
    return t.int_at(i) != 0 ? "True" : "False";
  }
  if (is_exact(t.dtype)) {
    return fmt::format("{}", t.int_at(i));
  }
  if (is_complex(t.dtype)) {
    std::string im = format_real(t.dtype, t.imag_at(i));
    return fmt::format("({}{}{}j)", format_real(t.dtype, t.real_at(i)),
                       im.starts_with('-') ? "" : "+", im);
  }
  return format_real(t.dtype, t.real_at(i));
}

std::string describe_tolerance(DType dtype, Tolerance tol) {
  if (is_exact(dtype)) {
    return fmt::format("exact for {}", to_string(dtype));
  }
  std::string bounds = tol.rtol == tol.atol
                           ? fmt::format("rtol=atol={:g}", tol.rtol)
                           : fmt::format("rtol={:g}, atol={:g}", tol.rtol, tol.atol);
  return fmt::format("{} for {}{}", bounds, to_string(dtype),
                     is_complex(dtype) ? " (each part)" : "");
}

std::string describe_nan_mismatch(std::string_view path, const TensorBlob& ref,
                                  const TensorBlob& cand, const LeafStats& stats) {
  return pattern_mismatch("NaN", path, ref, cand, stats.nan_mismatch_count,
                          stats.first_nan_mismatch, stats);
}

std::string describe_inf_mismatch(std::string_view path, const TensorBlob& ref,
                                  const TensorBlob& cand, const LeafStats& stats) {
  return pattern_mismatch("Inf", path, ref, cand, stats.inf_mismatch_count,
                          stats.first_inf_mismatch, stats);
}

std::string describe_value_mismatch(std::string_view path, const TensorBlob& ref,
                                    const TensorBlob& cand, const LeafStats& stats, Tolerance tol) {
  std::string lead = ref.shape.empty() ? fmt::format("{}: value differs", path)
                                       : fmt::format("{}: {} of {} elements differ", path,
                                                     stats.value_mismatch_count, stats.numel);
  std::string first =
      ref.shape.empty() ? "" : fmt::format("first{}; ", at(ref, stats.first_value_mismatch));
  return fmt::format("{} (max abs err {:.1e}{}: {}; max rel err {:.1e}; {}{})", lead,
                     stats.err_abs_max, at(ref, stats.err_abs_max_index),
                     got_expected(ref, cand, stats.err_abs_max_index), stats.err_rel_max, first,
                     describe_tolerance(ref.dtype, tol));
}

std::string describe_metric_mismatch(std::string_view path, const Metrics& m,
                                     const MetricThresholds& thresholds, std::int64_t numel) {
  return fmt::format("{}: {} (cosine_sim {:.6g}, l1_relative {:.6g}, rmse {:.6g} over {} elements)",
                     path, describe_misses(m, thresholds), m.cosine_sim, m.l1_relative, m.rmse,
                     numel);
}

}  // namespace kbx::compare
