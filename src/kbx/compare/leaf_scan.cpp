// The comparator's hot loop. Each chunk of 4096 parts first runs a fast pass (SIMD through GCC
// vector extensions, no per-element branches) that only asks "could anything here fail?"; the
// rare chunk that could is rescanned element by element to classify and count. The fast pass can
// flag a chunk wrongly (any non-finite value flags it) but never miss one: an unflagged pair is
// finite on both sides and within the bound, which is exactly what the exact pass accepts.
#include "kbx/compare/leaf_scan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "kbx/common/check.h"
#include "kbx/compare/element_decode.h"

namespace kbx::compare {
namespace {

enum class Part { f16, bf16, f32, f64 };

constexpr std::int64_t chunk_parts = 4096;  // even, so complex elements never straddle chunks
constexpr double max_finite = std::numeric_limits<double>::max();

template <Part P>
inline double load_part(const std::uint8_t* bytes, std::int64_t j) {
  if constexpr (P == Part::f32) {
    float v;
    std::memcpy(&v, bytes + 4 * j, 4);
    return v;
  } else if constexpr (P == Part::f64) {
    double v;
    std::memcpy(&v, bytes + 8 * j, 8);
    return v;
  } else {
    std::uint16_t v;
    std::memcpy(&v, bytes + 2 * j, 2);
    return P == Part::f16 ? decode_f16(v) : decode_bf16(v);
  }
}

struct Pair {
  const std::uint8_t* cand;
  const std::uint8_t* ref;
};

/// |r| > 0 ? d / |r| : 0, written so the division never needs a guard branch.
inline double rel_of(double d, double ref_abs) {
  double rel = d / (ref_abs > 0 ? ref_abs : 1.0);
  return ref_abs > 0 ? rel : 0.0;
}

struct ChunkResult {
  bool flagged = false;
  double abs_max = 0;
  double rel_max = 0;
};

using Double2 = double __attribute__((vector_size(16)));
using Mask2 = std::int64_t __attribute__((vector_size(16)));

/// Four 16-bit values, zero-extended to 32 bits.
inline Uint4 widen4(const std::uint8_t* bytes) {
#if defined(__SSE2__)  // GCC builds the generic form below lane by lane through integer registers
  const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));  // unaligned ok
  return reinterpret_cast<Uint4>(_mm_unpacklo_epi16(v, _mm_setzero_si128()));
#else
  std::uint16_t h[4];
  std::memcpy(h, bytes, 8);
  return Uint4{h[0], h[1], h[2], h[3]};
#endif
}

/// Parts j .. j+3 as two pairs of doubles.
template <Part P>
inline void load4(const std::uint8_t* bytes, std::int64_t j, Double2& lo, Double2& hi) {
  if constexpr (P == Part::f64) {
    std::memcpy(&lo, bytes + 8 * j, 16);
    std::memcpy(&hi, bytes + 8 * j + 16, 16);
  } else {
    Float4 f;
    if constexpr (P == Part::f32) {
      std::memcpy(&f, bytes + 4 * j, 16);
    } else {
      const Uint4 u = widen4(bytes + 2 * j);
      f = P == Part::f16 ? decode_f16x4(u) : decode_bf16x4(u);
    }
#if defined(__SSE2__)  // GCC lowers the generic form below to scalar conversions
    lo = _mm_cvtps_pd(f);
    hi = _mm_cvtps_pd(_mm_movehl_ps(f, f));
#else
    lo = Double2{f[0], f[1]};
    hi = Double2{f[2], f[3]};
#endif
  }
}

inline bool any(Mask2 m) {
#if defined(__SSE2__)
  return _mm_movemask_pd(reinterpret_cast<__m128d>(m)) != 0;
#else
  return (m[0] | m[1]) != 0;
#endif
}

/// a < b ? a : b per lane (so a NaN a gives b), as one minpd.
inline Double2 min_or_second(Double2 a, Double2 b) {
#if defined(__SSE2__)
  return _mm_min_pd(a, b);
#else
  return a < b ? a : b;
#endif
}

/// Two lanes of the fast pass. The relative error needs a division, the slowest operation here,
/// so it runs only when some lane may beat its running maximum: d <= rel_max * |r| means
/// d / |r| <= rel_max, up to the rounding of that product (so the maximum can come out one ulp
/// low in float64, never in the narrower types, whose ratios are never that close). Equal
/// ratios, common in half-precision data, skip the division too.
struct Lane {
  Mask2 within = ~Mask2{};  ///< all bits set while every pair seen is finite and within bounds
  Double2 abs_max{};
  Double2 rel_max{};
  Double2 dot{}, cand_sq{}, ref_sq{}, diff_sq{}, diff_abs{}, ref_abs{};
};

