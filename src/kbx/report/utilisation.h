// Utilisation: distributions of achieved bandwidth (GB/s) and compute (TFLOP/s) of correct, timed
// submissions, per category, and their share of a peak where one is given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/report/compare.h"

namespace kbx::report {

/// Five-number summary of a set of rates (nearest-rank quartiles).
struct RateDistribution {
  int n = 0;
  double min = 0;
  double p25 = 0;
  double median = 0;
  double p75 = 0;
  double max = 0;
};

/// One group's rates: correct, timed submissions whose workloads declare bytes (GB/s) or FLOPs
/// (TFLOP/s); a submission without them counts in neither.
struct UtilisationGroup {
  std::string group;  ///< a category, or "ALL"
  RateDistribution gbs;
  RateDistribution tflops;
  std::vector<double> gbs_values;     ///< sorted
  std::vector<double> tflops_values;  ///< sorted
};

/// Peaks to express rates as utilisation: given by flags (`kbx analyze --peak-gbs/--peak-tflops`),
/// or for bandwidth the copy bandwidth `kbx calibrate` measured, when every run carries the same.
struct Peaks {
  std::optional<double> gbs;     ///< e.g. 4800 for an H200's HBM3e
  std::optional<double> tflops;  ///< e.g. 989 for an H200's dense BF16 tensor cores
};

/// The copy bandwidth `kbx calibrate` measured (ReportModel::ceilings), when every run carries
/// the same one; nothing otherwise (no runs, a run without ceilings, different devices).
std::optional<double> shared_copy_gbs(const std::vector<NamedRun>& runs);

/// Per category (sorted) and then "ALL". Pure.
std::vector<UtilisationGroup> utilisation(const std::vector<NamedRun>& runs);

RateDistribution distribution_of(std::vector<double> values);

std::string render_utilisation(const std::vector<UtilisationGroup>& u, const Peaks& peaks);
Json utilisation_json(const std::vector<UtilisationGroup>& u, const Peaks& peaks);
/// group,metric,n,min,p25,median,p75,max[,utilisation_median]
std::string utilisation_csv(const std::vector<UtilisationGroup>& u, const Peaks& peaks);

}  // namespace kbx::report
