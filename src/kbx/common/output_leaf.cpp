// OutputLeaf kind names.
#include "kbx/common/output_leaf.h"

#include <optional>

namespace kbx {

std::string_view to_string(LeafKind kind) {
  switch (kind) {
    case LeafKind::tensor: return "tensor";
    case LeafKind::none: return "none";
    case LeafKind::scalar: return "scalar";
    case LeafKind::str: return "str";
    case LeafKind::repr: return "repr";
  }
  return "none";
}

std::optional<LeafKind> parse_leaf_kind(std::string_view name) {
  for (auto k : {LeafKind::tensor, LeafKind::none, LeafKind::scalar, LeafKind::str, LeafKind::repr}) {
    if (to_string(k) == name) {
      return k;
    }
  }
  return std::nullopt;
}

}  // namespace kbx
