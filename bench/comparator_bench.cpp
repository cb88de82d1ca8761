// Comparator throughput: candidate + reference bytes per second through compare_outputs, on
// tensors of up to 100M elements (the size STYLE.md asks the comparator to be fast on).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "kbx/compare/comparator.h"

namespace {

using kbx::DType;
using kbx::OutputLeaf;
using kbx::compare::Contract;

/// How the candidate relates to the reference.
enum class Kind { within_tolerance, one_percent_off, metrics_contract };

/// xorshift64: cheap, so building 100M-element inputs takes well under a second.
struct Rng {
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;

  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }

  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
};

template <typename T>
void put(std::vector<std::uint8_t>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

/// One reference value and its candidate, written at element part i.
void fill_part(DType dtype, std::size_t i, Rng& rng, bool off, std::vector<std::uint8_t>& ref,
               std::vector<std::uint8_t>& cand) {
  const double r = 2 * rng.unit() - 1;
  const double rel = off ? 1e-2 : 1e-7;  // 1e-7 stays inside float32's 1e-5; 1e-2 does not
  switch (dtype) {
    case DType::float32:
    case DType::complex64:
      put(ref, i, static_cast<float>(r));
      put(cand, i, static_cast<float>(r * (1 + rel)));
      break;
    case DType::float64:
    case DType::complex128:
      put(ref, i, r);
      put(cand, i, r * (1 + rel));
      break;
    case DType::float16:
    case DType::bfloat16: {  // values in [1, 2); the candidate is one ulp up (off: 64 ulps)
      const bool half = dtype == DType::float16;
      const auto mantissa = static_cast<std::uint16_t>(rng.next() % (half ? 960 : 60));
      const auto one = static_cast<std::uint16_t>(half ? 0x3C00 : 0x3F80);
      put(ref, i, static_cast<std::uint16_t>(one + mantissa));
      put(cand, i, static_cast<std::uint16_t>(one + mantissa + (off ? 64 : 1)));
      break;
    }
    default: {  // exact dtypes (int32 here): equal, or off by one
      const auto v = static_cast<std::int32_t>(rng.next() >> 33);
      put(ref, i, v);
      put(cand, i, static_cast<std::int32_t>(v + (off ? 1 : 0)));
    }
  }
}

struct Inputs {
  std::vector<OutputLeaf> ref;
  std::vector<OutputLeaf> cand;
  std::int64_t bytes = 0;
};

Inputs make_inputs(DType dtype, std::int64_t numel, Kind kind) {
  const std::size_t parts = static_cast<std::size_t>(numel) * (kbx::is_complex(dtype) ? 2 : 1);
  OutputLeaf ref{"out", kbx::LeafKind::tensor, {dtype, {numel}, "cuda", {}}, {}};
  ref.tensor.data.resize(static_cast<std::size_t>(numel) * kbx::element_size(dtype));
  OutputLeaf cand = ref;
  Rng rng;
  for (std::size_t i = 0; i < parts; ++i) {
    // one_percent_off: one element in a hundred misses, so every chunk takes the exact path
    const bool off = kind == Kind::one_percent_off ? i % 100 == 7 : kind == Kind::metrics_contract;
    fill_part(dtype, i, rng, off, ref.tensor.data, cand.tensor.data);
  }
  Inputs in;
  in.bytes = static_cast<std::int64_t>(2 * ref.tensor.data.size());
  in.ref.push_back(std::move(ref));
  in.cand.push_back(std::move(cand));
  return in;
}

/// Inputs are big: keep only the latest set alive between benchmark runs.
const Inputs& inputs_for(DType dtype, std::int64_t numel, Kind kind) {
  static std::map<std::tuple<DType, std::int64_t, Kind>, Inputs> cache;
  auto key = std::make_tuple(dtype, numel, kind);
  if (!cache.contains(key)) {
    cache.clear();
    cache.emplace(key, make_inputs(dtype, numel, kind));
  }
  return cache.at(key);
}

void compare(benchmark::State& state, DType dtype, Kind kind) {
  const Inputs& in = inputs_for(dtype, state.range(0), kind);
  Contract contract = Contract::kernelbenchx_default();
  if (kind == Kind::metrics_contract) {
    contract.metrics = kbx::compare::MetricThresholds{0.95, 0.05, 0.1, std::nullopt};
  }
  const bool expect_ok = kind != Kind::one_percent_off;
  for (auto _ : state) {
    kbx::compare::Verdict v = kbx::compare::compare_outputs(in.ref, in.cand, contract);
    if (v.ok != expect_ok) {
      state.SkipWithError(("unexpected verdict: " + v.detail).c_str());
      break;
    }
    benchmark::DoNotOptimize(v);
  }
  state.SetBytesProcessed(state.iterations() * in.bytes);
  state.counters["elements"] = static_cast<double>(state.range(0));
}

constexpr std::int64_t m100 = 100'000'000;

#define KBX_COMPARE_BENCH(name, dtype, kind, numel) \
  BENCHMARK_CAPTURE(compare, name, dtype, kind)     \
      ->Arg(numel)                                  \
      ->Unit(benchmark::kMillisecond)               \
      ->UseRealTime()

KBX_COMPARE_BENCH(float32_pass, DType::float32, Kind::within_tolerance, 1'000'000);
KBX_COMPARE_BENCH(float32_pass, DType::float32, Kind::within_tolerance, m100);
KBX_COMPARE_BENCH(float32_1pct_fail, DType::float32, Kind::one_percent_off, m100);
KBX_COMPARE_BENCH(float32_metrics, DType::float32, Kind::metrics_contract, m100);
KBX_COMPARE_BENCH(float16_pass, DType::float16, Kind::within_tolerance, 1'000'000);
KBX_COMPARE_BENCH(float16_pass, DType::float16, Kind::within_tolerance, m100);
KBX_COMPARE_BENCH(bfloat16_pass, DType::bfloat16, Kind::within_tolerance, m100);
KBX_COMPARE_BENCH(float64_pass, DType::float64, Kind::within_tolerance, m100 / 2);
KBX_COMPARE_BENCH(complex64_pass, DType::complex64, Kind::within_tolerance, m100 / 2);
KBX_COMPARE_BENCH(int32_equal, DType::int32, Kind::within_tolerance, m100);

}  // namespace
