// Metrics from running sums, with the zero-reference conventions of docs/suite-format.md.
#include "kbx/compare/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbx::compare {

MetricSums& MetricSums::operator+=(const MetricSums& other) {
  dot += other.dot;
  cand_sq += other.cand_sq;
  ref_sq += other.ref_sq;
  diff_sq += other.diff_sq;
  diff_abs += other.diff_abs;
  ref_abs += other.ref_abs;
  parts += other.parts;
  return *this;
}

Metrics metrics_from(const MetricSums& s) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (s.diff_abs == 0) {  // identical where finite (also: empty): perfect, free of rounding
    return Metrics{};
  }
  if (s.ref_abs == 0) {  // an all-zero reference and a candidate that is not
    return Metrics{.cosine_sim = 0, .l1_relative = inf, .rmse = inf};
  }
  Metrics m;
  const double product =
      s.cand_sq * s.ref_sq;  // one sqrt where it neither overflows nor underflows
  const double norms =
      std::isnormal(product) ? std::sqrt(product) : std::sqrt(s.cand_sq) * std::sqrt(s.ref_sq);
  m.cosine_sim = norms > 0 ? std::clamp(s.dot / norms, -1.0, 1.0) : 0.0;
  m.l1_relative = s.diff_abs / s.ref_abs;
  // Squares of float64 values below ~1e-154 underflow: with no reference energy left, fall back
  // to +Inf (the error's did not underflow, so it dominates) or to l1_relative (neither did).
  m.rmse = s.ref_sq > 0 ? std::sqrt(s.diff_sq / s.ref_sq) : s.diff_sq > 0 ? inf : m.l1_relative;
  m.rmse_absolute = s.parts > 0 ? std::sqrt(s.diff_sq / static_cast<double>(s.parts)) : 0.0;
  return m;
}

bool meets(const Metrics& m, const MetricThresholds& t) {
  return (!t.cosine_sim_min || m.cosine_sim >= *t.cosine_sim_min) &&
         (!t.l1_relative_max || m.l1_relative <= *t.l1_relative_max) &&
         (!t.rmse_max || m.rmse <= *t.rmse_max) &&
         (!t.rmse_absolute_max || m.rmse_absolute <= *t.rmse_absolute_max);
}

std::string describe_misses(const Metrics& m, const MetricThresholds& t) {
  std::string out;
  auto add = [&out](std::string text) { out += out.empty() ? text : "; " + text; };
  if (t.cosine_sim_min && !(m.cosine_sim >= *t.cosine_sim_min)) {
    add(fmt::format("cosine_sim {:.6g} < {:g}", m.cosine_sim, *t.cosine_sim_min));
  }
  if (t.l1_relative_max && !(m.l1_relative <= *t.l1_relative_max)) {
    add(fmt::format("l1_relative {:.6g} > {:g}", m.l1_relative, *t.l1_relative_max));
  }
  if (t.rmse_max && !(m.rmse <= *t.rmse_max)) {
    add(fmt::format("rmse {:.6g} > {:g}", m.rmse, *t.rmse_max));
  }
  if (t.rmse_absolute_max && !(m.rmse_absolute <= *t.rmse_absolute_max)) {
    add(fmt::format("rmse (absolute) {:.6g} > {:g}", m.rmse_absolute, *t.rmse_absolute_max));
  }
  return out;
}

}  // namespace kbx::compare
