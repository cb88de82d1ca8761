// Decoding worker replies (docs/worker-protocol.md) into plain values for the run.
#pragma once

#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/output_leaf.h"
#include "kbx/common/result.h"
#include "kbx/sandbox/protocol.h"
#include "kbx/store/records.h"

namespace kbx::run {

/// One entry of a `cases` reply.
struct CaseResult {
  int index = 0;
  std::string status;  ///< "ok", "error", "not_run"
  double time_ms = 0;
  std::int64_t triton_launches = 0;
  std::vector<OutputLeaf> outputs;
  Json error = Json::object();  ///< the worker's error object when status == "error"
};

/// The `results` of a `cases` reply, with tensors decoded. Errors are protocol errors.
Result<std::vector<CaseResult>> decode_case_results(const sandbox::Frame& reply);

/// The `results` of a `timings` reply as timing records.
Result<std::vector<store::TimingRecord>> decode_timings(const sandbox::Frame& reply);

/// "TypeError: softmax() missing 1 required positional argument: 'dim'" from a worker error.
std::string describe_worker_error(const Json& error);

}  // namespace kbx::run
