// Builders for the compare tests: tensors from values, output leaves, float16/bfloat16 bits.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kbx/common/check.h"
#include "kbx/common/output_leaf.h"
#include "kbx/common/tensor_blob.h"

namespace kbx::compare::testing {

/// A tensor of `dtype` holding `values` (already in the dtype's storage type T), 1-d unless a
/// shape is given.
template <typename T>
TensorBlob blob(DType dtype, const std::vector<T>& values, std::vector<std::int64_t> shape = {},
                std::string device = "cuda") {
  TensorBlob t;
  t.dtype = dtype;
  t.shape = shape.empty() ? std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())}
                          : std::move(shape);
  t.device = std::move(device);
  t.data.resize(values.size() * sizeof(T));
  if (!values.empty()) {
    std::memcpy(t.data.data(), values.data(), t.data.size());
  }
  KBX_CHECK(static_cast<std::size_t>(t.numel()) * element_size(dtype) == t.data.size());
  return t;
}

inline TensorBlob f32(const std::vector<float>& v, std::vector<std::int64_t> shape = {}) {
  return blob(DType::float32, v, std::move(shape));
}

inline TensorBlob f64(const std::vector<double>& v, std::vector<std::int64_t> shape = {}) {
  return blob(DType::float64, v, std::move(shape));
}

/// The float16 bits of `value`, which must be exactly representable (found by search, so the
/// encoding under test is never used to build its own inputs).
inline std::uint16_t f16_bits(float value) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    if (std::bit_cast<std::uint32_t>(half_to_float(static_cast<std::uint16_t>(bits))) ==
        std::bit_cast<std::uint32_t>(value)) {
      return static_cast<std::uint16_t>(bits);
    }
  }
  KBX_CHECK(false) << value << " is not a float16 value";
  return 0;
}

/// The bfloat16 bits of `value`, which must be exactly representable.
inline std::uint16_t bf16_bits(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  KBX_CHECK((bits & 0xFFFFU) == 0) << value << " is not a bfloat16 value";
  return static_cast<std::uint16_t>(bits >> 16);
}

inline TensorBlob f16(const std::vector<float>& v, std::vector<std::int64_t> shape = {}) {
  std::vector<std::uint16_t> bits;
  for (float x : v) {
    bits.push_back(f16_bits(x));
  }
  return blob(DType::float16, bits, std::move(shape));
}

inline TensorBlob bf16(const std::vector<float>& v, std::vector<std::int64_t> shape = {}) {
  std::vector<std::uint16_t> bits;
  for (float x : v) {
    bits.push_back(bf16_bits(x));
  }
  return blob(DType::bfloat16, bits, std::move(shape));
}

/// complex64 from (re, im) pairs.
inline TensorBlob c64(const std::vector<std::pair<float, float>>& v) {
  std::vector<float> parts;
  for (auto [re, im] : v) {
    parts.push_back(re);
    parts.push_back(im);
  }
  TensorBlob t = blob(DType::complex64, parts, {static_cast<std::int64_t>(v.size())});
  return t;
}

inline OutputLeaf tensor_leaf(std::string path, TensorBlob t) {
  OutputLeaf leaf;
  leaf.path = std::move(path);
  leaf.kind = LeafKind::tensor;
  leaf.tensor = std::move(t);
  return leaf;
}

/// A scalar leaf: scalar_leaf("out", "float64", 0.25), scalar_leaf("out", "float64", "nan").
inline OutputLeaf scalar_leaf(std::string path, const char* dtype, Json value) {
  OutputLeaf leaf;
  leaf.path = std::move(path);
  leaf.kind = LeafKind::scalar;
  leaf.value = Json{{"dtype", dtype}, {"value", std::move(value)}};
  return leaf;
}

inline OutputLeaf text_leaf(std::string path, LeafKind kind, std::string text) {
  OutputLeaf leaf;
  leaf.path = std::move(path);
  leaf.kind = kind;
  leaf.value = std::move(text);
  return leaf;
}

inline OutputLeaf none_leaf(std::string path) {
  OutputLeaf leaf;
  leaf.path = std::move(path);
  leaf.kind = LeafKind::none;
  return leaf;
}

/// The usual single-output case: {"out": t}.
inline std::vector<OutputLeaf> out(TensorBlob t) { return {tensor_leaf("out", std::move(t))}; }

}  // namespace kbx::compare::testing
