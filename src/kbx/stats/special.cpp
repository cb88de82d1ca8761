// The regularized incomplete gamma function (Numerical Recipes, 3rd ed., section 6.2: gser, gcf).
#include "kbx/stats/special.h"

#include <cmath>
#include <limits>

#include "kbx/common/check.h"

namespace kbx::stats {
namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr double tiny = std::numeric_limits<double>::min() / eps;  // Lentz's guard against 0
constexpr int max_terms = 100'000;  // a in the thousands needs a few hundred terms

/// exp(-x) x^a / Γ(a), the factor both expansions share, computed in logs.
double prefactor(double a, double x) { return std::exp(-x + a * std::log(x) - std::lgamma(a)); }

/// P(a, x) by its series; converges quickly for x < a + 1.
double gamma_p_series(double a, double x) {
  double ap = a;
  double term = 1 / a;
  double sum = term;
  for (int n = 0; n < max_terms; ++n) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * eps) {
      return sum * prefactor(a, x);
    }
  }
  KBX_CHECK(false) << "incomplete gamma series did not converge: a=" << a << " x=" << x;
  return 0;
}

/// Q(a, x) by its continued fraction (modified Lentz); converges quickly for x >= a + 1.
double gamma_q_fraction(double a, double x) {
  double b = x + 1 - a;
  double c = 1 / tiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < max_terms; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    d = std::fabs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = std::fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < eps) {
      return prefactor(a, x) * h;
    }
  }
  KBX_CHECK(false) << "incomplete gamma fraction did not converge: a=" << a << " x=" << x;
  return 0;
}

void check_arguments(double a, double x) {
  KBX_CHECK(a > 0 && x >= 0 && std::isfinite(a) && !std::isnan(x))
      << "incomplete gamma needs a > 0 and x >= 0: a=" << a << " x=" << x;
}

}  // namespace

double regularized_gamma_p(double a, double x) {
  check_arguments(a, x);
  if (x == 0) {
    return 0;
  }
  if (std::isinf(x)) {
    return 1;
  }
  return x < a + 1 ? gamma_p_series(a, x) : 1 - gamma_q_fraction(a, x);
}

double regularized_gamma_q(double a, double x) {
  check_arguments(a, x);
  if (x == 0) {
    return 1;
  }
  if (std::isinf(x)) {
    return 0;
  }
  return x < a + 1 ? 1 - gamma_p_series(a, x) : gamma_q_fraction(a, x);
}

double chi_square_sf(double x, double df) {
  KBX_CHECK(df > 0) << "chi-square with df=" << df;
  return x <= 0 ? 1 : regularized_gamma_q(df / 2, x / 2);
}

double normal_two_sided_p(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

}  // namespace kbx::stats
