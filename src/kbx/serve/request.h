// The body of POST /v1/evaluate, read and checked: every problem names the field and the fix.
#pragma once

#include <cstddef>
#include <optional>
#include <variant>
#include <string>

#include "kbx/common/json.h"
#include "kbx/common/result.h"

namespace kbx::serve {

/// What one request may ask for; beyond it the request is refused (400 or 413).
struct RequestLimits {
  std::size_t body_bytes_max = 1U << 20;  ///< the whole JSON body
  std::size_t code_bytes_max = 256U << 10;  ///< "code"
  std::size_t label_bytes_max = 200;      ///< "label"
  std::size_t metadata_bytes_max = 4096;  ///< "metadata", as compact JSON
};

/// A checked evaluate request. `task` is not yet resolved against the suite.
struct EvaluateRequest {
  std::string task;   ///< "Math/softmax.py" (or "Math/softmax": the ".py" is optional)
  std::string code;   ///< the candidate's source, as `kbx eval` would read it from a .py file
  std::optional<bool> perf;  ///< absent: the server's --perf/--no-perf
  /// Seconds allowed for each of the load and test-case stages, 1-3600; absent: the server's
  /// (--timeout). Only ever shortens a stage: the server's deadline stays the upper bound.
  std::optional<int> timeout_s;
  std::string label;  ///< free text kept with the request in the store
  Json metadata = Json::object();  ///< any JSON object kept with the request in the store
};

/// Why a request was refused: the HTTP status (400 or 413) and a message for the client.
struct RequestProblem {
  int status = 400;
  std::string message;
};

/// Reads `body` (JSON: {"task": str, "code": str, "perf"?: bool, "timeout_s"?: int,
/// "label"?: str, "metadata"?: object}). Unknown fields are refused, so a misspelt "perf" cannot
/// pass silently.
/// Either the request or the problem.
std::variant<EvaluateRequest, RequestProblem> parse_evaluate_request(const std::string& body,
                                                                     const RequestLimits& limits);

}  // namespace kbx::serve
