// TensorBlob: a tensor's element type, shape and raw little-endian bytes, as the worker sent them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kbx/common/dtype.h"

namespace kbx {

/// A dense, C-contiguous tensor held as bytes. Plain value; owns its data.
struct TensorBlob {
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  std::string device;  ///< "cpu", "cuda", ... as the producing process reported it
  /// Whether autograd records operations on it, as the producing process reported it (compared
  /// only where a task asks: Contract::requires_grad).
  bool requires_grad = false;
  std::vector<std::uint8_t> data;

  /// Product of the shape (1 for a 0-d tensor).
  [[nodiscard]] std::int64_t numel() const;
  /// Element i as a double (real part for complex; 0/1 for bool). i must be < numel().
  [[nodiscard]] double real_at(std::int64_t i) const;
  /// Imaginary part of element i (0 for real types).
  [[nodiscard]] double imag_at(std::int64_t i) const;
  /// Element i of an exact type as int64 (bool, ints).
  [[nodiscard]] std::int64_t int_at(std::int64_t i) const;
};

/// "float32[2, 3]"
std::string describe(const TensorBlob& t);

/// Multi-index of flat index i in shape: "[1, 2]".
std::string unravel_index(const std::vector<std::int64_t>& shape, std::int64_t i);

/// IEEE half -> float; bfloat16 -> float.
float half_to_float(std::uint16_t bits);
float bfloat16_to_float(std::uint16_t bits);

}  // namespace kbx
