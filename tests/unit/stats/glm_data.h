// The stats tests' datasets (tests/unit/stats/data, written by make_glm_reference.py) and their
// statsmodels reference numbers.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "kbx/common/files.h"
#include "kbx/common/json.h"
#include "kbx/stats/glm.h"

namespace kbx::stats::testing {

inline std::string data_path(const std::string& file) {
  return std::string(KBX_SOURCE_DIR) + "/tests/unit/stats/data/" + file;
}

/// The CSV's rows after the header, split at commas (the files hold no quoted fields).
inline std::vector<std::vector<std::string>> read_csv(const std::string& file) {
  std::istringstream in(read_file(data_path(file)));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream parts(line);
    for (std::string field; std::getline(parts, field, ',');) {
      fields.push_back(field);
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

/// category,method,y: one 0/1 outcome per row.
struct Outcomes {
  Factor category{"category", {}};
  Factor method{"method", {}};
  std::vector<int> y;
};

inline Outcomes load_outcomes(const std::string& file) {
  Outcomes o;
  for (const auto& row : read_csv(file)) {
    o.category.levels.push_back(row.at(0));
    o.method.levels.push_back(row.at(1));
    o.y.push_back(std::stoi(row.at(2)));
  }
  return o;
}

/// category,method,successes,trials.
struct Grouped {
  Factor category{"category", {}};
  Factor method{"method", {}};
  BinomialCounts counts;
};

inline Grouped load_grouped(const std::string& file) {
  Grouped g;
  for (const auto& row : read_csv(file)) {
    g.category.levels.push_back(row.at(0));
    g.method.levels.push_back(row.at(1));
    g.counts.successes.push_back(std::stoll(row.at(2)));
    g.counts.trials.push_back(std::stoll(row.at(3)));
  }
  return g;
}

/// glm_reference.json, parsed once.
inline const Json& reference() {
  static const Json ref = Json::parse(read_file(data_path("glm_reference.json")));
  return ref;
}

/// |got - want| <= tol, relative where |want| > 1.
inline void expect_close(double got, double want, double tol, const std::string& what) {
  EXPECT_NEAR(got, want, tol * std::max(1.0, std::fabs(want))) << what;
}

/// |got - want| <= tol |want|: for p-values, which can be 1e-41.
inline void expect_relative(double got, double want, double tol, const std::string& what) {
  EXPECT_NEAR(got, want, tol * std::fabs(want)) << what;
}

}  // namespace kbx::stats::testing
