// DType names and sizes.
#include "kbx/common/dtype.h"

#include <array>
#include <utility>

namespace kbx {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 12> dtype_names{{
    {DType::boolean, "bool"},
    {DType::uint8, "uint8"},
    {DType::int8, "int8"},
    {DType::int16, "int16"},
    {DType::int32, "int32"},
    {DType::int64, "int64"},
    {DType::float16, "float16"},
    {DType::bfloat16, "bfloat16"},
    {DType::float32, "float32"},
    {DType::float64, "float64"},
    {DType::complex64, "complex64"},
    {DType::complex128, "complex128"},
}};

}  // namespace

std::string_view to_string(DType dtype) {
  for (const auto& [d, name] : dtype_names) {
    if (d == dtype) {
      return name;
    }
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) {
    name.remove_prefix(6);
  }
  if (name == "half") {
    return DType::float16;
  }
  if (name == "float") {
    return DType::float32;
  }
  if (name == "double") {
    return DType::float64;
  }
  if (name == "long") {
    return DType::int64;
  }
  if (name == "int") {
    return DType::int32;
  }
  for (const auto& [d, n] : dtype_names) {
    if (n == name) {
      return d;
    }
  }
  return std::nullopt;
}

std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::boolean:
    case DType::uint8:
    case DType::int8: return 1;
    case DType::int16:
    case DType::float16:
    case DType::bfloat16: return 2;
    case DType::int32:
    case DType::float32: return 4;
    case DType::int64:
    case DType::float64:
    case DType::complex64: return 8;
    case DType::complex128: return 16;
  }
  return 1;
}

bool is_floating(DType dtype) {
  return dtype == DType::float16 || dtype == DType::bfloat16 || dtype == DType::float32 ||
         dtype == DType::float64;
}

bool is_complex(DType dtype) { return dtype == DType::complex64 || dtype == DType::complex128; }

bool is_exact(DType dtype) { return !is_floating(dtype) && !is_complex(dtype); }

}  // namespace kbx
