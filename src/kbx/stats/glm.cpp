// The binomial logit GLM: IRLS over the cell design, and the limit fit when rows are separated.
#include "kbx/stats/glm.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "kbx/stats/special.h"

namespace kbx::stats {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using Indices = std::vector<Index>;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
/// Separation's mark, on this many iterations in a row: some cells' linear predictor moved by more
/// than 0.5 (Newton moves a separated cell by about 1 per iteration), each of them towards the
/// outcome all its trials share and already beyond +-boundary_eta. Near a finite maximum no cell
/// moves that far. Deciding there, with weights near 1e-5, keeps the information matrix well
/// conditioned; waiting for the deviance to stop changing lets flat directions ruin the steps.
constexpr int separated_iterations = 2;
constexpr double boundary_eta = 10;  // fitted probability below 4.5e-5 (or above 1 - 4.5e-5)

double softplus(double t) {  // log(1 + e^t) without overflow
  return t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}

double logistic(double t) {
  return t >= 0 ? 1 / (1 + std::exp(-t)) : std::exp(t) / (1 + std::exp(t));
}

double logistic_variance(double t) {  // p (1 - p), accurate in both tails
  const double e = std::exp(-std::fabs(t));
  return e / ((1 + e) * (1 + e));
}

/// -2 log-likelihood per trial (Bernoulli scale) at linear predictor eta.
double deviance_at(const VectorXd& eta, const VectorXd& s, const VectorXd& n) {
  double total = 0;
  for (Index i = 0; i < eta.size(); ++i) {
    total += s[i] * softplus(-eta[i]) + (n[i] - s[i]) * softplus(eta[i]);
  }
  return 2 * total;
}

double null_deviance_of(const VectorXd& s, const VectorXd& n) {
  const double successes = s.sum();
  const double trials = n.sum();
  if (successes == 0 || successes == trials) {
    return 0;
  }
  const double p = successes / trials;
  return -2 * (successes * std::log(p) + (trials - successes) * std::log1p(-p));
}

/// X' W X at eta: the Fisher information.
MatrixXd information(const MatrixXd& x, const VectorXd& eta, const VectorXd& n) {
  VectorXd w(eta.size());
  for (Index i = 0; i < eta.size(); ++i) {
    w[i] = n[i] * logistic_variance(eta[i]);
  }
  return x.transpose() * w.asDiagonal() * x;
}

/// One IRLS step: the weighted least-squares fit of the working response at eta. Solves
/// X'WX beta = X'(W eta + s - n p), which is X'Wz without forming z's 1/w. Empty if singular.
std::optional<VectorXd> irls_step(const MatrixXd& x, const VectorXd& eta, const VectorXd& s,
                                  const VectorXd& n) {
  VectorXd rhs(eta.size());
  for (Index i = 0; i < eta.size(); ++i) {
    rhs[i] = n[i] * logistic_variance(eta[i]) * eta[i] + (s[i] - n[i] * logistic(eta[i]));
  }
  Eigen::LDLT<MatrixXd> ldlt(information(x, eta, n));
  VectorXd beta = ldlt.solve(x.transpose() * rhs);
  if (ldlt.info() != Eigen::Success || !beta.allFinite()) {
    return std::nullopt;
  }
  return beta;
}

/// statsmodels' start: mu = (y / n + 1/2) / 2.
VectorXd starting_eta(const VectorXd& s, const VectorXd& n) {
  VectorXd eta(s.size());
  for (Index i = 0; i < s.size(); ++i) {
    const double p = (s[i] / n[i] + 0.5) / 2;
    eta[i] = std::log(p / (1 - p));
  }
  return eta;
}

/// What a diverging IRLS was doing: moving some cells' linear predictor (by about 1 per
/// iteration) toward the outcome all their trials share, through some columns that run off to
/// +-infinity.
struct Separation {
  Indices cells;             ///< rows of the fitted x
  Indices columns;           ///< columns of the fitted x
  std::vector<double> sign;  ///< per column: the direction it runs off in
};

/// The separation that the last step shows, if it shows one (see separated_iterations).
std::optional<Separation> find_separation(const MatrixXd& x, const VectorXd& s, const VectorXd& n,
                                          const VectorXd& eta, const VectorXd& step) {
  const VectorXd move = x * step;
  Separation sep;
  for (Index i = 0; i < move.size(); ++i) {
    if (std::fabs(move[i]) > 0.5) {
      const bool down = move[i] < 0;
      if (down ? s[i] != 0 || eta[i] > -boundary_eta : s[i] != n[i] || eta[i] < boundary_eta) {
        return std::nullopt;
      }
      sep.cells.push_back(i);
    }
  }
  if (sep.cells.empty()) {
    return std::nullopt;
  }
  const double largest = step.cwiseAbs().maxCoeff();
  for (Index j = 0; j < step.size(); ++j) {
    if (std::fabs(step[j]) > 0.1 * largest) {
      sep.columns.push_back(j);
      sep.sign.push_back(step[j] > 0 ? 1.0 : -1.0);
    }
  }
  return sep;
}

struct Irls {
  VectorXd beta;
  double deviance = 0;
  int iterations = 0;
  bool converged = false;
  std::optional<Separation> separation;  ///< IRLS stopped on separation's mark
};

Irls run_irls(const MatrixXd& x, const VectorXd& s, const VectorXd& n, const GlmOptions& opt) {
  Irls r;
  VectorXd eta = starting_eta(s, n);
  r.deviance = deviance_at(eta, s, n);
  r.beta = VectorXd::Zero(x.cols());
  VectorXd step = VectorXd::Constant(x.cols(), inf);
  int marks = 0;
  for (int it = 1; it <= opt.max_iterations; ++it) {
    std::optional<VectorXd> beta = irls_step(x, eta, s, n);
    if (!beta) {
      break;
    }
    VectorXd next_eta = x * *beta;
    const double dev = deviance_at(next_eta, s, n);
    if (!std::isfinite(dev)) {
      break;
    }
    if (it > 1) {
      step = *beta - r.beta;
    }
    const bool dev_done =
        std::fabs(dev - r.deviance) <= opt.deviance_tolerance * (std::fabs(dev) + 0.1);
    const bool beta_done =
        (step.array().abs() <= opt.coefficient_tolerance * (1 + beta->array().abs())).all();
    r.beta = std::move(*beta);
    eta = std::move(next_eta);
    r.deviance = dev;
    r.iterations = it;
    r.converged = dev_done && beta_done;
    if (r.converged) {
      break;
    }
    r.separation = it > 1 ? find_separation(x, s, n, eta, step) : std::nullopt;
    marks = r.separation ? marks + 1 : 0;
    if (marks >= separated_iterations) {
      break;
    }
    r.separation.reset();
  }
  return r;
}

/// The state of a fit that may have dropped separated cells: the cells still fitted, the design
/// columns gone to +-infinity, and the last IRLS run over `columns`.
struct Limit {
  Indices cells;
  std::map<Index, double> infinite;  ///< design column -> sign
  Indices columns;                   ///< design columns of the last run, in its order
  Irls run;
  int iterations = 0;
};

/// Columns for a refit: the finite ones first, so that those stay when the infinite ones are now
/// linear combinations of others on the remaining cells.
Indices refit_order(const Indices& candidates, const std::map<Index, double>& infinite) {
  Indices order;
  for (Index j : candidates) {
    if (!infinite.contains(j)) {
      order.push_back(j);
    }
  }
  for (Index j : candidates) {
    if (infinite.contains(j)) {
      order.push_back(j);
    }
  }
  return order;
}

/// IRLS on all cells; while it stops on separation's mark, drop the separated cells and fit the
/// rest.
Limit fit_limit(const CellDesign& cells, const Indices& design_columns, const GlmOptions& opt) {
  Limit lim;
  for (Index i = 0; i < cells.x.rows(); ++i) {
    lim.cells.push_back(i);
  }
  // Ends: each round that does not return drops at least one cell.
  for (;;) {
    if (lim.cells.empty()) {  // every cell separated: nothing finite left to fit
      lim.columns.clear();
      lim.run = Irls{};
      lim.run.converged = true;
      return lim;
    }
    const MatrixXd rows = cells.x(lim.cells, Eigen::all);
    const VectorXd s = cells.successes(lim.cells);
    const VectorXd n = cells.trials(lim.cells);
    lim.columns = independent_columns(rows, refit_order(design_columns, lim.infinite));
    const MatrixXd x = rows(Eigen::all, lim.columns);
    lim.run = run_irls(x, s, n, opt);
    lim.iterations += lim.run.iterations;
    const std::optional<Separation>& sep = lim.run.separation;
    if (!sep) {
      return lim;
    }
    for (std::size_t k = 0; k < sep->columns.size(); ++k) {
      lim.infinite.try_emplace(lim.columns[static_cast<std::size_t>(sep->columns[k])],
                               sep->sign[k]);
    }
    Indices kept;
    std::set<Index> separated(sep->cells.begin(), sep->cells.end());
    for (std::size_t k = 0; k < lim.cells.size(); ++k) {
      if (!separated.contains(static_cast<Index>(k))) {
        kept.push_back(lim.cells[k]);
      }
    }
    lim.cells = std::move(kept);
  }
}

Coefficient estimated(std::string name, double estimate, double variance) {
  Coefficient c{std::move(name), CoefficientStatus::estimated, estimate, std::sqrt(variance)};
  c.z = c.estimate / c.std_error;
  c.p_value = normal_two_sided_p(c.z);
  return c;
}

Coefficient separated(std::string name, double sign) {
  return {std::move(name), CoefficientStatus::separated, sign * inf, inf, nan, nan};
}

/// The coefficient table and aliased names of a finished fit.
void add_coefficients(const CellDesign& cells, const Indices& design_columns, const Limit& lim,
                      GlmFit& fit) {
  MatrixXd covariance;
  if (!lim.columns.empty()) {
    const MatrixXd x = cells.x(lim.cells, lim.columns);
    const MatrixXd info = information(x, x * lim.run.beta, cells.trials(lim.cells));
    covariance = info.ldlt().solve(MatrixXd::Identity(info.rows(), info.cols()));
  }
  std::set<Index> design(design_columns.begin(), design_columns.end());
  for (Index j = 0; j < cells.x.cols(); ++j) {
    const std::string& name = cells.names[static_cast<std::size_t>(j)];
    auto fitted = std::find(lim.columns.begin(), lim.columns.end(), j);
    if (auto at = lim.infinite.find(j); at != lim.infinite.end()) {
      fit.coefficients.push_back(separated(name, at->second));
    } else if (design.contains(j) && fitted != lim.columns.end()) {
      const Index k = fitted - lim.columns.begin();
      fit.coefficients.push_back(estimated(name, lim.run.beta[k], covariance(k, k)));
    } else {
      fit.aliased.push_back(name);
    }
  }
}

}  // namespace

