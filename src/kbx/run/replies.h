// Worker messages for the run (docs/worker-protocol.md): resolved calls out, replies decoded back.
#pragma once

#include <string>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/output_leaf.h"
#include "kbx/common/result.h"
#include "kbx/sandbox/protocol.h"
#include "kbx/store/records.h"
#include "kbx/suite/task.h"

namespace kbx::run {

/// The `workloads` of a `time` request: each call's index, name, seed, args and kwargs.
Json calls_json(const std::vector<suite::ResolvedCall>& calls);

/// The `cases` of a `run_cases` request: calls_json plus the task's mutated_args, and `exact`
/// (true only for the reference worker of an exact_reference task).
Json cases_json(const suite::Task& task, const std::vector<suite::ResolvedCall>& calls, bool exact);

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
