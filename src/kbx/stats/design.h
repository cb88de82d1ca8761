// The design matrix of a model over categorical factors: treatment coding, rows pooled into cells
// of equal levels, and the columns that are linear combinations of earlier ones (aliased).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kbx/common/error.h"

namespace kbx::stats {

/// One categorical factor: its name and one level per row. Levels are coded by treatment against
/// the first level in sorted (byte) order, as patsy does; coefficients are named
/// "<name>[T.<level>]", e.g. "category[T.Math]".
struct Factor {
  std::string name;
  std::vector<std::string> levels;  ///< one per row
};

/// Binomial counts per row: successes[i] of trials[i], with trials >= 1 and
/// 0 <= successes <= trials. 0/1 outcomes are the case trials == 1.
struct BinomialCounts {
  std::vector<std::int64_t> successes;
  std::vector<std::int64_t> trials;
};

/// The rows pooled by level combination: one design row and one pair of counts per cell. Every
/// cell has trials >= 1; cells come in no particular order.
struct CellDesign {
  Eigen::MatrixXd x;  ///< cells x columns: 1 (the intercept), then the 0/1 treatment dummies
  Eigen::VectorXd successes;
  Eigen::VectorXd trials;
  std::vector<std::string> names;  ///< per column: "Intercept", "<factor>[T.<level>]"
};

/// Why `factors` and `counts` cannot make a design (kind input), or nullopt: mismatched lengths,
/// no rows, counts out of range, duplicate or empty factor names.
std::optional<Error> check_design_input(std::span<const Factor> factors,
                                        const BinomialCounts& counts);

/// The design of inputs that check_design_input accepted: an intercept, then for each factor in
/// order one column per level after the first in sorted order.
CellDesign build_cell_design(std::span<const Factor> factors, const BinomialCounts& counts);

/// The columns of `x`, taken in `order`, that are not linear combinations of the columns kept
/// before them (Gram-Schmidt, twice; aliased below 1e-7 of a column's norm, as R's qr()). Columns
/// of zeros are dropped too.
std::vector<Eigen::Index> independent_columns(const Eigen::MatrixXd& x,
                                              const std::vector<Eigen::Index>& order);

}  // namespace kbx::stats
