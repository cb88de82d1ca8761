// parse_evaluate_request(): the evaluate body, checked field by field.
#include "kbx/serve/request.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace kbx::serve {
namespace {

RequestProblem bad(std::string message) { return {400, std::move(message)}; }

const char* type_name(const Json& j) {
  return j.is_null() ? "null" : j.is_boolean() ? "a boolean" : j.is_number() ? "a number"
         : j.is_string() ? "a string" : j.is_array() ? "an array" : "an object";
}

std::optional<RequestProblem> check_known_fields(const Json& j) {
  constexpr std::array<std::string_view, 6> known{"task",  "code",  "perf",
                                                  "timeout_s", "label", "metadata"};
  for (const auto& [key, value] : j.items()) {
    bool ok = false;
    for (auto k : known) {
      ok = ok || key == k;
    }
    if (!ok) {
      return bad(fmt::format("unknown field '{}': an evaluate request takes task, code, and "
                             "optionally perf, timeout_s, label and metadata",
                             key));
    }
  }
  return std::nullopt;
}

std::optional<RequestProblem> read_required(const Json& j, EvaluateRequest& r,
                                            const RequestLimits& limits) {
  for (const char* field : {"task", "code"}) {
    if (!j.contains(field)) {
      return bad(fmt::format("missing field '{}': send {{\"task\": \"Math/softmax.py\", "
                             "\"code\": \"<the kernel's Python source>\"}}",
                             field));
    }
    if (!j[field].is_string()) {
      return bad(fmt::format("field '{}' must be a string (got {})", field, type_name(j[field])));
    }
  }
  r.task = j["task"].get<std::string>();
  r.code = j["code"].get<std::string>();
  if (r.task.empty()) {
    return bad("field 'task' is empty: name a task key such as \"Math/softmax.py\" "
               "(GET /v1/tasks lists them)");
  }
  if (r.code.find_first_not_of(" \t\r\n") == std::string::npos) {
    return bad("field 'code' is empty: send the kernel's Python source");
  }
  if (r.code.size() > limits.code_bytes_max) {
    return RequestProblem{413, fmt::format("field 'code' holds {} bytes, more than this server's "
                                           "limit of {} (kbx serve --max-code-bytes)",
                                           r.code.size(), limits.code_bytes_max)};
  }
  return std::nullopt;
}

std::optional<RequestProblem> read_optional(const Json& j, EvaluateRequest& r,
                                            const RequestLimits& limits) {
  if (j.contains("perf")) {
    if (!j["perf"].is_boolean()) {
      return bad(fmt::format("field 'perf' must be true or false (got {})", type_name(j["perf"])));
    }
    r.perf = j["perf"].get<bool>();
  }
  if (j.contains("timeout_s")) {
    const Json& t = j["timeout_s"];
    if (!t.is_number_integer() || t.get<std::int64_t>() < 1 || t.get<std::int64_t>() > 3600) {
      return bad(fmt::format("field 'timeout_s' must be a whole number of seconds from 1 to 3600 "
                             "(got {})",
                             t.dump()));
    }
    r.timeout_s = t.get<int>();
  }
  if (j.contains("label")) {
    if (!j["label"].is_string()) {
      return bad(fmt::format("field 'label' must be a string (got {})", type_name(j["label"])));
    }
    r.label = j["label"].get<std::string>();
    if (r.label.size() > limits.label_bytes_max) {
      return bad(fmt::format("field 'label' holds {} bytes; at most {} are kept",
                             r.label.size(), limits.label_bytes_max));
    }
  }
  if (j.contains("metadata")) {
    if (!j["metadata"].is_object()) {
      return bad(fmt::format("field 'metadata' must be a JSON object (got {})",
                             type_name(j["metadata"])));
    }
    r.metadata = j["metadata"];
    if (r.metadata.dump().size() > limits.metadata_bytes_max) {
      return bad(fmt::format("field 'metadata' is {} bytes as JSON; at most {} are kept",
                             r.metadata.dump().size(), limits.metadata_bytes_max));
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<EvaluateRequest, RequestProblem> parse_evaluate_request(const std::string& body,
                                                                     const RequestLimits& limits) {
  if (body.size() > limits.body_bytes_max) {
    return RequestProblem{413, fmt::format("the request body holds {} bytes, more than this "
                                           "server's limit of {}",
                                           body.size(), limits.body_bytes_max)};
  }
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    return bad("the body is not valid JSON: send a JSON object such as {\"task\": "
               "\"Math/softmax.py\", \"code\": \"...\"} with Content-Type: application/json");
  }
  if (!j.is_object()) {
    return bad(fmt::format("the body must be a JSON object with fields task and code (got {})",
                           type_name(j)));
  }
  EvaluateRequest r;
  if (auto p = check_known_fields(j)) {
    return *p;
  }
  if (auto p = read_required(j, r, limits)) {
    return *p;
  }
  if (auto p = read_optional(j, r, limits)) {
    return *p;
  }
  return r;
}

}  // namespace kbx::serve
