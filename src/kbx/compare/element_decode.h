// Branch-free float16/bfloat16 decoding for the comparator's hot loop (inline, so it vectorizes).
#pragma once

#include <bit>
#include <cstdint>

namespace kbx::compare {

/// IEEE binary16 bits -> float, exact for all 65536 patterns (subnormals, ±Inf, NaN payloads).
/// Rebiases by scaling: (exponent, mantissa) moved into a float's position is the value times
/// 2^-112, so one multiply handles normals and subnormals alike. Needs the FPU to keep
/// subnormals (no DAZ/FTZ, i.e. no -ffast-math), which kbx never turns on.
inline float decode_f16(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000U) << 16;
  const std::uint32_t magnitude = static_cast<std::uint32_t>(bits & 0x7FFFU) << 13;
  const float scaled = std::bit_cast<float>(magnitude) * 0x1p112f;
  const std::uint32_t finite = std::bit_cast<std::uint32_t>(scaled);
  const std::uint32_t inf_or_nan = magnitude | 0x7F800000U;
  return std::bit_cast<float>((magnitude >= (0x7C00U << 13) ? inf_or_nan : finite) | sign);
}

/// bfloat16 bits -> float (the top half of a float32).
inline float decode_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// Four lanes (GCC vector extensions; SSE2 registers on x86-64).
using Float4 = float __attribute__((vector_size(16)));
using Uint4 = std::uint32_t __attribute__((vector_size(16)));

/// decode_f16 on four values at once (each lane holds 16 bits): the same bits lane by lane.
inline Float4 decode_f16x4(Uint4 bits) {
  const Uint4 sign = (bits & 0x8000U) << 16;
  const Uint4 magnitude = (bits & 0x7FFFU) << 13;
  const Uint4 finite = reinterpret_cast<Uint4>(reinterpret_cast<Float4>(magnitude) * 0x1p112f);
  const auto special = reinterpret_cast<Uint4>(magnitude >= (0x7C00U << 13));
  return reinterpret_cast<Float4>((special & (magnitude | 0x7F800000U)) | (~special & finite) |
                                  sign);
}

/// decode_bf16 on four values at once.
inline Float4 decode_bf16x4(Uint4 bits) { return reinterpret_cast<Float4>(bits << 16); }

}  // namespace kbx::compare