struct Bounds {
  Double2 atol;
  Double2 rtol;
};

template <bool kMetrics>
inline void step(Lane& a, Double2 c, Double2 r, const Bounds& b) {
  constexpr Mask2 abs_mask{0x7FFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF};
  constexpr Double2 max_finite2{max_finite, max_finite};
  constexpr Double2 zero{0, 0};
  constexpr Double2 one{1, 1};
  const Double2 d = reinterpret_cast<Double2>(reinterpret_cast<Mask2>(c - r) & abs_mask);
  const Double2 ra = reinterpret_cast<Double2>(reinterpret_cast<Mask2>(r) & abs_mask);
  // A NaN or Inf bound becomes max_finite, so non-finite pairs (d NaN or Inf) always flag.
  a.within &= d <= min_or_second(b.atol + b.rtol * ra, max_finite2);
  a.abs_max = d > a.abs_max ? d : a.abs_max;
  if (any(d > a.rel_max * ra)) {  // r == 0 lanes may pass this test; the select drops them
    const Mask2 nonzero = ra > zero;
    const Double2 rel = nonzero ? d / (nonzero ? ra : one) : zero;
    a.rel_max = rel > a.rel_max ? rel : a.rel_max;
  }
  if constexpr (kMetrics) {
    a.dot += c * r;
    a.cand_sq += c * c;
    a.ref_sq += r * r;
    a.diff_sq += d * d;
    a.diff_abs += d;
    a.ref_abs += ra;
  }
}

constexpr int lane_count = 2;  // 2 lanes x 2 doubles = 4 parts per step, as independent chains

template <bool kMetrics>
ChunkResult finish(const Lane (&lanes)[lane_count], MetricSums& sums, std::int64_t parts) {
  ChunkResult out;
  for (const Lane& a : lanes) {
    for (int i = 0; i < 2; ++i) {
      out.flagged = out.flagged || a.within[i] != -1;
      out.abs_max = std::max(out.abs_max, a.abs_max[i]);
      out.rel_max = std::max(out.rel_max, a.rel_max[i]);
      if constexpr (kMetrics) {
        sums += MetricSums{
            a.dot[i], a.cand_sq[i], a.ref_sq[i], a.diff_sq[i], a.diff_abs[i], a.ref_abs[i], 0};
      }
    }
  }
  sums.parts += kMetrics ? parts : 0;
  return out;
}

constexpr std::int64_t step_parts = 2 * lane_count;

/// The fast pass over parts [begin, end). A length that is not a multiple of step_parts (only
/// a tensor's last chunk) is simply flagged, leaving it to the exact pass.
template <Part P, bool kMetrics>
ChunkResult scan_fast(Pair p, std::int64_t begin, std::int64_t end, Tolerance tol,
                      MetricSums& sums) {
  if ((end - begin) % step_parts != 0) {
    return ChunkResult{.flagged = true};
  }
  const Bounds b{{tol.atol, tol.atol}, {tol.rtol, tol.rtol}};
  Lane lanes[lane_count];
  for (std::int64_t j = begin; j < end; j += step_parts) {
    Double2 c[lane_count];
    Double2 r[lane_count];
    for (int k = 0; k < lane_count; k += 2) {
      load4<P>(p.cand, j + 2 * k, c[k], c[k + 1]);
      load4<P>(p.ref, j + 2 * k, r[k], r[k + 1]);
    }
    for (int k = 0; k < lane_count; ++k) {
      step<kMetrics>(lanes[k], c[k], r[k], b);
    }
  }
  return finish<kMetrics>(lanes, sums, end - begin);
}

enum class PartClass { match, value, inf, nan };  // ascending priority

template <bool kMetrics>
PartClass classify(double c, double r, Tolerance tol, ChunkResult& chunk, MetricSums& sums) {
  const bool c_nan = std::isnan(c);
  const bool r_nan = std::isnan(r);
  if (c_nan || r_nan) {
    return c_nan == r_nan ? PartClass::match : PartClass::nan;
  }
  if (std::isinf(c) || std::isinf(r)) {
    return c == r ? PartClass::match : PartClass::inf;
  }
  const double d = std::fabs(c - r);
  const double ra = std::fabs(r);
  chunk.abs_max = std::max(chunk.abs_max, d);
  chunk.rel_max = std::max(chunk.rel_max, rel_of(d, ra));
  if constexpr (kMetrics) {
    sums += MetricSums{c * r, c * c, r * r, d * d, d, ra, 1};
  }
  return d <= tol.atol + tol.rtol * ra ? PartClass::match : PartClass::value;
}

