// The treatment-coded design of categorical factors, pooled into cells; aliased columns.
#include "kbx/stats/design.h"

#include <algorithm>
#include <map>
#include <set>

namespace kbx::stats {
namespace {

using Eigen::Index;
using Indices = std::vector<Index>;

/// A column whose part outside the span of earlier columns is below this fraction of its norm is
/// aliased (R's qr() uses the same 1e-7).
constexpr double alias_tolerance = 1e-7;

std::optional<Error> check_factors(std::span<const Factor> factors, std::size_t rows) {
  std::set<std::string> seen;
  for (const Factor& f : factors) {
    if (f.name.empty()) {
      return Error(ErrorKind::input, "a factor has no name");
    }
    if (!seen.insert(f.name).second) {
      return Error(ErrorKind::input, "factor '{}' is given twice", f.name);
    }
    if (f.levels.size() != rows) {
      return Error(ErrorKind::input, "factor '{}' has {} levels for {} rows", f.name,
                   f.levels.size(), rows);
    }
  }
  return std::nullopt;
}

std::vector<std::string> sorted_levels(const Factor& f) {
  std::vector<std::string> levels = f.levels;
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

/// Level index of every row of every factor: codes[row][factor].
std::vector<std::vector<int>> level_codes(std::span<const Factor> factors,
                                          const std::vector<std::vector<std::string>>& levels,
                                          std::size_t rows) {
  std::vector<std::vector<int>> codes(rows, std::vector<int>(factors.size()));
  for (std::size_t f = 0; f < factors.size(); ++f) {
    const std::vector<std::string>& sorted = levels[f];
    for (std::size_t i = 0; i < rows; ++i) {
      auto at = std::lower_bound(sorted.begin(), sorted.end(), factors[f].levels[i]);
      codes[i][f] = static_cast<int>(at - sorted.begin());
    }
  }
  return codes;
}

}  // namespace

std::optional<Error> check_design_input(std::span<const Factor> factors,
                                        const BinomialCounts& counts) {
  const std::size_t rows = counts.trials.size();
  if (counts.successes.size() != rows) {
    return Error(ErrorKind::input, "{} success counts for {} trial counts", counts.successes.size(),
                 rows);
  }
  if (rows == 0) {
    return Error(ErrorKind::input, "no rows to fit a model to");
  }
  for (std::size_t i = 0; i < rows; ++i) {
    const std::int64_t s = counts.successes[i];
    const std::int64_t n = counts.trials[i];
    if (n < 1 || s < 0 || s > n) {
      return Error(ErrorKind::input,
                   "row {}: {} successes of {} trials (need trials >= 1, 0 <= successes <= trials)",
                   i, s, n);
    }
  }
  return check_factors(factors, rows);
}

CellDesign build_cell_design(std::span<const Factor> factors, const BinomialCounts& counts) {
  const std::size_t rows = counts.trials.size();
  std::vector<std::vector<std::string>> levels;
  CellDesign cells;
  cells.names = {"Intercept"};
  std::vector<Index> first_column;  // per factor: the column of its second level
  for (const Factor& f : factors) {
    levels.push_back(sorted_levels(f));
    first_column.push_back(static_cast<Index>(cells.names.size()));
    for (std::size_t l = 1; l < levels.back().size(); ++l) {
      cells.names.push_back(f.name + "[T." + levels.back()[l] + "]");
    }
  }
  std::map<std::vector<int>, Index> cell_of;
  std::vector<double> successes;
  std::vector<double> trials;
  std::vector<std::vector<int>> codes = level_codes(factors, levels, rows);
  for (std::size_t i = 0; i < rows; ++i) {
    auto [at, added] = cell_of.try_emplace(codes[i], static_cast<Index>(trials.size()));
    if (added) {
      successes.push_back(0);
      trials.push_back(0);
    }
    successes[static_cast<std::size_t>(at->second)] += static_cast<double>(counts.successes[i]);
    trials[static_cast<std::size_t>(at->second)] += static_cast<double>(counts.trials[i]);
  }
  cells.x = Eigen::MatrixXd::Zero(static_cast<Index>(trials.size()),
                                  static_cast<Index>(cells.names.size()));
  cells.x.col(0).setOnes();
  for (const auto& [key, c] : cell_of) {
    for (std::size_t f = 0; f < key.size(); ++f) {
      if (key[f] > 0) {
        cells.x(c, first_column[f] + key[f] - 1) = 1;
      }
    }
  }
  cells.successes =
      Eigen::Map<Eigen::VectorXd>(successes.data(), static_cast<Index>(successes.size()));
  cells.trials = Eigen::Map<Eigen::VectorXd>(trials.data(), static_cast<Index>(trials.size()));
  return cells;
}

Indices independent_columns(const Eigen::MatrixXd& x, const Indices& order) {
  Indices kept;
  Eigen::MatrixXd basis(x.rows(), static_cast<Index>(order.size()));
  for (Index j : order) {
    Eigen::VectorXd v = x.col(j);
    const double norm = v.norm();
    const auto k = static_cast<Index>(kept.size());
    for (int pass = 0; pass < 2; ++pass) {
      v -= basis.leftCols(k) * (basis.leftCols(k).transpose() * v);
    }
    const double rest = v.norm();
    if (norm > 0 && rest > alias_tolerance * norm) {
      basis.col(k) = v / rest;
      kept.push_back(j);
    }
  }
  return kept;
}
}  // namespace kbx::stats
