// scan_leaf against a naive element-by-element oracle, across chunk boundaries and dtypes, plus
// the cases the fast pass must never let through.
#include "kbx/compare/leaf_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "unit/compare/compare_builders.h"

namespace kbx::compare {
namespace {

using testing::blob;
using testing::f32;
using testing::f64;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr Tolerance f32_tol{.rtol = 1e-5, .atol = 1e-5};

/// The contract, one element at a time, written independently of leaf_scan.cpp's passes and
/// decoding through kbx_common's TensorBlob accessors.
LeafStats naive_scan(const TensorBlob& ref, const TensorBlob& cand, Tolerance tol) {
  LeafStats s;
  s.numel = ref.numel();
  const int parts = is_complex(ref.dtype) ? 2 : 1;
  for (std::int64_t e = 0; e < s.numel; ++e) {
    int cls = 0;  // 0 match, 1 value, 2 inf, 3 nan
    for (int q = 0; q < parts; ++q) {
      const double c = q == 0 ? cand.real_at(e) : cand.imag_at(e);
      const double r = q == 0 ? ref.real_at(e) : ref.imag_at(e);
      int part_cls = 0;
      if (std::isnan(c) || std::isnan(r)) {
        part_cls = std::isnan(c) && std::isnan(r) ? 0 : 3;
      } else if (std::isinf(c) || std::isinf(r)) {
        part_cls = c == r ? 0 : 2;
      } else {
        const double d = std::fabs(c - r);
        if (d > s.err_abs_max) {
          s.err_abs_max = d;
          s.err_abs_max_index = e;
        }
        if (r != 0) {
          s.err_rel_max = std::max(s.err_rel_max, d / std::fabs(r));
        }
        s.sums += MetricSums{c * r, c * c, r * r, d * d, d, std::fabs(r), 1};
        part_cls = d <= tol.atol + tol.rtol * std::fabs(r) ? 0 : 1;
      }
      cls = std::max(cls, part_cls);
    }
    std::int64_t* counts[] = {nullptr, &s.value_mismatch_count, &s.inf_mismatch_count,
                              &s.nan_mismatch_count};
    std::int64_t* firsts[] = {nullptr, &s.first_value_mismatch, &s.first_inf_mismatch,
                              &s.first_nan_mismatch};
    if (cls != 0) {
      *firsts[cls] = *counts[cls] == 0 ? e : *firsts[cls];
      ++*counts[cls];
    }
  }
  return s;
}

void expect_same_stats(const LeafStats& got, const LeafStats& want, bool with_metrics) {
  EXPECT_EQ(got.numel, want.numel);
  EXPECT_EQ(got.nan_mismatch_count, want.nan_mismatch_count);
  EXPECT_EQ(got.inf_mismatch_count, want.inf_mismatch_count);
  EXPECT_EQ(got.value_mismatch_count, want.value_mismatch_count);
  EXPECT_EQ(got.first_nan_mismatch, want.first_nan_mismatch);
  EXPECT_EQ(got.first_inf_mismatch, want.first_inf_mismatch);
  EXPECT_EQ(got.first_value_mismatch, want.first_value_mismatch);
  EXPECT_EQ(got.err_abs_max, want.err_abs_max);
  EXPECT_EQ(got.err_abs_max_index, want.err_abs_max_index);
  EXPECT_EQ(got.err_rel_max, want.err_rel_max);
  if (with_metrics) {
    EXPECT_EQ(got.sums.parts, want.sums.parts);
    const auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::fabs(b); };
    EXPECT_TRUE(near(got.sums.dot, want.sums.dot)) << got.sums.dot << " vs " << want.sums.dot;
    EXPECT_TRUE(near(got.sums.cand_sq, want.sums.cand_sq));
    EXPECT_TRUE(near(got.sums.ref_sq, want.sums.ref_sq));
    EXPECT_TRUE(near(got.sums.diff_sq, want.sums.diff_sq));
    EXPECT_TRUE(near(got.sums.diff_abs, want.sums.diff_abs));
    EXPECT_TRUE(near(got.sums.ref_abs, want.sums.ref_abs));
  }
}

/// Random reference/candidate pairs: mostly within tolerance, with a few elements pushed out of
/// it and a few NaN/Inf/zero values on either side, at a rate of `rate` per part.
struct PairMaker {
  std::mt19937_64 rng;
  double rate;

  double unit() { return std::uniform_real_distribution<double>(0, 1)(rng); }

