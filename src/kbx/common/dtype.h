// DType: the tensor element types kbx moves between processes and compares.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kbx {

/// Element types, named as torch names them ("float32", "bfloat16", ...).
enum class DType {
  boolean,
  uint8,
  int8,
  int16,
  int32,
  int64,
  float16,
  bfloat16,
  float32,
  float64,
  complex64,
  complex128,
};

/// torch's name of the type: DType::boolean -> "bool".
std::string_view to_string(DType dtype);

/// Parses torch's name ("float32"; "torch.float32" is accepted too); nullopt when unknown.
std::optional<DType> parse_dtype(std::string_view name);

/// Bytes per element (complex64: 8).
std::size_t element_size(DType dtype);

bool is_floating(DType dtype);
bool is_complex(DType dtype);
/// Integers and bool: compared exactly.
bool is_exact(DType dtype);

}  // namespace kbx
