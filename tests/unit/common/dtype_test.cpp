// Tests of DType names, aliases, sizes and classes.
#include "kbx/common/dtype.h"

#include <gtest/gtest.h>

namespace kbx {
namespace {

constexpr DType all_dtypes[] = {DType::boolean, DType::uint8,     DType::int8,
                                DType::int16,   DType::int32,     DType::int64,
                                DType::float16, DType::bfloat16,  DType::float32,
                                DType::float64, DType::complex64, DType::complex128};

TEST(DType, EveryNameParsesBackToItsType) {
  for (DType d : all_dtypes) {
    EXPECT_EQ(parse_dtype(to_string(d)), d) << to_string(d);
  }
}

TEST(DType, BoolIsNamedAsTorchNamesIt) { EXPECT_EQ(to_string(DType::boolean), "bool"); }

TEST(DType, ParseAcceptsTheTorchPrefix) {
  EXPECT_EQ(parse_dtype("torch.float32"), DType::float32);
  EXPECT_EQ(parse_dtype("torch.bfloat16"), DType::bfloat16);
  EXPECT_EQ(parse_dtype("torch.bool"), DType::boolean);
}

TEST(DType, ParseAcceptsTorchAliases) {
  EXPECT_EQ(parse_dtype("half"), DType::float16);
  EXPECT_EQ(parse_dtype("torch.half"), DType::float16);
  EXPECT_EQ(parse_dtype("float"), DType::float32);
  EXPECT_EQ(parse_dtype("double"), DType::float64);
  EXPECT_EQ(parse_dtype("torch.double"), DType::float64);
  EXPECT_EQ(parse_dtype("long"), DType::int64);
  EXPECT_EQ(parse_dtype("int"), DType::int32);
}

TEST(DType, ParseRejectsUnknownNames) {
  EXPECT_EQ(parse_dtype(""), std::nullopt);
  EXPECT_EQ(parse_dtype("float8_e4m3fn"), std::nullopt);
  EXPECT_EQ(parse_dtype("uint16"), std::nullopt);
  EXPECT_EQ(parse_dtype("Float32"), std::nullopt);
  EXPECT_EQ(parse_dtype("torch."), std::nullopt);
}

TEST(DType, ElementSizesMatchTorch) {
  EXPECT_EQ(element_size(DType::boolean), 1U);
  EXPECT_EQ(element_size(DType::uint8), 1U);
  EXPECT_EQ(element_size(DType::int16), 2U);
  EXPECT_EQ(element_size(DType::float16), 2U);
  EXPECT_EQ(element_size(DType::bfloat16), 2U);
  EXPECT_EQ(element_size(DType::int32), 4U);
  EXPECT_EQ(element_size(DType::float32), 4U);
  EXPECT_EQ(element_size(DType::int64), 8U);
  EXPECT_EQ(element_size(DType::float64), 8U);
  EXPECT_EQ(element_size(DType::complex64), 8U);
  EXPECT_EQ(element_size(DType::complex128), 16U);
}

TEST(DType, ClassesPartitionTheTypes) {
  for (DType d : all_dtypes) {
    int classes = int{is_floating(d)} + int{is_complex(d)} + int{is_exact(d)};
    EXPECT_EQ(classes, 1) << to_string(d);
  }
  EXPECT_TRUE(is_floating(DType::bfloat16));
  EXPECT_TRUE(is_complex(DType::complex64));
  EXPECT_TRUE(is_exact(DType::boolean));
  EXPECT_TRUE(is_exact(DType::uint8));
  EXPECT_FALSE(is_exact(DType::float16));
}

}  // namespace
}  // namespace kbx
