// The cell design: treatment columns in sorted level order, rows pooled by level combination, and
// aliased columns found in the order given.
#include "kbx/stats/design.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kbx::stats {
namespace {

using Indices = std::vector<Eigen::Index>;

TEST(CellDesign, PoolsRowsWithEqualLevelsAndSumsTheirCounts) {
  std::vector<Factor> factors = {{"category", {"Math", "Fusion", "Math", "Math"}},
                                 {"method", {"refine", "agent", "refine", "agent"}}};
  BinomialCounts counts{{1, 0, 2, 1}, {1, 1, 3, 1}};
  ASSERT_FALSE(check_design_input(factors, counts).has_value());
  CellDesign d = build_cell_design(factors, counts);
  EXPECT_EQ(d.names,
            (std::vector<std::string>{"Intercept", "category[T.Math]", "method[T.refine]"}));
  ASSERT_EQ(d.x.rows(), 3);  // (Math, refine) twice
  EXPECT_EQ(d.trials.sum(), 6);
  EXPECT_EQ(d.successes.sum(), 4);
  for (Eigen::Index c = 0; c < d.x.rows(); ++c) {
    EXPECT_EQ(d.x(c, 0), 1.0);
    if (d.x(c, 1) == 1 && d.x(c, 2) == 1) {
      EXPECT_EQ(d.successes[c], 3);
      EXPECT_EQ(d.trials[c], 4);
    }
  }
}

TEST(CellDesign, IndependentColumnsDropsLaterCombinationsAndZeroColumns) {
  Eigen::MatrixXd x(4, 5);
  x << 1, 1, 0, 1, 0,  //
      1, 0, 1, 1, 0,   //
      1, 1, 0, 0, 0,   //
      1, 0, 1, 0, 0;
  // column 2 = column 0 - column 1; column 4 is zero
  EXPECT_EQ(independent_columns(x, {0, 1, 2, 3, 4}), (Indices{0, 1, 3}));
  EXPECT_EQ(independent_columns(x, {2, 1, 0, 3}), (Indices{2, 1, 3}));
}

TEST(CellDesign, NamesTheProblemWithItsInput) {
  std::vector<Factor> factors = {{"method", {"a", "b"}}};
  std::optional<Error> e = check_design_input(factors, {{1, 5}, {1, 4}});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), ErrorKind::input);
  EXPECT_STREQ(e->what(),
               "row 1: 5 successes of 4 trials (need trials >= 1, 0 <= successes <= trials)");
}

}  // namespace
}  // namespace kbx::stats
