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
/// compare as exact text; none matches none.
/// Returns the first failure, or ok with the worst leaf's error figures.
Verdict compare_outputs(const std::vector<OutputLeaf>& reference,
                        const std::vector<OutputLeaf>& candidate, const Contract& contract);

}  // namespace kbx::compare
