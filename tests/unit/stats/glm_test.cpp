// The logit GLM against statsmodels (tests/unit/stats/data): coefficients, standard errors,
// deviance; grouped counts; separation's limit; aliased columns; input errors.
#include "kbx/stats/glm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "glm_data.h"
#include "support/test_support.h"

namespace kbx::stats {
namespace {

using testing::expect_close;
using testing::expect_relative;
using testing::Grouped;
using testing::load_grouped;
using testing::load_outcomes;
using testing::Outcomes;
using testing::reference;

constexpr double tol = 1e-6;  // the brief's bound against statsmodels (relative where large)

GlmFit fit_ok(std::span<const Factor> factors, std::span<const int> y, GlmOptions options = {}) {
  Result<GlmFit> fit = fit_logit(factors, y, options);
  EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().what());
  return fit.ok() ? *fit : GlmFit{};
}

GlmFit fit_ok(std::span<const Factor> factors, const BinomialCounts& counts) {
  Result<GlmFit> fit = fit_logit(factors, counts);
  EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().what());
  return fit.ok() ? *fit : GlmFit{};
}

GlmFit fit_both(const Outcomes& o) {
  return fit_ok(std::vector<Factor>{o.category, o.method}, o.y);
}

const Coefficient& coefficient(const GlmFit& fit, const std::string& name) {
  const Coefficient* c = fit.find(name);
  EXPECT_NE(c, nullptr) << name;
  static const Coefficient missing{};
  return c != nullptr ? *c : missing;
}

/// Every finite statsmodels coefficient named in `ref` (a "fits" entry) against kbx's.
void expect_coefficients(const GlmFit& fit, const Json& ref, double within) {
  for (std::size_t k = 0; k < ref["names"].size(); ++k) {
    const std::string name = ref["names"][k];
    const Coefficient& c = coefficient(fit, name);
    if (c.status != CoefficientStatus::estimated) {
      continue;  // compared by the separation tests
    }
    expect_close(c.estimate, ref["params"][k], within, name + " estimate");
    expect_close(c.std_error, ref["bse"][k], within, name + " std error");
    expect_close(c.z, ref["tvalues"][k], within, name + " z");
    expect_relative(c.p_value, ref["pvalues"][k], 10 * within, name + " p-value");
  }
}

TEST(GlmFit, MatchesStatsmodelsOnCategoryPlusMethod) {
  const Json& ref = reference()["fits"]["outcomes"];
  GlmFit fit = fit_both(load_outcomes("glm_outcomes.csv"));
  ASSERT_EQ(fit.coefficients.size(), ref["names"].size());
  for (std::size_t k = 0; k < fit.coefficients.size(); ++k) {
    EXPECT_EQ(fit.coefficients[k].name, ref["names"][k]) << "order: intercept, then patsy's";
  }
  expect_coefficients(fit, ref, tol);
  expect_close(fit.deviance, ref["deviance"], tol, "deviance");
  expect_close(fit.null_deviance, ref["null_deviance"], tol, "null deviance");
  expect_close(fit.log_likelihood, ref["llf"], tol, "log-likelihood");
  expect_close(fit.aic, ref["aic"], tol, "aic");
  EXPECT_EQ(fit.rank, ref["df_model"].get<int>() + 1);
  EXPECT_EQ(fit.n_trials, ref["nobs"].get<std::int64_t>());
  EXPECT_TRUE(fit.converged);
  EXPECT_FALSE(fit.separation);
  EXPECT_TRUE(fit.aliased.empty());
  EXPECT_LE(fit.iterations, 8);
}

TEST(GlmFit, CoefficientsAreNamedLikePatsyWithTheFirstSortedLevelAsBaseline) {
  Factor f{"category", {"Math", "Activation", "Math", "Fusion", "Activation", "Fusion"}};
  GlmFit fit = fit_ok(std::vector<Factor>{f}, std::vector<int>{1, 0, 0, 1, 1, 0});
  ASSERT_EQ(fit.coefficients.size(), 3u);
  EXPECT_EQ(fit.coefficients[0].name, "Intercept");
  EXPECT_EQ(fit.coefficients[1].name, "category[T.Fusion]");
  EXPECT_EQ(fit.coefficients[2].name, "category[T.Math]");
}

