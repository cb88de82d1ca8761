// The four fits of a two-factor deviance decomposition and their likelihood-ratio tests.
#include "kbx/stats/deviance.h"

#include <algorithm>
#include <vector>

#include "kbx/stats/special.h"

namespace kbx::stats {
namespace {

ModelDeviance model_of(std::string terms, const GlmFit& fit) {
  ModelDeviance m;
  m.terms = std::move(terms);
  m.deviance = fit.deviance;
  m.share = (fit.null_deviance - fit.deviance) / fit.null_deviance;
  m.rank = fit.rank;
  m.separation = fit.separation;
  m.converged = fit.converged || fit.separation;
  return m;
}

LikelihoodRatio likelihood_ratio(const ModelDeviance& smaller, const ModelDeviance& larger) {
  LikelihoodRatio lr;
  lr.statistic = std::max(0.0, smaller.deviance - larger.deviance);  // rounding can dip below 0
  lr.df = larger.rank - smaller.rank;
  lr.p_value = lr.df > 0 ? chi_square_sf(lr.statistic, lr.df) : 1;
  return lr;
}

}  // namespace

Result<DevianceDecomposition> decompose_deviance(const Factor& a, const Factor& b,
                                                 const BinomialCounts& counts,
                                                 const GlmOptions& options) {
  if (a.name == b.name) {
    return Error(ErrorKind::input, "deviance decomposition of factor '{}' against itself", a.name);
  }
  const std::vector<Factor> both = {a, b};
  Result<GlmFit> fit_a = fit_logit(std::span(both).first(1), counts, options);
  Result<GlmFit> fit_b = fit_logit(std::span(both).last(1), counts, options);
  Result<GlmFit> fit_ab = fit_logit(both, counts, options);
  for (const Result<GlmFit>* r : {&fit_a, &fit_b, &fit_ab}) {
    if (!r->ok()) {
      return r->error();
    }
  }
  DevianceDecomposition d;
  d.n_trials = fit_ab->n_trials;
  d.null_deviance = fit_ab->null_deviance;
  if (d.null_deviance == 0) {
    return Error(ErrorKind::input,
                 "all {} outcomes are {}: there is no deviance for '{}' or '{}' to explain",
                 d.n_trials, counts.successes[0] == 0 ? "failures" : "successes", a.name, b.name);
  }
  d.a = model_of(a.name, *fit_a);
  d.b = model_of(b.name, *fit_b);
  d.ab = model_of(a.name + " + " + b.name, *fit_ab);
  d.a_given_b = likelihood_ratio(d.b, d.ab);
  d.b_given_a = likelihood_ratio(d.a, d.ab);
  return d;
}

Result<DevianceDecomposition> decompose_deviance(const Factor& a, const Factor& b,
                                                 std::span<const int> outcomes,
                                                 const GlmOptions& options) {
  Result<BinomialCounts> counts = counts_from_outcomes(outcomes);
  if (!counts) {
    return counts.error();
  }
  return decompose_deviance(a, b, *counts, options);
}

}  // namespace kbx::stats
