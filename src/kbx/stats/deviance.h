// Deviance decomposition of a 0/1 outcome over two factors: how much of the null deviance each
// factor explains, alone and given the other (the study's "9.4% vs 3.3% of deviance").
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kbx/common/result.h"
#include "kbx/stats/glm.h"

namespace kbx::stats {

/// One model of the decomposition.
struct ModelDeviance {
  std::string terms;        ///< "category", "method", "category + method"
  double deviance = 0;      ///< per trial (see GlmFit)
  double share = 0;         ///< (null deviance - deviance) / null deviance, in [0, 1]
  int rank = 0;             ///< parameters, intercept included
  bool separation = false;  ///< the deviance is the limit of a separated fit (GlmFit)
  bool converged = false;   ///< converged or separated (a limit); false only if IRLS gave up
};

/// Likelihood-ratio test of a smaller model nested in a larger one.
struct LikelihoodRatio {
  double statistic = 0;  ///< deviance(smaller) - deviance(larger), >= 0
  int df = 0;            ///< rank(larger) - rank(smaller); 0 when the extra factor is aliased
  double p_value = 1;    ///< chi-square survival of the statistic; 1 when df is 0
};

/// Null, A, B and A + B fits of the same data, with the share of the null deviance each explains
/// and the tests of A given B (A + B against B) and B given A (A + B against A).
struct DevianceDecomposition {
  std::int64_t n_trials = 0;
  double null_deviance = 0;  ///< intercept only; rank 1
  ModelDeviance a;
  ModelDeviance b;
  ModelDeviance ab;
  LikelihoodRatio a_given_b;  ///< the effect of A once B is in the model
  LikelihoodRatio b_given_a;
};

/// Fits the four models to `counts` (rows as in fit_logit). Errors (kind input): those of
/// fit_logit, the two factors with one name, and outcomes that are all failures or all
/// successes (a null deviance of 0 leaves no deviance to share out).
Result<DevianceDecomposition> decompose_deviance(const Factor& a, const Factor& b,
                                                 const BinomialCounts& counts,
                                                 const GlmOptions& options = {});

/// The same for 0/1 outcomes, one per row.
Result<DevianceDecomposition> decompose_deviance(const Factor& a, const Factor& b,
                                                 std::span<const int> outcomes,
                                                 const GlmOptions& options = {});

}  // namespace kbx::stats