TEST(GlmFit, GroupedCountsGiveTheSameFitAsOneOutcomePerRow) {
  GlmFit rows = fit_both(load_outcomes("glm_outcomes.csv"));
  Grouped g = load_grouped("glm_grouped.csv");
  GlmFit grouped = fit_ok(std::vector<Factor>{g.category, g.method}, g.counts);
  ASSERT_EQ(grouped.coefficients.size(), rows.coefficients.size());
  for (std::size_t k = 0; k < rows.coefficients.size(); ++k) {
    const std::string& name = rows.coefficients[k].name;
    expect_close(grouped.coefficients[k].estimate, rows.coefficients[k].estimate, 1e-12, name);
    expect_close(grouped.coefficients[k].std_error, rows.coefficients[k].std_error, 1e-12, name);
  }
  expect_close(grouped.deviance, rows.deviance, 1e-12, "deviance, per trial in both");
  expect_close(grouped.null_deviance, rows.null_deviance, 1e-12, "null deviance");
  EXPECT_EQ(grouped.n_trials, rows.n_trials);
  EXPECT_EQ(grouped.rank, rows.rank);
}

TEST(GlmFit, GroupedCountsMatchStatsmodelsCoefficientsButNotItsGroupedDeviance) {
  const Json& ref = reference()["fits"]["grouped"];
  Grouped g = load_grouped("glm_grouped.csv");
  GlmFit fit = fit_ok(std::vector<Factor>{g.category, g.method}, g.counts);
  expect_coefficients(fit, ref, tol);
  // statsmodels' grouped deviance is against a saturated model per row of counts; kbx's is per
  // trial, the ungrouped one (docs/analysis.md).
  expect_close(fit.deviance, reference()["fits"]["outcomes"]["deviance"], tol, "per trial");
  EXPECT_GT(fit.deviance - ref["deviance"].get<double>(), 1000);
}

TEST(GlmFit, SeparatedLevelRunsOffToMinusInfinityAndTheRestIsTheLimitFit) {
  const Json& sm = reference()["fits"]["separated"];
  const Json& limit = reference()["fits"]["separated_limit"];
  GlmFit fit = fit_both(load_outcomes("glm_outcomes_separated.csv"));
  EXPECT_TRUE(fit.separation);
  EXPECT_FALSE(fit.converged);
  const Coefficient& q = coefficient(fit, "category[T.Quantization]");
  EXPECT_EQ(q.status, CoefficientStatus::separated);
  EXPECT_EQ(q.estimate, -INFINITY);
  EXPECT_EQ(q.std_error, INFINITY);
  EXPECT_TRUE(std::isnan(q.z) && std::isnan(q.p_value));
  // statsmodels stops where the deviance stalls: a large finite estimate with a huge error.
  EXPECT_LT(sm["params"][5].get<double>(), -20.0);
  EXPECT_GT(sm["bse"][5].get<double>(), 1e3);
  // The other coefficients: statsmodels' to 1e-6; the limit's (the fit without those rows).
  expect_coefficients(fit, sm, tol);
  expect_coefficients(fit, limit, 1e-9);
  expect_close(fit.deviance, sm["deviance"], tol, "deviance vs statsmodels");
  expect_close(fit.deviance, limit["deviance"], 1e-10, "deviance vs the limit");
  expect_close(fit.null_deviance, sm["null_deviance"], tol, "null deviance");
  expect_close(fit.aic, sm["aic"], tol, "aic counts the separated parameter");
  EXPECT_EQ(fit.rank, 9);
}

