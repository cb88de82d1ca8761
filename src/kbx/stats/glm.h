// Binomial GLM with logit link over categorical factors, fit by IRLS (Eigen): the model behind
// "exe success is explained by task category far more than by generation method"
// (docs/analysis.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/result.h"
#include "kbx/stats/design.h"

namespace kbx::stats {

/// IRLS settings. Converged means both: the deviance changed by at most
/// deviance_tolerance * (|deviance| + 0.1) in the last iteration (R's glm.fit rule), and no
/// coefficient moved by more than coefficient_tolerance * (1 + |coefficient|).
struct GlmOptions {
  int max_iterations = 100;
  double deviance_tolerance = 1e-10;
  double coefficient_tolerance = 1e-6;
};

/// estimated: a finite maximum-likelihood estimate with a Wald test. separated: the likelihood
/// keeps rising as this coefficient runs off to +-infinity (a level whose rows all fail or all
/// pass); estimate is +-infinity, std_error +infinity, z and p_value NaN (no Wald test exists
/// there: use the likelihood-ratio tests of stats/deviance.h).
enum class CoefficientStatus { estimated, separated };

/// One column of the design: "Intercept" or "<factor>[T.<level>]".
struct Coefficient {
  std::string name;
  CoefficientStatus status = CoefficientStatus::estimated;
  double estimate = 0;   ///< on the logit scale
  double std_error = 0;  ///< from the inverse Fisher information (scale 1)
  double z = 0;          ///< estimate / std_error
  double p_value = 0;    ///< two-sided, normal
};

/// A fitted model. Deviance and log-likelihood are per trial (Bernoulli scale: the saturated
/// model predicts each 0/1 outcome exactly), so grouped counts give the same numbers as the same
/// outcomes one per row; statsmodels' grouped deviance differs from it by a constant (the
/// saturated log-likelihood of the groups), which cancels in likelihood-ratio tests but not in
/// deviance shares.
struct GlmFit {
  /// Intercept, then each factor's non-baseline levels in sorted order, factors in input order;
  /// aliased columns are left out (see `aliased`).
  std::vector<Coefficient> coefficients;
  /// Columns dropped because they are linear combinations of earlier columns (a factor nested in
  /// or equal to an earlier one): the later column in design order is the one dropped, as R does.
  /// With separation, also columns that only the separated rows could estimate.
  std::vector<std::string> aliased;
  double deviance = 0;        ///< -2 log-likelihood; with separation, its limit
  double null_deviance = 0;   ///< deviance of the intercept-only model
  double log_likelihood = 0;  ///< -deviance / 2
  double aic = 0;             ///< deviance + 2 * rank
  int rank = 0;               ///< parameters: columns not aliased (statsmodels' df_model + 1)
  std::int64_t n_trials = 0;  ///< observations: the sum of trials
  int iterations = 0;         ///< IRLS iterations (weighted least-squares solves), all fits
  bool converged = false;     ///< IRLS converged to a finite maximum (false with separation)
  bool separation = false;    ///< some rows are fitted perfectly in the limit (see status)

  /// The coefficient named `name`, or nullptr.
  [[nodiscard]] const Coefficient* find(std::string_view name) const;
};

/// Fits logit Pr(success) = intercept + treatment-coded factors to binomial counts. Rows with the
/// same levels are pooled first, so the cost after one pass over the rows depends only on the
/// number of distinct level combinations. With separation the result is the limit the likelihood
/// tends to (docs/analysis.md): separated rows contribute deviance 0, the other coefficients are
/// the fit of the remaining rows. Errors (kind input): mismatched lengths, no rows, counts out of
/// range, duplicate or empty factor names.
Result<GlmFit> fit_logit(std::span<const Factor> factors, const BinomialCounts& counts,
                         const GlmOptions& options = {});

/// The same for 0/1 outcomes, one per row (anything else is an input error).
Result<GlmFit> fit_logit(std::span<const Factor> factors, std::span<const int> outcomes,
                         const GlmOptions& options = {});

/// 0/1 outcomes as counts with one trial each; an input error names the first other value.
Result<BinomialCounts> counts_from_outcomes(std::span<const int> outcomes);

}  // namespace kbx::stats
