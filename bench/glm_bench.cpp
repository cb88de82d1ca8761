// The deviance decomposition's fits on store-sized data: the A+B logit GLM (category + method) and
// the four fits of decompose_deviance, on N 0/1 outcomes with 6 categories and 4 methods.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kbx/stats/deviance.h"
#include "kbx/stats/glm.h"

namespace {

using kbx::stats::Factor;

/// xorshift64: deterministic outcomes without <random>'s distribution differences across libraries.
struct Rng {
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;

  double unit() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<double>(s >> 11) * 0x1p-53;  // [0, 1)
  }
};

struct Data {
  Factor category{"category", {}};
  Factor method{"method", {}};
  std::vector<int> y;
};

/// N outcomes; `separated`: Quantization never solved (the usual shape of real runs).
Data make_data(std::int64_t n, bool separated) {
  const char* categories[] = {"Activation", "Fusion",        "LinearAlgebra",
                              "Math",       "Normalization", "Quantization"};
  const double category_logit[] = {1.2, -0.4, -0.9, 0.6, 0.1, -2.0};
  const char* methods[] = {"agent", "few_shot", "one_shot", "refine"};
  const double method_logit[] = {0.5, 0.1, 0.0, 0.3};
  Data d;
  Rng rng;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::size_t>(rng.unit() * 6);
    const auto m = static_cast<std::size_t>(rng.unit() * 4);
    const double p = 1 / (1 + std::exp(-(category_logit[c] + method_logit[m])));
    d.category.levels.emplace_back(categories[c]);
    d.method.levels.emplace_back(methods[m]);
    d.y.push_back(separated && c == 5 ? 0 : static_cast<int>(rng.unit() < p));
  }
  return d;
}

void fit_category_plus_method(benchmark::State& state, bool separated) {
  const Data d = make_data(state.range(0), separated);
  const std::vector<Factor> factors = {d.category, d.method};
  for (auto _ : state) {
    kbx::Result<kbx::stats::GlmFit> fit = kbx::stats::fit_logit(factors, d.y);
    if (!fit.ok() || fit->separation != separated) {
      state.SkipWithError("unexpected fit");
      break;
    }
    benchmark::DoNotOptimize(fit);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void decompose(benchmark::State& state) {
  const Data d = make_data(state.range(0), false);
  for (auto _ : state) {
    auto result = kbx::stats::decompose_deviance(d.category, d.method, d.y);
    if (!result.ok()) {
      state.SkipWithError(result.error().what());
      break;
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(fit_category_plus_method, converged, false)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fit_category_plus_method, separated, true)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(decompose)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace
