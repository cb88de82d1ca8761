// Scalar leaves as 0-d tensors, so they go through the same checks as tensor leaves.
#pragma once

#include "kbx/common/json.h"
#include "kbx/common/result.h"
#include "kbx/common/tensor_blob.h"

namespace kbx::compare {

/// The 0-d tensor (device "") that a scalar leaf's value stands for:
/// {"dtype": "float64", "value": 0.25} -> float64[] holding 0.25. dtype is one of bool, int64,
/// float64, complex128 (value [re, im]); non-finite floats are the strings "nan", "inf", "-inf".
/// Errors (kind protocol) say what is malformed.
Result<TensorBlob> scalar_to_tensor(const Json& scalar);

}  // namespace kbx::compare
