// Contract defaults, per-dtype lookup, and parsing of a task.json "precision" value.
#include "kbx/compare/tolerance.h"

#include <cmath>
#include <string>
#include <string_view>

namespace kbx::compare {
namespace {

constexpr Tolerance f32_default{.rtol = 1e-5, .atol = 1e-5};
constexpr Tolerance f16_default{.rtol = 5e-3, .atol = 5e-3};
constexpr std::string_view tolerance_dtypes =
    "float16, bfloat16, float32, float64, complex64, complex128";

Error contract_error(std::string message) { return Error(ErrorKind::suite, std::move(message)); }

/// A finite number >= 0 (bool is not a number here), or nullopt.
std::optional<double> non_negative(const Json& v) {
  if (!v.is_number()) {
    return std::nullopt;
  }
  double x = v.get<double>();
  return std::isfinite(x) && x >= 0 ? std::optional<double>(x) : std::nullopt;
}

Result<Tolerance> parse_tolerance(const std::string& where, const Json& j, Tolerance base) {
  if (!j.is_object() || j.empty()) {
    return contract_error(where + " must be an object with rtol and/or atol");
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "rtol" && key != "atol") {
      return contract_error(
          fmt::format("{}: unknown field '{}' (expected rtol, atol)", where, key));
    }
    std::optional<double> x = non_negative(value);
    if (!x) {
      return contract_error(
          fmt::format("{}.{} must be a non-negative number (got {})", where, key, value.dump()));
    }
    (key == "rtol" ? base.rtol : base.atol) = *x;
  }
  return base;
}

Result<Contract> parse_tolerances(const Json& j) {
  if (!j.is_object()) {
    return contract_error("precision.tolerance must be an object keyed by dtype");
  }
  Contract contract = Contract::kernelbenchx_default();
  for (const auto& [name, entry] : j.items()) {
    std::optional<DType> dtype = parse_dtype(name);
    if (!dtype || is_exact(*dtype)) {
      return contract_error(fmt::format(
          "precision.tolerance: '{}' is not a float or complex dtype (expected one of {}; "
          "integer and bool outputs are always compared exactly)",
          name, tolerance_dtypes));
    }
    Result<Tolerance> tol =
        parse_tolerance("precision.tolerance." + name, entry, contract.tolerance_for(*dtype));
    if (!tol) {
      return tol.error();
    }
    contract.tolerances[*dtype] = *tol;
  }
  return contract;
}

Result<Contract> parse_metrics(const Json& j) {
  if (!j.is_object() || j.empty()) {
    return contract_error(
        "precision.metrics must be an object with cosine_sim_min, l1_relative_max and/or rmse_max");
  }
  MetricThresholds m;
  for (const auto& [key, value] : j.items()) {
    std::optional<double>* slot = key == "cosine_sim_min"    ? &m.cosine_sim_min
                                  : key == "l1_relative_max" ? &m.l1_relative_max
                                  : key == "rmse_max"        ? &m.rmse_max
                                  : key == "rmse_absolute_max" ? &m.rmse_absolute_max
                                                             : nullptr;
    if (slot == nullptr) {
      return contract_error(fmt::format(
          "precision.metrics: unknown field '{}' (expected cosine_sim_min, l1_relative_max, "
          "rmse_max, rmse_absolute_max)",
          key));
    }
    std::optional<double> x = non_negative(value);
    if (!x || (slot == &m.cosine_sim_min && *x > 1)) {
      return contract_error(fmt::format(
          "precision.metrics.{} must be a {} (got {})", key,
          slot == &m.cosine_sim_min ? "number in [0, 1]" : "non-negative number", value.dump()));
    }
    *slot = x;
  }
  Contract contract = Contract::kernelbenchx_default();
  contract.metrics = m;
  return contract;
}

}  // namespace

Contract Contract::kernelbenchx_default() {
  Contract c;
  c.tolerances = {{DType::float16, f16_default},
                  {DType::bfloat16, f16_default},
                  {DType::float32, f32_default},
                  {DType::float64, f32_default}};
  return c;
}

Tolerance Contract::tolerance_for(DType dtype) const {
  if (auto it = tolerances.find(dtype); it != tolerances.end()) {
    return it->second;
  }
  if (dtype == DType::complex64 || dtype == DType::complex128) {
    return tolerance_for(dtype == DType::complex64 ? DType::float32 : DType::float64);
  }
  return Tolerance{};
}

Result<Contract> parse_contract(const Json& precision) {
  if (precision.is_string()) {
    if (precision.get<std::string>() == "default") {
      return Contract::kernelbenchx_default();
    }
    return contract_error(fmt::format(
        "precision: unknown contract {} (expected \"default\", or an object with tolerance or "
        "metrics)",
        precision.dump()));
  }
  const bool has_bound = precision.is_object() && precision.contains("error_bound");
  const std::size_t expected = has_bound && precision.contains("tolerance") ? 2 : 1;
  if (!precision.is_object() || precision.size() != expected ||
      !(precision.contains("tolerance") || precision.contains("metrics") || has_bound) ||
      (has_bound && precision.contains("metrics"))) {
    return contract_error(fmt::format(
        "precision must be \"default\", {{\"tolerance\": {{...}}}}, {{\"error_bound\": {{...}}}} "
        "(alone or with tolerance) or {{\"metrics\": {{...}}}} (got {})",
        precision.dump()));
  }
  if (precision.contains("metrics")) {
    return parse_metrics(precision["metrics"]);
  }
  Result<Contract> contract = precision.contains("tolerance")
                                  ? parse_tolerances(precision["tolerance"])
                                  : Result<Contract>(Contract::kernelbenchx_default());
  if (!contract || !has_bound) {
    return contract;
  }
  const Json& bound = precision["error_bound"];
  std::optional<double> k = bound.is_object() && bound.size() == 1 && bound.contains("k")
                                ? non_negative(bound["k"])
                                : std::nullopt;
  if (!k || *k == 0) {
    return contract_error(fmt::format(
        "precision.error_bound must be {{\"k\": K}} with K a positive number (got {})", bound.dump()));
  }
  contract->error_bound_k = *k;
  return contract;
}

}  // namespace kbx::compare