TEST(GlmFit, SeparatedBaselineSendsInterceptAndItsContrastsToInfinity) {
  const Json& sm = reference()["fits"]["separated_baseline"];
  const Json& limit = reference()["fits"]["separated_baseline_limit"];
  GlmFit fit = fit_both(load_outcomes("glm_outcomes_separated_baseline.csv"));
  EXPECT_TRUE(fit.separation);
  // Activation (the baseline) always passes: intercept +inf, every other category -inf.
  EXPECT_EQ(coefficient(fit, "Intercept").estimate, INFINITY);
  for (const char* c : {"Fusion", "LinearAlgebra", "Math", "Normalization", "Quantization"}) {
    const Coefficient& k = coefficient(fit, std::string("category[T.") + c + "]");
    EXPECT_EQ(k.status, CoefficientStatus::separated) << c;
    EXPECT_EQ(k.estimate, -INFINITY) << c;
  }
  for (const char* m : {"method[T.few_shot]", "method[T.one_shot]", "method[T.refine]"}) {
    EXPECT_EQ(coefficient(fit, m).status, CoefficientStatus::estimated) << m;
  }
  expect_coefficients(fit, sm, tol);
  expect_coefficients(fit, limit, 1e-9);
  expect_close(fit.deviance, sm["deviance"], tol, "deviance vs statsmodels");
  expect_close(fit.deviance, limit["deviance"], 1e-10, "deviance vs the limit");
  EXPECT_TRUE(fit.aliased.empty());
}

TEST(GlmFit, CompleteSeparationHasDevianceZero) {
  Factor f{"f", {"a", "a", "a", "b", "b"}};
  GlmFit fit = fit_ok(std::vector<Factor>{f}, std::vector<int>{0, 0, 0, 1, 1});
  EXPECT_TRUE(fit.separation);
  EXPECT_FALSE(fit.converged);
  EXPECT_EQ(fit.deviance, 0.0);
  EXPECT_EQ(coefficient(fit, "Intercept").estimate, -INFINITY);
  EXPECT_EQ(coefficient(fit, "f[T.b]").estimate, INFINITY);
  EXPECT_NEAR(fit.null_deviance, -2 * (2 * std::log(0.4) + 3 * std::log(0.6)), 1e-12);
}

TEST(GlmFit, AllFailuresWithoutFactorsSeparateTheIntercept) {
  GlmFit fit = fit_ok({}, std::vector<int>{0, 0, 0, 0});
  EXPECT_TRUE(fit.separation);
  EXPECT_EQ(fit.deviance, 0.0);
  EXPECT_EQ(fit.null_deviance, 0.0);
  ASSERT_EQ(fit.coefficients.size(), 1u);
  EXPECT_EQ(fit.coefficients[0].estimate, -INFINITY);
}

TEST(GlmFit, InterceptOnlyIsTheLogitOfTheMeanWithItsBinomialError) {
  GlmFit fit = fit_ok({}, std::vector<int>{1, 0, 0, 1, 1, 1, 0, 1, 1, 1});
  ASSERT_EQ(fit.coefficients.size(), 1u);
  EXPECT_NEAR(fit.coefficients[0].estimate, std::log(7.0 / 3.0), 1e-12);
  EXPECT_NEAR(fit.coefficients[0].std_error, 1 / std::sqrt(10 * 0.7 * 0.3), 1e-12);
  EXPECT_NEAR(fit.deviance, fit.null_deviance, 1e-12);
  EXPECT_TRUE(fit.converged);
}

