// Bootstrap of task speedups: resampled medians drawn from order-statistic tables, not sorts.
#include "kbx/stats/bootstrap.h"

#include <algorithm>
#include <cmath>

#include "kbx/common/check.h"
#include "kbx/stats/summary.h"

namespace kbx::stats {
namespace {

// A term this much smaller than the sum so far ends a tail sum (the terms only shrink from there).
constexpr double negligible_term = 1e-17;

// log of C(n, j) p^j (1 - p)^(n - j), for 0 < p < 1.
double log_binomial_pmf(std::size_t n, std::size_t j, double p) {
  auto nn = static_cast<double>(n);
  auto jj = static_cast<double>(j);
  return std::lgamma(nn + 1) - std::lgamma(jj + 1) - std::lgamma(nn - jj + 1) + jj * std::log(p) +
         (nn - jj) * std::log1p(-p);
}

// P(a = k, b = 0) where a and b count the n draws from positions 1..n that fall below position i
// and on it: every draw below i for k of them, above i for the rest.
double probability_k_below_none_at(std::size_t n, std::size_t i, std::size_t k) {
  auto nn = static_cast<double>(n);
  double below = static_cast<double>(i - 1) / nn;
  double above = static_cast<double>(n - i) / nn;
  if (below <= 0 || above <= 0) {
    return 0;  // k >= 1 draws below position 1, or n - k >= 1 draws above position n
  }
  auto kk = static_cast<double>(k);
  return std::exp(std::lgamma(nn + 1) - std::lgamma(kk + 1) - std::lgamma(nn - kk + 1) +
                  kk * std::log(below) + (nn - kk) * std::log(above));
}

// A side can be resampled: two samples or more, every one a positive finite time.
bool resamplable(std::span<const double> samples) {
  return samples.size() >= 2 && std::all_of(samples.begin(), samples.end(), [](double v) {
           return std::isfinite(v) && v > 0;
         });
}

}  // namespace

double binomial_upper_tail(std::size_t n, double p, std::size_t k) {
  if (k == 0 || p >= 1) {
    return k <= n ? 1.0 : 0.0;
  }
  if (k > n || p <= 0) {
    return 0;
  }
  double odds = p / (1 - p);
  double sum = 0;
  if (static_cast<double>(k) > static_cast<double>(n) * p) {  // above the mean: sum k..n upward
    double term = std::exp(log_binomial_pmf(n, k, p));
    for (std::size_t j = k; j <= n; ++j) {
      sum += term;
      if (term <= sum * negligible_term) {
        break;
      }
      term *= static_cast<double>(n - j) / static_cast<double>(j + 1) * odds;
    }
    return sum;
  }
  double term = std::exp(log_binomial_pmf(n, k - 1, p));  // else 1 - P(X <= k - 1), downward
  for (std::size_t j = k - 1;; --j) {
    sum += term;
    if (j == 0 || term <= sum * negligible_term) {
      break;
    }
    term *= static_cast<double>(j) / static_cast<double>(n - j + 1) / odds;
  }
  return std::max(0.0, 1 - sum);
}

ResampledMedian::ResampledMedian(std::size_t n) : n_(n), k_((n + 1) / 2) {
  KBX_CHECK(n >= 1) << "the median of a resample of no samples";
  auto nn = static_cast<double>(n);
  // tail[i]: P(at least k of the n draws at positions <= i), i = 0..n (1-based positions).
  std::vector<double> tail(n + 1);
  for (std::size_t i = 0; i <= n; ++i) {
    tail[i] = binomial_upper_tail(n, static_cast<double>(i) / nn, k_);
  }
  cdf_.assign(tail.begin() + 1, tail.end());
  cdf_.back() = 1;  // exactly, so a search always ends
  guide_.resize(n);
  std::size_t i = 0;
  for (std::size_t g = 0; g < n; ++g) {
    while (cdf_[i] <= static_cast<double>(g) / nn) {
      ++i;
    }
    guide_[g] = i;
  }
  if (n % 2 == 1) {
    return;
  }
  // P(two middle draws at i) = P(at least k + 1 draws <= i) - P(at least k draws < i)
  //                            + P(exactly k draws < i and none at i).
  stay_.resize(n);
  first_of_.resize(n);
  for (std::size_t left = 1; left < n; ++left) {  // 1 - (1 - 1 / left)^(n - k)
    first_of_[left] = -std::expm1(static_cast<double>(n - k_) *
                                  std::log1p(-1.0 / static_cast<double>(left)));
  }
  first_of_[1] = 1;  // exactly, so the walk up always ends
  for (std::size_t pos = 1; pos <= n; ++pos) {
    double at = tail[pos] - tail[pos - 1];  // P(the lower middle draw is at pos)
    double both = binomial_upper_tail(n, static_cast<double>(pos) / nn, k_ + 1) - tail[pos - 1] +
                  probability_k_below_none_at(n, pos, k_);
    stay_[pos - 1] = at > 0 ? std::clamp(both / at, 0.0, 1.0) : 1.0;
  }
}

std::size_t ResampledMedian::lower_position(Rng& rng) const {
  double u = rng.uniform();
  auto g = std::min(static_cast<std::size_t>(u * static_cast<double>(n_)), n_ - 1);
  std::size_t i = guide_[g];
  while (cdf_[i] <= u) {
    ++i;
  }
  return i;
}

std::size_t ResampledMedian::upper_position(std::size_t lower, Rng& rng) const {
  std::size_t above = n_ - 1 - lower;  // positions above the lower middle draw
  if (above == 0 || rng.uniform() < stay_[lower]) {
    return lower;
  }
  // Exactly k draws at or below `lower`; the other n - k are uniform over the positions above it,
  // and the upper middle draw is the least of them: the next position up with probability
  // first_of_[above], else one further up among one position fewer.
  std::size_t upper = lower + 1;
  for (std::size_t left = above; rng.uniform() >= first_of_[left]; --left) {
    ++upper;
  }
  return upper;
}

double ResampledMedian::draw(std::span<const double> sorted, Rng& rng) const {
  KBX_CHECK(sorted.size() == n_) << "a table for " << n_ << " samples given " << sorted.size();
  std::size_t lower = lower_position(rng);
  if (n_ % 2 == 1) {
    return sorted[lower];
  }
  std::size_t upper = upper_position(lower, rng);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * 0.5;  // as percentile_sorted does
}

SpeedupBootstrap::SpeedupBootstrap(BootstrapOptions options) : options_(options) {
  KBX_CHECK(options_.replicates >= 1) << "replicates " << options_.replicates;
  KBX_CHECK(options_.confidence > 0 && options_.confidence < 1)
      << "confidence " << options_.confidence;
}

const ResampledMedian& SpeedupBootstrap::median_of(std::size_t n) {
  auto it = medians_.find(n);
  if (it == medians_.end()) {
    it = medians_.emplace(n, ResampledMedian(n)).first;
  }
  return it->second;
}

// Adds one resampled median of `samples` to each replicate's sum.
void SpeedupBootstrap::add_medians(std::span<const double> samples, Rng& rng,
                                   std::vector<double>& sums) {
  sorted_.assign(samples.begin(), samples.end());
  std::sort(sorted_.begin(), sorted_.end());
  const ResampledMedian& median = median_of(sorted_.size());
  for (double& sum : sums) {
    sum += median.draw(sorted_, rng);
  }
}

std::optional<Interval> SpeedupBootstrap::interval(std::span<const WorkloadSamples> workloads,
                                                   std::uint64_t seed) {
  bool usable = !workloads.empty() && std::all_of(workloads.begin(), workloads.end(), [](auto& w) {
    return resamplable(w.candidate) && resamplable(w.reference);
  });
  if (!usable) {
    return std::nullopt;
  }
  auto replicates = static_cast<std::size_t>(options_.replicates);
  candidate_sums_.assign(replicates, 0.0);
  reference_sums_.assign(replicates, 0.0);
  Rng rng(seed);
  for (const WorkloadSamples& w : workloads) {
    add_medians(w.candidate, rng, candidate_sums_);
    add_medians(w.reference, rng, reference_sums_);
  }
  std::vector<double>& ratios = reference_sums_;
  for (std::size_t b = 0; b < replicates; ++b) {
    ratios[b] /= candidate_sums_[b];
  }
  std::sort(ratios.begin(), ratios.end());
  double outside = (1 - options_.confidence) / 2;
  return Interval{percentile_sorted(ratios, outside), percentile_sorted(ratios, 1 - outside)};
}

}  // namespace kbx::stats