void record(PartClass cls, std::int64_t element, LeafStats& s) {
  auto bump = [element](std::int64_t& count, std::int64_t& first) {
    first = count++ == 0 ? element : first;
  };
  switch (cls) {
    case PartClass::match:
      return;
    case PartClass::value:
      return bump(s.value_mismatch_count, s.first_value_mismatch);
    case PartClass::inf:
      return bump(s.inf_mismatch_count, s.first_inf_mismatch);
    case PartClass::nan:
      return bump(s.nan_mismatch_count, s.first_nan_mismatch);
  }
}

template <Part P, int kParts, bool kMetrics>
ChunkResult scan_exactly(Pair p, std::int64_t begin, std::int64_t end, Tolerance tol,
                         LeafStats& s) {
  ChunkResult chunk;
  for (std::int64_t e = begin / kParts; e < end / kParts; ++e) {
    PartClass worst = PartClass::match;
    for (int q = 0; q < kParts; ++q) {
      const std::int64_t j = e * kParts + q;
      worst = std::max(worst, classify<kMetrics>(load_part<P>(p.cand, j), load_part<P>(p.ref, j),
                                                 tol, chunk, s.sums));
    }
    record(worst, e, s);
  }
  return chunk;
}

/// The first element in [begin, end) whose finite parts differ by exactly `target`.
template <Part P, int kParts>
std::int64_t locate_abs_max(Pair p, std::int64_t begin, std::int64_t end, double target) {
  for (std::int64_t j = begin; j < end; ++j) {
    const double c = load_part<P>(p.cand, j);
    const double r = load_part<P>(p.ref, j);
    if (std::isfinite(c) && std::isfinite(r) && std::fabs(c - r) == target) {
      return j / kParts;
    }
  }
  KBX_CHECK(false) << "abs max " << target << " not found again in parts [" << begin << ", " << end
                   << ")";
  return -1;
}

template <Part P, int kParts, bool kMetrics>
void scan_float(Pair p, std::int64_t parts, Tolerance tol, LeafStats& s) {
  std::int64_t max_chunk = -1;
  for (std::int64_t begin = 0; begin < parts; begin += chunk_parts) {
    const std::int64_t end = std::min(parts, begin + chunk_parts);
    MetricSums local;
    ChunkResult chunk = scan_fast<P, kMetrics>(p, begin, end, tol, local);
    if (chunk.flagged) {
      chunk = scan_exactly<P, kParts, kMetrics>(p, begin, end, tol, s);
    } else {
      s.sums += local;
    }
    if (chunk.abs_max > s.err_abs_max) {
      s.err_abs_max = chunk.abs_max;
      max_chunk = begin;
    }
    s.err_rel_max = std::max(s.err_rel_max, chunk.rel_max);
  }
  if (max_chunk >= 0) {
    s.err_abs_max_index = locate_abs_max<P, kParts>(
        p, max_chunk, std::min(parts, max_chunk + chunk_parts), s.err_abs_max);
  }
}

template <Part P, int kParts>
void scan_float(Pair p, std::int64_t numel, Tolerance tol, bool with_metrics, LeafStats& s) {
  if (with_metrics) {
    scan_float<P, kParts, true>(p, numel * kParts, tol, s);
  } else {
    scan_float<P, kParts, false>(p, numel * kParts, tol, s);
  }
}

/// Integers and bool (as uint8_t with kBool: any non-zero byte is true): equal bytes settle it;
/// otherwise count the unequal elements.
template <typename T, bool kBool = false>
void scan_exact(Pair p, std::int64_t numel, LeafStats& s) {
  const auto bytes = static_cast<std::size_t>(numel) * sizeof(T);
  if (numel == 0 || std::memcmp(p.cand, p.ref, bytes) == 0) {
    return;
  }
  for (std::int64_t i = 0; i < numel; ++i) {
    T c;
    T r;
    std::memcpy(&c, p.cand + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    std::memcpy(&r, p.ref + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    if constexpr (kBool) {
      c = c != 0 ? 1 : 0;
      r = r != 0 ? 1 : 0;
    }
    if (c == r) {
      continue;
    }
    record(PartClass::value, i, s);
    // Exact |c - r| as an unsigned difference, so int64 extremes do not round to 0.
    const auto hi = static_cast<std::uint64_t>(std::max(c, r));
    const auto lo = static_cast<std::uint64_t>(std::min(c, r));
    const auto d = static_cast<double>(hi - lo);
    if (d > s.err_abs_max) {
      s.err_abs_max = d;
      s.err_abs_max_index = i;
    }
    s.err_rel_max = std::max(s.err_rel_max, rel_of(d, std::fabs(static_cast<double>(r))));
  }
}

template <Part P>
void scan_bounded(Pair p, std::int64_t numel, Tolerance tol, const std::uint8_t* magnitude,
                  double scale, LeafStats& s) {
  ChunkResult chunk;
  MetricSums unused;
  for (std::int64_t e = 0; e < numel; ++e) {
    const double m = load_part<Part::f64>(magnitude, e);
    const double allowance = std::isfinite(m) ? scale * std::fabs(m) : 0.0;
    const Tolerance element_tol{.rtol = tol.rtol, .atol = tol.atol + allowance};
    const double before = chunk.abs_max;
    record(classify<false>(load_part<P>(p.cand, e), load_part<P>(p.ref, e), element_tol, chunk,
                           unused),
           e, s);
    if (chunk.abs_max > before) {
      s.err_abs_max_index = e;
    }
  }
  s.err_abs_max = chunk.abs_max;
  s.err_rel_max = chunk.rel_max;
}

}  // namespace

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::float16:
      return 0x1p-11;
    case DType::bfloat16:
      return 0x1p-8;
    case DType::float32:
    case DType::complex64:
      return 0x1p-24;
    case DType::float64:
    case DType::complex128:
      return 0x1p-53;
    default:
      return 0;
  }
}