  /// A perturbation of r: usually within (0.5 * bound), sometimes past it, or a special value.
  std::pair<double, double> real_pair(double bound_scale) {
    double r = std::normal_distribution<double>(0, 1)(rng);
    double c = r + (2 * unit() - 1) * 0.5 * bound_scale * (1 + std::fabs(r));
    if (unit() < rate) {
      const double specials[] = {nan, inf, -inf, 0.0};
      const double special = specials[rng() % 4];
      (unit() < 0.5 ? c : r) = special;
    } else if (unit() < rate) {
      c = r + 3 * bound_scale * (1 + std::fabs(r)) * (unit() < 0.5 ? 1 : -1);
    }
    return {r, c};
  }

  /// Half-precision bit patterns: random finite values, the candidate a few ulps away.
  std::pair<std::uint16_t, std::uint16_t> half_pair(bool f16) {
    auto r_bits =
        f16 ? static_cast<std::uint16_t>((rng() % 0x3000) + 0x2000 + (rng() % 2) * 0x8000)
            : static_cast<std::uint16_t>((rng() % 0x0C00) + 0x3A00 + (rng() % 2) * 0x8000);
    int delta = static_cast<int>(rng() % 5) - 2;
    if (unit() < rate) {
      delta = static_cast<int>(rng() % 200) - 100;
    }
    auto c_bits = static_cast<std::uint16_t>(r_bits + delta);
    if (unit() < rate) {
      const std::uint16_t specials[] = {static_cast<std::uint16_t>(f16 ? 0x7E00 : 0x7FC0),
                                        static_cast<std::uint16_t>(f16 ? 0x7C00 : 0x7F80),
                                        static_cast<std::uint16_t>(f16 ? 0xFC00 : 0xFF80), 0};
      (unit() < 0.5 ? c_bits : r_bits) = specials[rng() % 4];
    }
    return {r_bits, c_bits};
  }
};

std::pair<TensorBlob, TensorBlob> random_pair(DType dtype, std::int64_t numel, PairMaker& m) {
  const auto parts = static_cast<std::size_t>(numel) * (is_complex(dtype) ? 2 : 1);
  if (dtype == DType::float16 || dtype == DType::bfloat16) {
    std::vector<std::uint16_t> r(parts);
    std::vector<std::uint16_t> c(parts);
    for (std::size_t i = 0; i < parts; ++i) {
      std::tie(r[i], c[i]) = m.half_pair(dtype == DType::float16);
    }
    return {blob(dtype, r), blob(dtype, c)};
  }
  std::vector<double> r(parts);
  std::vector<double> c(parts);
  const bool narrow = dtype == DType::float32 || dtype == DType::complex64;
  for (std::size_t i = 0; i < parts; ++i) {
    std::tie(r[i], c[i]) = m.real_pair(1e-5);
  }
  if (!narrow) {
    return {blob(dtype, r, {numel}), blob(dtype, c, {numel})};
  }
  std::vector<float> rf(r.begin(), r.end());
  std::vector<float> cf(c.begin(), c.end());
  return {blob(dtype, rf, {numel}), blob(dtype, cf, {numel})};
}

TEST(ScanLeaf, AgreesWithTheNaiveOracleAcrossDtypesSizesAndChunkBoundaries) {
  const DType dtypes[] = {DType::float32,  DType::float64,   DType::float16,
                          DType::bfloat16, DType::complex64, DType::complex128};
  const std::int64_t sizes[] = {0, 1, 3, 8, 9, 2047, 2048, 4095, 4096, 4097, 8192 + 24, 20011};
  std::uint64_t seed = 1;
  for (DType dtype : dtypes) {
    const Tolerance tol = dtype == DType::float16 || dtype == DType::bfloat16
                              ? Tolerance{.rtol = 5e-3, .atol = 5e-3}
                              : f32_tol;
    for (std::int64_t n : sizes) {
      for (double rate : {0.0, 1e-4, 1e-2}) {
        for (bool with_metrics : {false, true}) {
          PairMaker maker{std::mt19937_64(seed++), rate};
          auto [ref, cand] = random_pair(dtype, n, maker);
          SCOPED_TRACE(::testing::Message() << to_string(dtype) << " n=" << n << " rate=" << rate
                                            << " metrics=" << with_metrics);
          expect_same_stats(scan_leaf(ref, cand, tol, with_metrics), naive_scan(ref, cand, tol),
                            with_metrics);
        }
      }
    }
  }
}

TEST(ScanLeaf, FindsASingleMismatchDeepInsideAnOtherwiseExactTensor) {
  std::vector<float> r(1 << 20, 0.5f);
  std::vector<float> c = r;
  c[777'777] = 0.5f + 0x1p-10f;
  LeafStats s = scan_leaf(f32(r), f32(c), f32_tol, false);
  EXPECT_EQ(s.value_mismatch_count, 1);
  EXPECT_EQ(s.first_value_mismatch, 777'777);
  EXPECT_EQ(s.err_abs_max_index, 777'777);
  EXPECT_EQ(s.err_abs_max, 0x1p-10);
  EXPECT_EQ(s.err_rel_max, 0x1p-9);
}

TEST(ScanLeaf, InfiniteReferenceWithFiniteCandidateIsAnInfMismatchEvenWithAnInfiniteBound) {
  // |c - r| = Inf and atol + rtol * |r| = Inf: "Inf <= Inf" must not let it through.
  std::vector<double> r(8192, 1.0);
  std::vector<double> c = r;
  r[5000] = inf;
  LeafStats s = scan_leaf(f64(r), f64(c), f32_tol, false);
  EXPECT_EQ(s.inf_mismatch_count, 1);
  EXPECT_EQ(s.first_inf_mismatch, 5000);
  LeafStats unbounded = scan_leaf(f64(r), f64(c), unbounded_tolerance, true);
  EXPECT_EQ(unbounded.inf_mismatch_count, 1);
}

TEST(ScanLeaf, InfiniteReferenceWithZeroRtolStillMatchesTheSameInfinity) {
  std::vector<double> r(8192, 1.0);
  r[100] = -inf;
  LeafStats s = scan_leaf(f64(r), f64(r), Tolerance{.rtol = 0, .atol = 1e-5}, false);
  EXPECT_EQ(s.mismatch_count(), 0);
  EXPECT_EQ(s.err_abs_max, 0);
  EXPECT_EQ(s.err_abs_max_index, -1);
}

TEST(ScanLeaf, OverflowingFloat64DifferenceIsAValueMismatchWithInfiniteError) {
  std::vector<double> r(16, 1.0);
  std::vector<double> c = r;
  r[3] = 1e308;
  c[3] = -1e308;
  LeafStats s = scan_leaf(f64(r), f64(c), f32_tol, false);
  EXPECT_EQ(s.value_mismatch_count, 1);
  EXPECT_EQ(s.inf_mismatch_count, 0);
  EXPECT_EQ(s.err_abs_max, inf);
  EXPECT_EQ(s.err_abs_max_index, 3);
}

TEST(ScanLeaf, UnboundedToleranceFailsOnlyNanAndInfPatterns) {
  std::vector<float> r(10000, 1.0f);
  std::vector<float> c(10000, 1000.0f);
  c[9000] = static_cast<float>(nan);
  LeafStats s = scan_leaf(f32(r), f32(c), unbounded_tolerance, true);
  EXPECT_EQ(s.value_mismatch_count, 0);
  EXPECT_EQ(s.nan_mismatch_count, 1);
  EXPECT_EQ(s.err_abs_max, 999);
  EXPECT_EQ(s.sums.parts, 9999);  // the NaN pair is left out of the metric sums
}

TEST(ScanLeaf, RelativeErrorSkipsZeroReferenceElements) {
  LeafStats s = scan_leaf(f32({0.0f, 2.0f}), f32({0.5f, 2.5f}), Tolerance{1, 1}, false);
  EXPECT_EQ(s.err_abs_max, 0.5);
  EXPECT_EQ(s.err_abs_max_index, 0);
  EXPECT_EQ(s.err_rel_max, 0.25);  // 0.5 / 2; the 0.5 / 0 element is ignored
}

TEST(ScanLeaf, ARelativeErrorJustAboveAnEarlierOneInTheSameSimdLaneIsNotLost) {
  // Elements i and i + 8 share a SIMD lane of the fast pass; the second beats the first by a
  // relative 9e-7, which a sloppy "skip the division" gate would miss.
  for (int lane = 0; lane < 8; ++lane) {
    std::vector<double> r(8192, 1.0);
    std::vector<double> c = r;
    c[lane] = 1 + 1e-6;
    c[lane + 8] = 1 + 1e-6 + 0x1p-40;
    LeafStats s = scan_leaf(f64(r), f64(c), f32_tol, false);
    EXPECT_EQ(s.err_rel_max, c[lane + 8] - 1) << "lane " << lane;
    EXPECT_EQ(s.err_abs_max_index, lane + 8) << "lane " << lane;
  }
}

TEST(ScanLeaf, AbsMaxIndexIsTheFirstElementReachingTheMaximumAcrossChunks) {
  std::vector<float> r(20000, 1.0f);
  std::vector<float> c = r;
  c[12345] = 1.25f;
  c[6000] = 0.75f;  // same |c - r|, earlier, in another chunk
  c[19999] = 1.25f;
  LeafStats s = scan_leaf(f32(r), f32(c), Tolerance{1, 1}, false);
  EXPECT_EQ(s.err_abs_max, 0.25);
  EXPECT_EQ(s.err_abs_max_index, 6000);
}

TEST(ScanLeaf, ComplexElementCountsOnceWhenBothPartsFail) {
  TensorBlob r = testing::c64({{1, 1}, {1, 1}});
  TensorBlob c = testing::c64({{2, 2}, {1, 1}});
  LeafStats s = scan_leaf(r, c, f32_tol, false);
  EXPECT_EQ(s.value_mismatch_count, 1);
  EXPECT_EQ(s.first_value_mismatch, 0);
}

TEST(ScanLeaf, ComplexNanInOnePartOutranksValueErrorInTheOther) {
  TensorBlob r = testing::c64({{1, 1}});
  TensorBlob c = testing::c64({{static_cast<float>(nan), 5}});
  LeafStats s = scan_leaf(r, c, f32_tol, false);
  EXPECT_EQ(s.nan_mismatch_count, 1);
  EXPECT_EQ(s.value_mismatch_count, 0);
}

TEST(ScanLeaf, NanAgainstInfCountsAsNanMismatchOnly) {
  LeafStats s =
      scan_leaf(f32({static_cast<float>(inf)}), f32({static_cast<float>(nan)}), f32_tol, false);
  EXPECT_EQ(s.nan_mismatch_count, 1);
  EXPECT_EQ(s.inf_mismatch_count, 0);
  EXPECT_EQ(s.mismatch_count(), 1);
}

TEST(ScanLeaf, Int64ExtremesGiveTheExactAbsoluteError) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  LeafStats s = scan_leaf(blob(DType::int64, std::vector<std::int64_t>{big - 1, 5}),
                          blob(DType::int64, std::vector<std::int64_t>{big, 5}), {}, false);
  EXPECT_EQ(s.value_mismatch_count, 1);
  EXPECT_EQ(s.err_abs_max, 1.0);  // not 0, as a difference taken in double would give
  const std::int64_t small = std::numeric_limits<std::int64_t>::min();
  s = scan_leaf(blob(DType::int64, std::vector<std::int64_t>{small}),
                blob(DType::int64, std::vector<std::int64_t>{big}), {}, false);
  EXPECT_EQ(s.err_abs_max, 18446744073709551615.0);
}

TEST(ScanLeaf, BoolTreatsAnyNonZeroByteAsTrue) {
  LeafStats s = scan_leaf(blob(DType::boolean, std::vector<std::uint8_t>{1, 0, 1}),
                          blob(DType::boolean, std::vector<std::uint8_t>{2, 0, 0}), {}, false);
  EXPECT_EQ(s.value_mismatch_count, 1);
  EXPECT_EQ(s.first_value_mismatch, 2);
}

TEST(ScanLeaf, SmallIntegerTypesCompareBySignedOrUnsignedValue) {
  LeafStats u8 = scan_leaf(blob(DType::uint8, std::vector<std::uint8_t>{255, 3}),
                           blob(DType::uint8, std::vector<std::uint8_t>{0, 3}), {}, false);
  EXPECT_EQ(u8.err_abs_max, 255);
  LeafStats i8 = scan_leaf(blob(DType::int8, std::vector<std::int8_t>{-128, 3}),
                           blob(DType::int8, std::vector<std::int8_t>{127, 3}), {}, false);
  EXPECT_EQ(i8.err_abs_max, 255);
  EXPECT_EQ(i8.err_rel_max, 255.0 / 128);
  LeafStats i16 = scan_leaf(blob(DType::int16, std::vector<std::int16_t>{7, -300}),
                            blob(DType::int16, std::vector<std::int16_t>{7, -300}), {}, false);
  EXPECT_EQ(i16.mismatch_count(), 0);
}

}  // namespace
}  // namespace kbx::compare
