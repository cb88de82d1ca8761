// Verdict: the comparator's judgement of one test case, with diagnostics. A plain value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kbx::compare {

/// Why a case failed, checked in this order (cheap and decisive first). The order is also the
/// priority between leaves: a NaN mismatch in out[1] is reported before a value mismatch in
/// out[0].
enum class FailReason {
  none,
  structure_mismatch,  ///< different leaves (paths) or leaf kinds (tensor vs None, ...)
  shape_mismatch,
  dtype_mismatch,
  device_mismatch,     ///< e.g. a CPU tensor where the reference is on CUDA
  requires_grad_mismatch,  ///< requires_grad differs (only under Contract::requires_grad)
  nan_mismatch,        ///< NaN where the reference has none, or the reverse
  inf_mismatch,        ///< ±Inf pattern differs
  value_mismatch,      ///< elementwise tolerance exceeded (or exact values differ)
  metric_mismatch,     ///< a cosine / L1 / RMSE threshold missed
  canonical_mismatch,  ///< the task's canonical function rejected the output (malformed result)
  expected_error,      ///< the case must raise, and the call returned or raised another type
};

std::string_view to_string(FailReason reason);

struct Verdict {
  bool ok = true;
  FailReason reason = FailReason::none;
  std::string path;    ///< the first failing leaf ("out[1]"); empty when ok
  std::string detail;  ///< one line: what differed, where, by how much; empty when ok
  // Diagnostics of the failing leaf (when ok: each figure's worst over all leaves):
  double err_abs_max = 0;           ///< max |cand - ref| over parts finite on both sides
  double err_rel_max = 0;           ///< max |cand - ref| / |ref| over those, skipping ref == 0
  std::int64_t mismatch_count = 0;  ///< elements failing for any reason (NaN, Inf, value)
  /// Flat index of the first element failing for `reason`; -1 when none.
  std::int64_t first_mismatch_index = -1;
  std::int64_t nan_mismatch_count = 0;  ///< elements whose NaN pattern differs
  std::int64_t inf_mismatch_count = 0;  ///< other elements whose ±Inf pattern differs
  double cosine_sim = 0;   ///< metric contracts only
  double l1_relative = 0;  ///< metric contracts only
  double rmse = 0;         ///< metric contracts only
};

}  // namespace kbx::compare
