// Special functions for the statistics' p-values: the regularized incomplete gamma function, and
// the chi-square and normal tails built on it.
#pragma once

namespace kbx::stats {

/// P(a, x) = γ(a, x) / Γ(a), the regularized lower incomplete gamma function, for a > 0 and
/// x >= 0 (Numerical Recipes' gammp: a series below x = a + 1, a continued fraction above).
/// Relative accuracy about 1e-13 for a up to a few hundred. Example: P(1, x) = 1 - exp(-x).
double regularized_gamma_p(double a, double x);

/// Q(a, x) = 1 - P(a, x), the upper tail, computed directly where it is small (NR's gammq), so
/// that p-values like 1e-40 keep their digits.
double regularized_gamma_q(double a, double x);

/// Survival function of the chi-square distribution with `df` > 0 degrees of freedom:
/// Pr(X > x) = Q(df / 2, x / 2); 1 for x <= 0. Example: chi_square_sf(3.841458820694124, 1) = 0.05.
double chi_square_sf(double x, double df);

/// Two-sided p-value of a standard normal statistic: Pr(|Z| > |z|) = erfc(|z| / sqrt(2)).
double normal_two_sided_p(double z);

}  // namespace kbx::stats
