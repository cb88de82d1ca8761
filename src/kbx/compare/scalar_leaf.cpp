// Decoding of scalar leaf values ({"dtype", "value"}) into 0-d TensorBlobs.
#include "kbx/compare/scalar_leaf.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace kbx::compare {
namespace {

std::optional<double> parse_float(const Json& v) {
  if (v.is_number()) {
    return v.get<double>();
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (s == "nan") {
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (s == "inf" || s == "-inf") {
      return s == "inf" ? inf : -inf;
    }
  }
  return std::nullopt;
}

bool fits_int64(const Json& v) {
  constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return !v.is_number_unsigned() || v.get<std::uint64_t>() <= max;
}

template <typename T>
void append(TensorBlob& blob, T value) {
  const std::size_t at = blob.data.size();
  blob.data.resize(at + sizeof(T));
  std::memcpy(blob.data.data() + at, &value, sizeof(T));
}

Error malformed(const Json& scalar, const char* why) {
  return Error(ErrorKind::protocol, "malformed scalar {}: {}", scalar.dump(), why);
}

}  // namespace

Result<TensorBlob> scalar_to_tensor(const Json& scalar) {
  if (!scalar.is_object() || !scalar.contains("dtype") || !scalar.contains("value") ||
      !scalar["dtype"].is_string()) {
    return malformed(scalar, "expected {\"dtype\": ..., \"value\": ...}");
  }
  const Json& v = scalar["value"];
  const auto& name = scalar["dtype"].get_ref<const std::string&>();
  TensorBlob blob;
  if (name == "bool" && v.is_boolean()) {
    blob.dtype = DType::boolean;
    append<std::uint8_t>(blob, v.get<bool>() ? 1 : 0);
  } else if (name == "int64" && v.is_number_integer() && fits_int64(v)) {
    blob.dtype = DType::int64;
    append<std::int64_t>(blob, v.get<std::int64_t>());
  } else if (name == "float64" && parse_float(v)) {
    blob.dtype = DType::float64;
    append<double>(blob, *parse_float(v));
  } else if (name == "complex128" && v.is_array() && v.size() == 2 && parse_float(v[0]) &&
             parse_float(v[1])) {
    blob.dtype = DType::complex128;
    append<double>(blob, *parse_float(v[0]));
    append<double>(blob, *parse_float(v[1]));
  } else {
    return malformed(scalar,
                     "expected dtype bool, int64, float64 or complex128 with a matching value");
  }
  return blob;
}

}  // namespace kbx::compare
