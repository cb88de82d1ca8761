// The comparator's inline float16/bfloat16 decoders against kbx_common's reference decoders.
#include "kbx/compare/element_decode.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "kbx/common/tensor_blob.h"

namespace kbx::compare {
namespace {

std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }

TEST(DecodeF16, MatchesTheReferenceDecoderBitForBitOnAll65536Patterns) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    ASSERT_EQ(bits_of(decode_f16(bits)), bits_of(half_to_float(bits))) << std::hex << h;
  }
}

TEST(DecodeF16, FourLaneVersionMatchesTheScalarOneOnAllPatterns) {
  for (std::uint32_t h = 0; h < 0x10000; h += 4) {
    const Float4 f = decode_f16x4(Uint4{h, h + 1, h + 2, h + 3});
    for (std::uint32_t k = 0; k < 4; ++k) {
      ASSERT_EQ(bits_of(f[k]), bits_of(decode_f16(static_cast<std::uint16_t>(h + k))))
          << std::hex << h + k;
    }
  }
}

TEST(DecodeF16, DecodesLandmarkValues) {
  EXPECT_EQ(decode_f16(0x3C00), 1.0f);
  EXPECT_EQ(decode_f16(0xC000), -2.0f);
  EXPECT_EQ(decode_f16(0x7BFF), 65504.0f);
  EXPECT_EQ(decode_f16(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(decode_f16(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(decode_f16(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(bits_of(decode_f16(0x8000)), bits_of(-0.0f));
  EXPECT_EQ(decode_f16(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(decode_f16(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(decode_f16(0x7E00)));
  EXPECT_TRUE(std::isnan(decode_f16(0xFC01)));
}

TEST(DecodeBf16, MatchesTheReferenceDecoderOnAllPatternsInBothForms) {
  for (std::uint32_t h = 0; h < 0x10000; h += 4) {
    const Float4 f = decode_bf16x4(Uint4{h, h + 1, h + 2, h + 3});
    for (std::uint32_t k = 0; k < 4; ++k) {
      const auto bits = static_cast<std::uint16_t>(h + k);
      ASSERT_EQ(bits_of(decode_bf16(bits)), bits_of(bfloat16_to_float(bits))) << std::hex << h;
      ASSERT_EQ(bits_of(f[k]), bits_of(decode_bf16(bits))) << std::hex << h + k;
    }
  }
}

}  // namespace
}  // namespace kbx::compare