TEST(GlmFit, AFactorEqualToAnEarlierOneIsAliasedAndNamed) {
  Outcomes o = load_outcomes("glm_outcomes.csv");
  Factor copy{"method_copy", o.method.levels};
  GlmFit fit = fit_ok(std::vector<Factor>{o.category, o.method, copy}, o.y);
  GlmFit plain = fit_both(o);
  EXPECT_EQ(fit.aliased,
            (std::vector<std::string>{"method_copy[T.few_shot]", "method_copy[T.one_shot]",
                                      "method_copy[T.refine]"}));
  EXPECT_EQ(fit.rank, plain.rank);
  ASSERT_EQ(fit.coefficients.size(), plain.coefficients.size());
  for (std::size_t k = 0; k < plain.coefficients.size(); ++k) {
    EXPECT_NEAR(fit.coefficients[k].estimate, plain.coefficients[k].estimate, 1e-10);
    EXPECT_NEAR(fit.coefficients[k].std_error, plain.coefficients[k].std_error, 1e-10);
  }
  EXPECT_NEAR(fit.deviance, plain.deviance, 1e-9);
}

TEST(GlmFit, ATaskFactorNestedInCategoryDropsOneTaskColumnPerNonBaselineCategory) {
  Outcomes o = load_outcomes("glm_outcomes.csv");
  Factor task{"task", {}};
  for (std::size_t i = 0; i < o.y.size(); ++i) {  // two tasks per category
    task.levels.push_back(o.category.levels[i] + "/" + (i % 2 == 0 ? "t1" : "t2"));
  }
  GlmFit nested = fit_ok(std::vector<Factor>{o.category, task}, o.y);
  GlmFit tasks = fit_ok(std::vector<Factor>{task}, o.y);
  EXPECT_EQ(nested.rank, 12);  // one parameter per task
  // category[T.Fusion] = task[T.Fusion/t1] + task[T.Fusion/t2]: the later column goes, for each
  // category but the baseline.
  EXPECT_EQ(nested.aliased.size(), 5u);
  EXPECT_EQ(nested.aliased.front(), "task[T.Fusion/t2]");
  EXPECT_NEAR(nested.deviance, tasks.deviance, 1e-9);
  EXPECT_TRUE(nested.converged);
  for (const Coefficient& c : nested.coefficients) {
    EXPECT_TRUE(std::isfinite(c.estimate) && std::isfinite(c.std_error)) << c.name;
  }
}

TEST(GlmFit, AFactorWithOneLevelAddsNoColumn) {
  Factor gpu{"gpu", std::vector<std::string>(6, "H200")};
  GlmFit fit = fit_ok(std::vector<Factor>{gpu}, std::vector<int>{1, 0, 1, 1, 0, 1});
  ASSERT_EQ(fit.coefficients.size(), 1u);
  EXPECT_EQ(fit.coefficients[0].name, "Intercept");
}

TEST(GlmFit, IterationCapEndsWithoutConvergenceAndFiniteNumbers) {
  GlmOptions once;
  once.max_iterations = 1;
  Outcomes o = load_outcomes("glm_outcomes.csv");
  GlmFit fit = fit_ok(std::vector<Factor>{o.category, o.method}, o.y, once);
  EXPECT_FALSE(fit.converged);
  EXPECT_FALSE(fit.separation);
  EXPECT_EQ(fit.iterations, 1);
  for (const Coefficient& c : fit.coefficients) {
    EXPECT_TRUE(std::isfinite(c.estimate) && std::isfinite(c.std_error)) << c.name;
  }
}

/// Small random datasets (2-4 levels per factor, 1-6 trials per cell, many cells empty or
/// all-0/all-1): separation of every kind is frequent.
std::vector<Factor> random_factors(std::mt19937_64& rng, BinomialCounts& counts) {
  std::vector<Factor> factors = {{"a", {}}, {"b", {}}, {"c", {}}};
  std::vector<int> n_levels;
  for (std::size_t f = 0; f < factors.size(); ++f) {
    n_levels.push_back(2 + static_cast<int>(rng() % 3));
  }
  const int rows = 4 + static_cast<int>(rng() % 40);
  const double base = static_cast<double>(rng() % 1000) / 1000.0;
  for (int i = 0; i < rows; ++i) {
    for (std::size_t f = 0; f < factors.size(); ++f) {
      factors[f].levels.push_back("l" + std::to_string(rng() % n_levels[f]));
    }
    const std::int64_t trials = 1 + static_cast<std::int64_t>(rng() % 6);
    const double p = factors[0].levels.back() == "l0" ? base / 10 : base;
    std::int64_t successes = 0;
    for (std::int64_t t = 0; t < trials; ++t) {
      successes += static_cast<double>(rng() % 1000) / 1000.0 < p ? 1 : 0;
    }
    counts.successes.push_back(successes);
    counts.trials.push_back(trials);
  }
  return factors;
}

