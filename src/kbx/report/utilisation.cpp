// Utilisation: five-number summaries of GB/s and TFLOP/s per category.
#include "kbx/report/utilisation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "kbx/report/csv.h"

namespace kbx::report {
namespace {

double nearest_rank(const std::vector<double>& sorted, double q) {
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

void add(UtilisationGroup& g, const SubmissionRow& r) {
  if (!(r.exe_ok && r.perf_ok)) {
    return;
  }
  if (r.gbs > 0 && std::isfinite(r.gbs)) {
    g.gbs_values.push_back(r.gbs);
  }
  if (r.tflops > 0 && std::isfinite(r.tflops)) {
    g.tflops_values.push_back(r.tflops);
  }
}

void finish(UtilisationGroup& g) {
  std::sort(g.gbs_values.begin(), g.gbs_values.end());
  std::sort(g.tflops_values.begin(), g.tflops_values.end());
  g.gbs = distribution_of(g.gbs_values);
  g.tflops = distribution_of(g.tflops_values);
}

Json distribution_json(const RateDistribution& d, std::optional<double> peak) {
  if (d.n == 0) {
    return Json{{"n", 0}};
  }
  Json j{{"n", d.n},           {"min", d.min}, {"p25", d.p25},
         {"median", d.median}, {"p75", d.p75}, {"max", d.max}};
  if (peak && *peak > 0) {
    j["utilisation_median"] = d.median / *peak;
    j["utilisation_max"] = d.max / *peak;
  }
  return j;
}

std::string distribution_text(const RateDistribution& d, std::optional<double> peak) {
  if (d.n == 0) {
    return "-";
  }
  std::string out = fmt::format("n={} median {:.3g} (IQR {:.3g}-{:.3g}, max {:.3g})", d.n, d.median,
                                d.p25, d.p75, d.max);
  if (peak && *peak > 0) {
    out += fmt::format(", {:.1f}% of peak at the median", 100.0 * d.median / *peak);
  }
  return out;
}

}  // namespace

std::optional<double> shared_copy_gbs(const std::vector<NamedRun>& runs) {
  std::optional<double> shared;
  for (const auto& run : runs) {
    const Json& c = run.model.ceilings;
    if (!c.is_object() || !c.contains("copy_gbs") || !c["copy_gbs"].is_number()) {
      return std::nullopt;
    }
    double gbs = c["copy_gbs"].get<double>();
    if (shared && *shared != gbs) {
      return std::nullopt;
    }
    shared = gbs;
  }
  return shared;
}

RateDistribution distribution_of(std::vector<double> values) {
  RateDistribution d;
  if (values.empty()) {
    return d;
  }
  std::sort(values.begin(), values.end());
  d.n = static_cast<int>(values.size());
  d.min = values.front();
  d.max = values.back();
  d.p25 = nearest_rank(values, 0.25);
  d.median = nearest_rank(values, 0.5);
  d.p75 = nearest_rank(values, 0.75);
  return d;
}

std::vector<UtilisationGroup> utilisation(const std::vector<NamedRun>& runs) {
  std::map<std::string, UtilisationGroup> by_category;
  UtilisationGroup all;
  all.group = "ALL";
  for (const auto& run : runs) {
    for (const auto& row : run.model.rows) {
      auto& g = by_category[row.category];
      g.group = row.category;
      add(g, row);
      add(all, row);
    }
  }
  std::vector<UtilisationGroup> out;
  for (auto& [category, g] : by_category) {
    finish(g);
    out.push_back(std::move(g));
  }
  finish(all);
  out.push_back(std::move(all));
  return out;
}

std::string render_utilisation(const std::vector<UtilisationGroup>& u, const Peaks& peaks) {
  std::string out = "Utilisation of correct, timed submissions (GB/s; TFLOP/s):\n";
  bool any = false;
  for (const auto& g : u) {
    if (g.gbs.n == 0 && g.tflops.n == 0) {
      continue;
    }
    any = true;
    out +=
        fmt::format("  {:<16} GB/s {}; TFLOP/s {}\n", g.group, distribution_text(g.gbs, peaks.gbs),
                    distribution_text(g.tflops, peaks.tflops));
  }
  if (!any) {
    out += "  none: no correct submission was timed (perf runs on CUDA only)\n";
  }
  return out;
}

Json utilisation_json(const std::vector<UtilisationGroup>& u, const Peaks& peaks) {
  Json j{{"peak_gbs", peaks.gbs ? Json(*peaks.gbs) : Json(nullptr)},
         {"peak_tflops", peaks.tflops ? Json(*peaks.tflops) : Json(nullptr)}};
  j["groups"] = Json::array();
  for (const auto& g : u) {
    j["groups"].push_back(Json{{"group", g.group},
                               {"gbs", distribution_json(g.gbs, peaks.gbs)},
                               {"tflops", distribution_json(g.tflops, peaks.tflops)}});
  }
  return j;
}

std::string utilisation_csv(const std::vector<UtilisationGroup>& u, const Peaks& peaks) {
  std::string out = "group,metric,n,min,p25,median,p75,max,utilisation_median\n";
  for (const auto& g : u) {
    for (const auto& [metric, d, peak] :
         {std::tuple{"gbs", g.gbs, peaks.gbs}, std::tuple{"tflops", g.tflops, peaks.tflops}}) {
      if (d.n == 0) {
        continue;
      }
      out += fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{}\n", csv_field(g.group),
                         metric, d.n, d.min, d.p25, d.median, d.p75, d.max,
                         peak && *peak > 0 ? fmt::format("{:.6g}", d.median / *peak) : "");
    }
  }
  return out;
}

}  // namespace kbx::report
