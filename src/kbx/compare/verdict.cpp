// FailReason names, as they appear in reports, the store and e2e expectations.
#include "kbx/compare/verdict.h"

namespace kbx::compare {

std::string_view to_string(FailReason reason) {
  switch (reason) {
    case FailReason::none:
      return "none";
    case FailReason::structure_mismatch:
      return "structure_mismatch";
    case FailReason::shape_mismatch:
      return "shape_mismatch";
    case FailReason::dtype_mismatch:
      return "dtype_mismatch";
    case FailReason::device_mismatch:
      return "device_mismatch";
    case FailReason::requires_grad_mismatch:
      return "requires_grad_mismatch";
    case FailReason::nan_mismatch:
      return "nan_mismatch";
    case FailReason::inf_mismatch:
      return "inf_mismatch";
    case FailReason::value_mismatch:
      return "value_mismatch";
    case FailReason::metric_mismatch:
      return "metric_mismatch";
    case FailReason::canonical_mismatch:
      return "canonical_mismatch";
    case FailReason::expected_error:
      return "expected_error";
  }
  return "none";
}

}  // namespace kbx::compare
