// Bootstrap of task speedups: resampled medians drawn from order-statistic tables, not sorts.
#include "kbx/stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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

// P(the least of `draws` draws spread uniformly over `left` positions is the t-th or later).
double least_at_or_after(std::size_t draws, std::size_t left, std::size_t t) {
  if (t > left) {
    return 0;
  }
  auto l = static_cast<double>(left);
  return std::pow((l - static_cast<double>(t - 1)) / l, static_cast<double>(draws));
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

AliasTable::AliasTable(std::span<const double> weights)
    : keep_(weights.size(), 1.0), alias_(weights.size()) {
  double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  KBX_CHECK(total > 0) << "an alias table of no weight";
  auto m = static_cast<double>(weights.size());
  std::vector<double> scaled(weights.size());
  std::vector<std::size_t> small, large;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    KBX_CHECK(weights[i] >= 0) << "weight " << weights[i];
    scaled[i] = weights[i] * m / total;
    (scaled[i] < 1 ? small : large).push_back(i);
    alias_[i] = i;
  }
  while (!small.empty() && !large.empty()) {
    std::size_t s = small.back();
    std::size_t l = large.back();
    small.pop_back();
    keep_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] -= 1 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }  // what is left holds 1 up to rounding, and keeps itself
}

// The weights of the middle draws' outcomes (see ResampledMedian::middle_).
AliasTable ResampledMedian::middle_table(std::size_t n, std::size_t slots) {
  KBX_CHECK(n >= 1) << "the median of a resample of no samples";
  std::size_t k = (n + 1) / 2;
  auto nn = static_cast<double>(n);
  // tail[i]: P(at least k of the n draws at positions <= i), i = 0..n (1-based positions).
  std::vector<double> tail(n + 1);
  for (std::size_t i = 0; i <= n; ++i) {
    tail[i] = binomial_upper_tail(n, static_cast<double>(i) / nn, k);
  }
  std::vector<double> weights;
  for (std::size_t pos = 1; pos <= n; ++pos) {
    double at = std::max(0.0, tail[pos] - tail[pos - 1]);  // P(the lower middle draw is at pos)
    if (slots == 1) {
      weights.push_back(at);
      continue;
    }
    // P(both middle draws at pos) = P(at least k + 1 draws <= pos) - P(at least k draws < pos)
    //                               + P(exactly k draws < pos and none at pos).
    double both = binomial_upper_tail(n, static_cast<double>(pos) / nn, k + 1) - tail[pos - 1] +
                  probability_k_below_none_at(n, pos, k);
    double stay = pos == n ? at : std::clamp(both, 0.0, at);  // nothing above the last
    weights.push_back(stay);
    std::size_t left = n - pos;  // the n - k other draws spread over the positions above
    for (std::size_t t = 1; t + 1 < slots; ++t) {
      weights.push_back((at - stay) * (least_at_or_after(n - k, left, t) -
                                       least_at_or_after(n - k, left, t + 1)));
    }
    weights.push_back((at - stay) * least_at_or_after(n - k, left, slots - 1));
  }
  return AliasTable(weights);
}

ResampledMedian::ResampledMedian(std::size_t n, std::size_t even_slots)
    : n_(n), k_((n + 1) / 2), slots_(n % 2 == 1 ? 1 : even_slots),
      middle_(middle_table(n, slots_)) {
  KBX_CHECK(even_slots >= 2) << "even_slots " << even_slots << " leaves no room above";
  if (slots_ == 1) {
    return;
  }
  first_of_.resize(n);
  for (std::size_t left = 1; left < n; ++left) {  // 1 - (1 - 1 / left)^(n - k)
    first_of_[left] = -std::expm1(static_cast<double>(n - k_) *
                                  std::log1p(-1.0 / static_cast<double>(left)));
  }
}

// The upper middle draw given that it is at least `offset` positions above `lower`: the least of
// the n - k draws spread uniformly over the positions from there up is the first of them with
// probability first_of_[positions left], else one further up, among one position fewer.
std::size_t ResampledMedian::walk_up(std::size_t lower, std::size_t offset, Rng& rng) const {
  std::size_t upper = lower + offset;
  for (std::size_t left = n_ - upper; left > 1 && rng.uniform() >= first_of_[left]; --left) {
    ++upper;
  }
  return upper;
}

double ResampledMedian::draw(std::span<const double> sorted, Rng& rng) const {
  KBX_CHECK(sorted.size() == n_) << "a table for " << n_ << " samples given " << sorted.size();
  std::size_t outcome = middle_.draw(rng);
  std::size_t lower = outcome / slots_;
  std::size_t offset = outcome % slots_;
  bool further = slots_ > 1 && offset + 1 == slots_;  // the last slot: that far or further
  std::size_t upper = further ? walk_up(lower, offset, rng) : lower + offset;
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