TEST(GlmFit, RandomSmallDatasetsGiveFiniteFitsOrFlaggedSeparation) {
  std::mt19937_64 rng(20261202);
  int separated = 0;
  int converged = 0;
  for (int round = 0; round < 500; ++round) {
    BinomialCounts counts;
    std::vector<Factor> factors = random_factors(rng, counts);
    GlmFit fit = fit_ok(factors, counts);
    const std::string at = "round " + std::to_string(round);
    ASSERT_TRUE(std::isfinite(fit.deviance)) << at;
    EXPECT_GE(fit.deviance, -1e-9) << at;
    EXPECT_LE(fit.deviance, fit.null_deviance + 1e-9) << at;
    EXPECT_NE(fit.converged, fit.separation) << at << ": neither converged nor separated, or both";
    for (const Coefficient& c : fit.coefficients) {
      if (c.status == CoefficientStatus::estimated) {
        EXPECT_TRUE(std::isfinite(c.estimate) && std::isfinite(c.std_error)) << at << c.name;
        EXPECT_LT(std::fabs(c.estimate), 30) << at << " " << c.name;
      } else {
        EXPECT_TRUE(std::isinf(c.estimate)) << at << " " << c.name;
      }
    }
    std::size_t columns = 1;
    for (const Factor& f : factors) {
      columns += std::set<std::string>(f.levels.begin(), f.levels.end()).size() - 1;
    }
    EXPECT_EQ(fit.coefficients.size() + fit.aliased.size(), columns) << at;
    separated += fit.separation ? 1 : 0;
    converged += fit.converged ? 1 : 0;
  }
  EXPECT_GT(separated, 50);  // the generator does produce both kinds
  EXPECT_GT(converged, 50);
}

std::string error_of(std::span<const Factor> factors, const BinomialCounts& counts) {
  Result<GlmFit> fit = fit_logit(factors, counts);
  EXPECT_FALSE(fit.ok());
  if (fit.ok()) {
    return "";
  }
  EXPECT_EQ(fit.error().kind(), ErrorKind::input);
  return fit.error().what();
}

TEST(GlmFit, RejectsInputsItCannotFit) {
  Factor f{"f", {"a", "b"}};
  std::vector<Factor> one{f};
  EXPECT_CONTAINS(error_of(one, {{1, 0}, {1}}), "2 success counts for 1 trial counts");
  EXPECT_CONTAINS(error_of(one, {{3, 0}, {2, 1}}), "row 0: 3 successes of 2 trials");
  EXPECT_CONTAINS(error_of(one, {{0, 0}, {0, 1}}), "row 0: 0 successes of 0 trials");
  EXPECT_CONTAINS(error_of(one, {{}, {}}), "no rows");
  EXPECT_CONTAINS(error_of(std::vector<Factor>{f, f}, {{1, 0}, {1, 1}}), "'f' is given twice");
  EXPECT_CONTAINS(error_of(std::vector<Factor>{{"g", {"a"}}}, {{1, 0}, {1, 1}}),
                  "factor 'g' has 1 levels for 2 rows");
  Result<GlmFit> bad = fit_logit(one, std::vector<int>{1, 2});
  ASSERT_FALSE(bad.ok());
  EXPECT_CONTAINS(bad.error().what(), "row 1: outcome 2 is not 0 or 1");
}

}  // namespace
}  // namespace kbx::stats