LeafStats scan_leaf_bounded(const TensorBlob& ref, const TensorBlob& cand, Tolerance tol,
                            const TensorBlob& magnitude, double scale) {
  KBX_CHECK(magnitude.dtype == DType::float64 && magnitude.shape == ref.shape)
      << "magnitude " << describe(magnitude) << " for " << describe(ref);
  LeafStats s;
  s.numel = ref.numel();
  KBX_CHECK(ref.dtype == cand.dtype && ref.shape == cand.shape)
      << describe(ref) << " vs " << describe(cand);
  const auto bytes = static_cast<std::size_t>(s.numel) * element_size(ref.dtype);
  KBX_CHECK(ref.data.size() == bytes && cand.data.size() == bytes &&
            magnitude.data.size() == static_cast<std::size_t>(s.numel) * 8)
      << describe(ref) << ": sizes do not match";
  const Pair p{cand.data.data(), ref.data.data()};
  switch (ref.dtype) {
    case DType::float16:
      scan_bounded<Part::f16>(p, s.numel, tol, magnitude.data.data(), scale, s);
      break;
    case DType::bfloat16:
      scan_bounded<Part::bf16>(p, s.numel, tol, magnitude.data.data(), scale, s);
      break;
    case DType::float32:
      scan_bounded<Part::f32>(p, s.numel, tol, magnitude.data.data(), scale, s);
      break;
    case DType::float64:
      scan_bounded<Part::f64>(p, s.numel, tol, magnitude.data.data(), scale, s);
      break;
    default:
      return scan_leaf(ref, cand, tol, false);
  }
  return s;
}

LeafStats scan_leaf(const TensorBlob& ref, const TensorBlob& cand, Tolerance tol,
                    bool with_metrics) {
  LeafStats s;
  s.numel = ref.numel();
  KBX_CHECK(ref.dtype == cand.dtype && ref.shape == cand.shape)
      << describe(ref) << " vs " << describe(cand);
  const auto bytes = static_cast<std::size_t>(s.numel) * element_size(ref.dtype);
  KBX_CHECK(ref.data.size() == bytes && cand.data.size() == bytes)
      << describe(ref) << ": " << ref.data.size() << " and " << cand.data.size() << " bytes";
  const Pair p{cand.data.data(), ref.data.data()};
  switch (ref.dtype) {
    case DType::boolean:
      scan_exact<std::uint8_t, true>(p, s.numel, s);
      break;
    case DType::uint8:
      scan_exact<std::uint8_t>(p, s.numel, s);
      break;
    case DType::int8:
      scan_exact<std::int8_t>(p, s.numel, s);
      break;
    case DType::int16:
      scan_exact<std::int16_t>(p, s.numel, s);
      break;
    case DType::int32:
      scan_exact<std::int32_t>(p, s.numel, s);
      break;
    case DType::int64:
      scan_exact<std::int64_t>(p, s.numel, s);
      break;
    case DType::float16:
      scan_float<Part::f16, 1>(p, s.numel, tol, with_metrics, s);
      break;
    case DType::bfloat16:
      scan_float<Part::bf16, 1>(p, s.numel, tol, with_metrics, s);
      break;
    case DType::float32:
      scan_float<Part::f32, 1>(p, s.numel, tol, with_metrics, s);
      break;
    case DType::float64:
      scan_float<Part::f64, 1>(p, s.numel, tol, with_metrics, s);
      break;
    case DType::complex64:
      scan_float<Part::f32, 2>(p, s.numel, tol, with_metrics, s);
      break;
    case DType::complex128:
      scan_float<Part::f64, 2>(p, s.numel, tol, with_metrics, s);
      break;
  }
  return s;
}

}  // namespace kbx::compare
