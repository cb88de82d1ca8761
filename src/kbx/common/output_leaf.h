// OutputLeaf: one flattened piece of what a function returned (or an argument it mutated).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kbx/common/json.h"
#include "kbx/common/tensor_blob.h"

namespace kbx {

/// What a leaf holds. Python values map as: Tensor -> tensor; None -> none;
/// bool/int/float/complex -> scalar; str -> str; anything else -> repr (its repr() text).
enum class LeafKind { tensor, none, scalar, str, repr };

std::string_view to_string(LeafKind kind);
std::optional<LeafKind> parse_leaf_kind(std::string_view name);

/// A leaf of the output tree, addressed by a Python-like path: "out", "out[0]", "out['loss']",
/// "arg0" (argument 0 after the call, for tasks that write into their inputs).
struct OutputLeaf {
  std::string path;
  LeafKind kind = LeafKind::none;
  TensorBlob tensor;  ///< kind == tensor
  /// kind == scalar: {"dtype": "float64"|"int64"|"bool"|"complex128", "value": number|bool|[re, im]}
  /// (non-finite floats as the strings "nan", "inf", "-inf");
  /// kind == str or repr: the text as a JSON string.
  Json value;
};

}  // namespace kbx
