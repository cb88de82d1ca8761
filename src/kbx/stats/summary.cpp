// Summary statistics.
#include "kbx/stats/summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kbx/common/check.h"

namespace kbx::stats {

double percentile_sorted(std::span<const double> sorted, double p) {
  KBX_CHECK(!sorted.empty()) << "percentile of no samples";
  double rank = p * static_cast<double>(sorted.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(rank));
  auto hi = std::min(lo + 1, sorted.size() - 1);
  double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.n = samples.size();
  if (s.n == 0) {
    return s;
  }
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = percentile_sorted(sorted, 0.5);
  s.q1 = percentile_sorted(sorted, 0.25);
  s.q3 = percentile_sorted(sorted, 0.75);
  s.mean = arithmetic_mean(sorted);
  if (s.n > 1) {
    double ss = 0;
    for (double v : sorted) {
      ss += (v - s.mean) * (v - s.mean);
    }
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stddev / s.mean : 0;
  s.median_ci_rel = median_ci_rel_sorted(sorted);
  return s;
}

double median_ci_rel_sorted(std::span<const double> sorted) {
  constexpr double kZ = 1.959964;  // two-sided 95%
  std::size_t n = sorted.size();
  if (n < 6) {
    return std::numeric_limits<double>::infinity();
  }
  double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  if (!(median > 0)) {
    return std::numeric_limits<double>::infinity();
  }
  double half = kZ * std::sqrt(static_cast<double>(n)) / 2;
  double centre = static_cast<double>(n) / 2;
  auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(centre - half)));
  auto hi = std::min(n - 1, static_cast<std::size_t>(std::ceil(centre + half)));
  return (sorted[hi] - sorted[lo]) / (2 * median);
}

double geometric_mean(std::span<const double> values) {
  if (values.empty()) {
    return 0;
  }
  double log_sum = 0;
  for (double v : values) {
    KBX_CHECK(v > 0) << "geometric mean of a non-positive value " << v;
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

double arithmetic_mean(std::span<const double> values) {
  if (values.empty()) {
    return 0;
  }
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace kbx::stats
