// The trusted comparator: reference leaves vs candidate leaves under a Contract. Pure: no I/O, no clock.
#pragma once

#include <vector>

#include "kbx/common/output_leaf.h"
#include "kbx/compare/tolerance.h"
#include "kbx/compare/verdict.h"

namespace kbx::compare {

/// Compares one test case's outputs. Leaves must match one-to-one by path and kind; then per
/// tensor leaf: shape, dtype, device kind ("cuda:0" and "cuda" match), NaN pattern, Inf pattern,
/// then the tolerance (or the metrics). Scalars compare like 0-d tensors of their dtype
/// (int64/bool exactly, float64 and complex128 with float64's tolerance); str and repr leaves
/// compare as exact text; none matches none. A malformed leaf (bytes that do not fit its shape
/// and dtype, an undecodable scalar) is a structure mismatch.
/// Returns the first failure in check order: the highest-priority FailReason over all leaves
/// (FailReason lists them in priority order) and, among leaves failing that way, the first in
/// output order, with that leaf's diagnostics. When ok: path and detail are empty and each
/// figure is its worst over all leaves (err_*: highest; cosine_sim: lowest, l1_relative and
/// rmse: highest, under a metrics contract). Pure and thread-safe; one pass over each tensor.
/// `magnitudes` (tasks with an error bound): leaves of the magnitude reference, matched by path;
/// a float64 tensor of a leaf's shape widens that leaf's bound by k * u(dtype) * m per element.
Verdict compare_outputs(const std::vector<OutputLeaf>& reference,
                        const std::vector<OutputLeaf>& candidate, const Contract& contract,
                        const std::vector<OutputLeaf>* magnitudes = nullptr);

/// Only the first two checks of compare_outputs: leaf structure, then shape, dtype and device
/// (and requires_grad, when asked: Contract::requires_grad). For outputs whose values are judged
/// through a canonical form instead.
Verdict compare_structure(const std::vector<OutputLeaf>& reference,
                          const std::vector<OutputLeaf>& candidate, bool requires_grad = false);

}  // namespace kbx::compare
