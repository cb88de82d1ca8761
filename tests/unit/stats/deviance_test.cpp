// The deviance decomposition against statsmodels: shares of the null deviance and the
// likelihood-ratio tests, on outcomes, a separated level and grouped counts.
#include "kbx/stats/deviance.h"

#include <gtest/gtest.h>

#include <string>

#include "glm_data.h"
#include "support/test_support.h"

namespace kbx::stats {
namespace {

using testing::expect_close;
using testing::expect_relative;
using testing::load_grouped;
using testing::load_outcomes;
using testing::Outcomes;
using testing::reference;

constexpr double tol = 1e-6;

DevianceDecomposition decompose_ok(const Outcomes& o) {
  Result<DevianceDecomposition> d = decompose_deviance(o.category, o.method, o.y);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().what());
  return d.ok() ? *d : DevianceDecomposition{};
}

void expect_lr(const LikelihoodRatio& lr, const Json& ref, const std::string& what) {
  expect_close(lr.statistic, ref["statistic"], tol, what + " statistic");
  EXPECT_EQ(lr.df, ref["df"].get<int>()) << what;
  expect_relative(lr.p_value, ref["p_value"], tol, what + " p-value");
}

/// Deviances, shares and both tests against a "decomposition" entry of glm_reference.json.
void expect_matches(const DevianceDecomposition& d, const Json& ref) {
  expect_close(d.null_deviance, ref["deviance"]["null"], tol, "null");
  expect_close(d.a.deviance, ref["deviance"]["a"], tol, "A");
  expect_close(d.b.deviance, ref["deviance"]["b"], tol, "B");
  expect_close(d.ab.deviance, ref["deviance"]["ab"], tol, "A + B");
  expect_close(d.a.share, ref["share"]["a"], tol, "share A");
  expect_close(d.b.share, ref["share"]["b"], tol, "share B");
  expect_close(d.ab.share, ref["share"]["ab"], tol, "share A + B");
  expect_lr(d.a_given_b, ref["lr_a_given_b"], "A given B");
  expect_lr(d.b_given_a, ref["lr_b_given_a"], "B given A");
}

TEST(DevianceDecomposition, MatchesStatsmodelsOnCategoryAndMethod) {
  DevianceDecomposition d = decompose_ok(load_outcomes("glm_outcomes.csv"));
  expect_matches(d, reference()["decomposition"]["outcomes"]);
  EXPECT_EQ(d.a.terms, "category");
  EXPECT_EQ(d.b.terms, "method");
  EXPECT_EQ(d.ab.terms, "category + method");
  EXPECT_EQ(d.a.rank, 6);
  EXPECT_EQ(d.b.rank, 4);
  EXPECT_EQ(d.ab.rank, 9);
  EXPECT_EQ(d.n_trials, 960);
  EXPECT_GT(d.a.share, 10 * d.b.share);  // the data were drawn with category dominating
}

TEST(DevianceDecomposition, MatchesStatsmodelsWithASeparatedCategory) {
  DevianceDecomposition d = decompose_ok(load_outcomes("glm_outcomes_separated.csv"));
  expect_matches(d, reference()["decomposition"]["separated"]);
  EXPECT_TRUE(d.a.separation);
  EXPECT_TRUE(d.ab.separation);
  EXPECT_FALSE(d.b.separation);
  EXPECT_TRUE(d.a.converged && d.ab.converged);
}

TEST(DevianceDecomposition, GroupedCountsGiveTheUngroupedSharesAndStatsmodelsTests) {
  const Json& grouped_ref = reference()["decomposition"]["grouped"];
  testing::Grouped g = load_grouped("glm_grouped.csv");
  Result<DevianceDecomposition> d = decompose_deviance(g.category, g.method, g.counts);
  ASSERT_TRUE(d.ok()) << d.error().what();
  // Tests are differences of deviances: the grouping's constant cancels.
  expect_lr(d->a_given_b, grouped_ref["lr_a_given_b"], "A given B");
  expect_lr(d->b_given_a, grouped_ref["lr_b_given_a"], "B given A");
  // Shares are not: kbx's are per trial, as for the outcomes one per row.
  const Json& rows_ref = reference()["decomposition"]["outcomes"];
  expect_close(d->a.share, rows_ref["share"]["a"], tol, "share A");
  expect_close(d->ab.share, rows_ref["share"]["ab"], tol, "share A + B");
  EXPECT_GT(grouped_ref["share"]["a"].get<double>(), 0.7);  // statsmodels' grouped share
}

TEST(DevianceDecomposition, AFactorNestedInTheOtherAddsNoDegreesOfFreedom) {
  Outcomes o = load_outcomes("glm_outcomes.csv");
  Factor cell{"cell", {}};
  for (std::size_t i = 0; i < o.y.size(); ++i) {
    cell.levels.push_back(o.category.levels[i] + "/" + o.method.levels[i]);
  }
  Result<DevianceDecomposition> d = decompose_deviance(cell, o.category, o.y);
  ASSERT_TRUE(d.ok()) << d.error().what();
  EXPECT_EQ(d->b_given_a.df, 0);
  EXPECT_EQ(d->b_given_a.p_value, 1.0);
  EXPECT_NEAR(d->b_given_a.statistic, 0.0, 1e-9);
  EXPECT_EQ(d->a_given_b.df, 24 - 6);
}

TEST(DevianceDecomposition, RefusesOutcomesWithNothingToExplain) {
  Factor a{"category", {"x", "y", "x"}};
  Factor b{"method", {"m", "m", "n"}};
  Result<DevianceDecomposition> d = decompose_deviance(a, b, std::vector<int>{1, 1, 1});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind(), ErrorKind::input);
  EXPECT_CONTAINS(d.error().what(), "all 3 outcomes are successes");
}

TEST(DevianceDecomposition, RefusesAFactorAgainstItself) {
  Factor a{"category", {"x", "y"}};
  Result<DevianceDecomposition> d = decompose_deviance(a, a, std::vector<int>{1, 0});
  ASSERT_FALSE(d.ok());
  EXPECT_CONTAINS(d.error().what(), "against itself");
}

}  // namespace
}  // namespace kbx::stats