const Coefficient* GlmFit::find(std::string_view name) const {
  for (const Coefficient& c : coefficients) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

Result<BinomialCounts> counts_from_outcomes(std::span<const int> outcomes) {
  BinomialCounts counts;
  counts.successes.reserve(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i] != 0 && outcomes[i] != 1) {
      return Error(ErrorKind::input, "row {}: outcome {} is not 0 or 1", i, outcomes[i]);
    }
    counts.successes.push_back(outcomes[i]);
  }
  counts.trials.assign(outcomes.size(), 1);
  return counts;
}

Result<GlmFit> fit_logit(std::span<const Factor> factors, const BinomialCounts& counts,
                         const GlmOptions& options) {
  if (std::optional<Error> bad = check_design_input(factors, counts)) {
    return *std::move(bad);
  }
  const CellDesign cells = build_cell_design(factors, counts);
  Indices all(static_cast<std::size_t>(cells.x.cols()));
  for (std::size_t j = 0; j < all.size(); ++j) {
    all[j] = static_cast<Index>(j);
  }
  const Indices design_columns = independent_columns(cells.x, all);
  const Limit lim = fit_limit(cells, design_columns, options);

  GlmFit fit;
  add_coefficients(cells, design_columns, lim, fit);
  fit.separation = !lim.infinite.empty();
  fit.converged = lim.run.converged && !fit.separation;
  fit.iterations = lim.iterations;
  fit.deviance = lim.columns.empty() ? 0 : lim.run.deviance;
  fit.null_deviance = null_deviance_of(cells.successes, cells.trials);
  fit.log_likelihood = -fit.deviance / 2;
  fit.rank = static_cast<int>(design_columns.size());
  fit.aic = fit.deviance + 2 * fit.rank;
  fit.n_trials = static_cast<std::int64_t>(cells.trials.sum());
  return fit;
}

Result<GlmFit> fit_logit(std::span<const Factor> factors, std::span<const int> outcomes,
                         const GlmOptions& options) {
  Result<BinomialCounts> counts = counts_from_outcomes(outcomes);
  if (!counts) {
    return counts.error();
  }
  return fit_logit(factors, *counts, options);
}

}  // namespace kbx::stats
