// TensorBlob element access and half-precision decoding.
#include "kbx/common/tensor_blob.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cstring>

#include "kbx/common/check.h"

namespace kbx {
namespace {

template <typename T>
T load(const std::vector<std::uint8_t>& data, std::int64_t i) {
  T v;
  std::memcpy(&v, data.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

std::int64_t TensorBlob::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) {
    n *= d;
  }
  return n;
}

double TensorBlob::real_at(std::int64_t i) const {
  switch (dtype) {
    case DType::boolean: return load<std::uint8_t>(data, i) != 0 ? 1.0 : 0.0;
    case DType::uint8: return load<std::uint8_t>(data, i);
    case DType::int8: return load<std::int8_t>(data, i);
    case DType::int16: return load<std::int16_t>(data, i);
    case DType::int32: return load<std::int32_t>(data, i);
    case DType::int64: return static_cast<double>(load<std::int64_t>(data, i));
    case DType::float16: return half_to_float(load<std::uint16_t>(data, i));
    case DType::bfloat16: return bfloat16_to_float(load<std::uint16_t>(data, i));
    case DType::float32: return load<float>(data, i);
    case DType::float64: return load<double>(data, i);
    case DType::complex64: return load<float>(data, 2 * i);
    case DType::complex128: return load<double>(data, 2 * i);
  }
  return 0.0;
}

double TensorBlob::imag_at(std::int64_t i) const {
  if (dtype == DType::complex64) {
    return load<float>(data, 2 * i + 1);
  }
  if (dtype == DType::complex128) {
    return load<double>(data, 2 * i + 1);
  }
  return 0.0;
}

std::int64_t TensorBlob::int_at(std::int64_t i) const {
  switch (dtype) {
    case DType::boolean: return load<std::uint8_t>(data, i) != 0 ? 1 : 0;
    case DType::uint8: return load<std::uint8_t>(data, i);
    case DType::int8: return load<std::int8_t>(data, i);
    case DType::int16: return load<std::int16_t>(data, i);
    case DType::int32: return load<std::int32_t>(data, i);
    case DType::int64: return load<std::int64_t>(data, i);
    default: KBX_CHECK(false) << "int_at on " << to_string(dtype);
  }
  return 0;
}

std::string describe(const TensorBlob& t) {
  return fmt::format("{}[{}]", to_string(t.dtype), fmt::join(t.shape, ", "));
}

std::string unravel_index(const std::vector<std::int64_t>& shape, std::int64_t i) {
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] > 0) {
      idx[k] = i % shape[k];
      i /= shape[k];
    }
  }
  return fmt::format("[{}]", fmt::join(idx, ", "));
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
  std::uint32_t exp = (h >> 10) & 0x1FU;
  std::uint32_t mant = h & 0x3FFU;
  std::uint32_t bits = 0;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400U) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3FFU;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000U | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

float bfloat16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace kbx
