// Tests of TensorBlob element access, half/bfloat16 decoding and index formatting.
#include "kbx/common/tensor_blob.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

namespace kbx {
namespace {

// A 1-d blob of `dtype` holding `values` as raw bytes.
template <typename T>
TensorBlob blob_of(DType dtype, const std::vector<T>& values) {
  TensorBlob t;
  t.dtype = dtype;
  t.shape = {static_cast<std::int64_t>(values.size())};
  if (is_complex(dtype)) {
    t.shape[0] /= 2;  // values are interleaved (re, im) pairs
  }
  t.data.resize(values.size() * sizeof(T));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

TEST(HalfToFloat, DecodesNormalNumbers) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0F);
  EXPECT_EQ(half_to_float(0xC000), -2.0F);
  EXPECT_EQ(half_to_float(0x3800), 0.5F);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0F);               // largest finite half
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0F, -14));  // smallest normal
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125F);        // nearest half to 1/3
}

TEST(HalfToFloat, DecodesSubnormalsExactly) {
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0F, -24));     // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0F, -24));  // largest subnormal
  EXPECT_EQ(half_to_float(0x0200), std::ldexp(1.0F, -15));
  EXPECT_EQ(half_to_float(0x8001), -std::ldexp(1.0F, -24));
}

TEST(HalfToFloat, KeepsTheSignOfZero) {
  EXPECT_EQ(half_to_float(0x0000), 0.0F);
  EXPECT_FALSE(std::signbit(half_to_float(0x0000)));
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
}

TEST(HalfToFloat, DecodesInfinitiesAndNan) {
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7C01)));  // signalling payload stays a NaN
  EXPECT_TRUE(std::isnan(half_to_float(0xFE00)));
}

TEST(Bfloat16ToFloat, DecodesNormalsSubnormalsInfinitiesAndNan) {
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0F);
  EXPECT_EQ(bfloat16_to_float(0xC000), -2.0F);
  EXPECT_EQ(bfloat16_to_float(0x3FC0), 1.5F);
  EXPECT_EQ(bfloat16_to_float(0x0001), std::ldexp(1.0F, -133));  // smallest subnormal
  EXPECT_TRUE(std::signbit(bfloat16_to_float(0x8000)));
  EXPECT_EQ(bfloat16_to_float(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bfloat16_to_float(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bfloat16_to_float(0x7FC0)));
}

TEST(TensorBlob, RealAtDecodesEveryRealType) {
  EXPECT_EQ(blob_of<std::uint8_t>(DType::uint8, {7, 255}).real_at(1), 255.0);
  EXPECT_EQ(blob_of<std::int8_t>(DType::int8, {1, -128}).real_at(1), -128.0);
  EXPECT_EQ(blob_of<std::int16_t>(DType::int16, {0, -300}).real_at(1), -300.0);
  EXPECT_EQ(blob_of<std::int32_t>(DType::int32, {0, -70000}).real_at(1), -70000.0);
  EXPECT_EQ(blob_of<std::int64_t>(DType::int64, {0, -(std::int64_t{1} << 40)}).real_at(1),
            -std::ldexp(1.0, 40));
  EXPECT_EQ(blob_of<std::uint16_t>(DType::float16, {0x3C00, 0xC000}).real_at(1), -2.0);
  EXPECT_EQ(blob_of<std::uint16_t>(DType::bfloat16, {0x3F80, 0x3FC0}).real_at(1), 1.5);
  EXPECT_EQ(blob_of<float>(DType::float32, {0.0F, 0.1F}).real_at(1), static_cast<double>(0.1F));
  EXPECT_EQ(blob_of<double>(DType::float64, {0.0, 0.1}).real_at(1), 0.1);
}

TEST(TensorBlob, BoolElementsReadAsZeroOrOneWhateverTheByte) {
  auto t = blob_of<std::uint8_t>(DType::boolean, {0, 1, 2});
  EXPECT_EQ(t.real_at(0), 0.0);
  EXPECT_EQ(t.real_at(2), 1.0);
  EXPECT_EQ(t.int_at(2), 1);
}

TEST(TensorBlob, RealTypesHaveZeroImaginaryPart) {
  EXPECT_EQ(blob_of<float>(DType::float32, {3.0F}).imag_at(0), 0.0);
  EXPECT_EQ(blob_of<std::int64_t>(DType::int64, {3}).imag_at(0), 0.0);
}

TEST(TensorBlob, ComplexElementsAreInterleavedRealImaginaryPairs) {
  auto c64 = blob_of<float>(DType::complex64, {1.0F, 2.0F, 3.0F, -4.0F});
  ASSERT_EQ(c64.numel(), 2);
  EXPECT_EQ(c64.real_at(1), 3.0);
  EXPECT_EQ(c64.imag_at(1), -4.0);
  auto c128 = blob_of<double>(DType::complex128, {0.5, -0.25, 7.0, 8.0});
  EXPECT_EQ(c128.real_at(0), 0.5);
  EXPECT_EQ(c128.imag_at(0), -0.25);
  EXPECT_EQ(c128.imag_at(1), 8.0);
}

TEST(TensorBlob, IntAtReadsExactTypesWithoutGoingThroughDouble) {
  std::int64_t big = (std::int64_t{1} << 62) + 1;  // not representable as a double
  EXPECT_EQ(blob_of<std::int64_t>(DType::int64, {0, big}).int_at(1), big);
  EXPECT_EQ(blob_of<std::int8_t>(DType::int8, {-5}).int_at(0), -5);
  EXPECT_EQ(blob_of<std::uint8_t>(DType::uint8, {200}).int_at(0), 200);
  EXPECT_EQ(blob_of<std::int16_t>(DType::int16, {-2}).int_at(0), -2);
  EXPECT_EQ(blob_of<std::int32_t>(DType::int32, {-3}).int_at(0), -3);
}

TEST(TensorBlobDeathTest, IntAtOnAFloatTypeIsAProgrammerError) {
  auto t = blob_of<float>(DType::float32, {1.0F});
  EXPECT_DEATH((void)t.int_at(0), "int_at on float32");
}

TEST(TensorBlob, NumelIsTheProductOfTheShapeAndOneForAScalar) {
  TensorBlob t;
  EXPECT_EQ(t.numel(), 1);
  t.shape = {2, 3, 4};
  EXPECT_EQ(t.numel(), 24);
  t.shape = {2, 0, 4};
  EXPECT_EQ(t.numel(), 0);
}

TEST(TensorBlob, DescribeNamesDtypeAndShape) {
  TensorBlob t;
  t.dtype = DType::bfloat16;
  t.shape = {2, 3};
  EXPECT_EQ(describe(t), "bfloat16[2, 3]");
  t.shape = {};
  EXPECT_EQ(describe(t), "bfloat16[]");
}

TEST(UnravelIndex, GivesTheRowMajorMultiIndex) {
  EXPECT_EQ(unravel_index({2, 3, 4}, 0), "[0, 0, 0]");
  EXPECT_EQ(unravel_index({2, 3, 4}, 23), "[1, 2, 3]");
  EXPECT_EQ(unravel_index({2, 3, 4}, 13), "[1, 0, 1]");
  EXPECT_EQ(unravel_index({5}, 4), "[4]");
  EXPECT_EQ(unravel_index({}, 0), "[]");
}

}  // namespace
}  // namespace kbx
