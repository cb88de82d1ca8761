// The failure taxonomy: families and kinds of failures from the stored outcome, reason and detail.
#include "kbx/report/taxonomy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <set>

#include "kbx/common/check.h"
#include "kbx/report/csv.h"

namespace kbx::report {
namespace {

constexpr std::array<std::pair<FailureFamily, const char*>, 8> family_names{{
    {FailureFamily::compile, "compile"},
    {FailureFamily::runtime, "runtime"},
    {FailureFamily::numerical, "numerical"},
    {FailureFamily::contract, "contract"},
    {FailureFamily::triton_rule, "triton_rule"},
    {FailureFamily::exploit, "exploit"},
    {FailureFamily::resource, "resource"},
    {FailureFamily::harness, "harness"},
}};

bool is_one_of(const std::string& s, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s == n; });
}

std::string or_default(const std::string& reason, const std::string& fallback) {
  return reason.empty() ? fallback : reason;
}

FailureClass classify_incorrect(const std::string& reason, const std::string& detail) {
  using F = FailureFamily;
  if (is_one_of(reason, {"nan_mismatch", "inf_mismatch"})) {
    return {F::numerical, "nan_inf"};
  }
  if (is_one_of(reason,
                {"shape_mismatch", "dtype_mismatch", "structure_mismatch", "device_mismatch",
                  "requires_grad_mismatch"})) {
    return {F::numerical, "shape_dtype"};
  }
  if (reason == "value_mismatch") {
    double rel = detail_rel_err(detail);
    return {F::numerical, rel >= scale_rel_err_min || rel < 0 ? "scale" : "precision"};
  }
  if (reason == "metric_mismatch") {
    return {F::numerical, "precision"};
  }
  if (is_one_of(reason,
                {"input_mutated", "canonical_mismatch", "expected_error", "unsupported_output"})) {
    return {F::contract, reason};
  }
  if (reason == "perf_recheck_mismatch") {
    return {F::exploit, reason};  // right when first run, wrong on fresh inputs when timed
  }
  return {F::numerical, or_default(reason, "incorrect")};
}

std::string method_of(const NamedRun& run, const SubmissionRow& row) {
  if (auto it = row.labels.find("method"); it != row.labels.end()) {
    return it->second;
  }
  auto it = run.model.labels.find("method");
  return it == run.model.labels.end() ? "-" : it->second;
}

std::string counts_line(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [k, n] : counts) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, n);
  }
  return out;
}

}  // namespace

std::string_view to_string(FailureFamily family) {
  for (const auto& [f, name] : family_names) {
    if (f == family) {
      return name;
    }
  }
  return "unknown";
}

double detail_rel_err(const std::string& detail) {
  static const std::string marker = "max rel err ";
  auto at = detail.find(marker);
  if (at == std::string::npos) {
    return -1;
  }
  const char* start = detail.c_str() + at + marker.size();
  char* end = nullptr;
  double v = std::strtod(start, &end);
  return end == start ? -1 : v;
}

FailureClass classify_failure(const std::string& outcome, const std::string& reason,
                              const std::string& detail) {
  using F = FailureFamily;
  KBX_CHECK(outcome != "ok" && outcome != "pending") << "classify_failure of " << outcome;
  if (outcome == "compile_error") {
    return {F::compile, or_default(reason, "compile_error")};
  }
  if (outcome == "runtime_error" || outcome == "crashed") {
    return {F::runtime, or_default(reason, outcome)};
  }
  if (outcome == "incorrect") {
    return classify_incorrect(reason, detail);
  }
  if (outcome == "not_triton") {
    return {F::triton_rule, or_default(reason, outcome)};
  }
  if (outcome == "protocol_violation" || outcome == "tampered") {
    return {F::exploit, or_default(reason, outcome)};
  }
  if (outcome == "timeout") {
    return {F::resource, "timeout"};
  }
  if (outcome == "limit_exceeded") {
    return {F::resource, or_default(reason, outcome)};
  }
  if (reason == "contract_error") {
    return {F::harness, reason};  // the task's contract could not be built: kbx's problem
  }
  return {F::harness, outcome};  // skipped, worker_lost, cancelled, anything newer
}

Taxonomy failure_taxonomy(const std::vector<NamedRun>& runs) {
  Taxonomy t;
  std::map<std::pair<FailureFamily, std::string>, TaxonomyEntry> entries;
  std::map<FailureFamily, int> families;
  for (const auto& run : runs) {
    for (const auto& row : run.model.rows) {
      if (row.outcome == "pending") {
        continue;
      }
      t.submissions += 1;
      if (row.outcome == "ok") {
        continue;
      }
      auto c = classify_failure(row.outcome, row.reason, row.detail);
      auto& e = entries[{c.family, c.kind}];
      if (e.count == 0) {
        e.family = c.family;
        e.kind = c.kind;
        e.example_task = row.file;
        e.example_detail = row.detail;
      }
      e.count += 1;
      e.by_method[method_of(run, row)] += 1;
      e.by_category[row.category] += 1;
      families[c.family] += 1;
      t.failures += 1;
    }
  }
  for (auto& [key, e] : entries) {
    t.entries.push_back(std::move(e));
  }
  std::stable_sort(t.entries.begin(), t.entries.end(), [](const auto& a, const auto& b) {
    return a.family != b.family ? a.family < b.family : a.count > b.count;
  });
  for (const auto& [f, name] : family_names) {
    t.families.emplace_back(f, families[f]);
  }
  return t;
}

std::string render_taxonomy(const Taxonomy& t) {
  std::string out = fmt::format("Failure taxonomy: {} of {} judged submissions failed\n",
                                t.failures, t.submissions);
  for (const auto& [family, n] : t.families) {
    if (n == 0) {
      continue;
    }
    out += fmt::format("  {:<12} {:4}  ({:.1f}% of failures)\n", to_string(family), n,
                       t.failures > 0 ? 100.0 * n / t.failures : 0.0);
    for (const auto& e : t.entries) {
      if (e.family == family) {
        out += fmt::format("    {:<26} {:4}  by method: {}\n", e.kind, e.count,
                           counts_line(e.by_method));
      }
    }
  }
  return out;
}

Json taxonomy_json(const Taxonomy& t) {
  Json j{{"failures", t.failures}, {"submissions", t.submissions}};
  j["families"] = Json::object();
  for (const auto& [family, n] : t.families) {
    j["families"][std::string(to_string(family))] = n;
  }
  j["kinds"] = Json::array();
  for (const auto& e : t.entries) {
    j["kinds"].push_back(Json{{"family", std::string(to_string(e.family))},
                              {"kind", e.kind},
                              {"count", e.count},
                              {"by_method", e.by_method},
                              {"by_category", e.by_category},
                              {"example_task", e.example_task},
                              {"example_detail", e.example_detail}});
  }
  return j;
}

std::string taxonomy_csv(const Taxonomy& t) {
  std::string out = "family,kind,method,category,count\n";
  for (const auto& e : t.entries) {
    // The cross of method and category is not kept; each line gives one margin ("*" the other).
    for (const auto& [m, n] : e.by_method) {
      out +=
          fmt::format("{},{},{},*,{}\n", to_string(e.family), csv_field(e.kind), csv_field(m), n);
    }
    for (const auto& [c, n] : e.by_category) {
      out +=
          fmt::format("{},{},*,{},{}\n", to_string(e.family), csv_field(e.kind), csv_field(c), n);
    }
  }
  return out;
}

}  // namespace kbx::report
