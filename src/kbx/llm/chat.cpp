// Chat requests and answers in the OpenAI-compatible and Anthropic wire formats.
#include "kbx/llm/chat.h"

#include <fmt/format.h>

namespace kbx::llm {
namespace {

std::string trim_slash(std::string url) {
  while (!url.empty() && url.back() == '/') {
    url.pop_back();
  }
  return url;
}

Error bad_answer(std::string_view what) {
  return Error(ErrorKind::input, "malformed answer: {}", what);
}

std::int64_t usage_count(const Json& usage, const char* key) {
  if (!usage.is_object() || !usage.contains(key)) {
    return 0;
  }
  return json_integer<std::int64_t>(usage[key]).value_or(0);
}

Result<ChatAnswer> parse_openai(const Json& j) {
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) {
    return bad_answer("no 'choices'");
  }
  const Json& choice = j["choices"][0];
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    return bad_answer("choices[0] has no 'message'");
  }
  const Json& content = choice["message"].value("content", Json());
  ChatAnswer a;
  if (content.is_string()) {
    a.text = content.get<std::string>();
  } else if (!content.is_null()) {
    return bad_answer("choices[0].message.content is not text");
  }
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
    a.finish_reason = choice["finish_reason"].get<std::string>();
  }
  const Json usage = j.value("usage", Json());
  a.tokens_in = usage_count(usage, "prompt_tokens");
  a.tokens_out = usage_count(usage, "completion_tokens");
  return a;
}

Result<ChatAnswer> parse_anthropic(const Json& j) {
  if (!j.contains("content") || !j["content"].is_array()) {
    return bad_answer("no 'content' array");
  }
  ChatAnswer a;
  for (const auto& part : j["content"]) {
    if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
        part["text"].is_string()) {
      a.text += part["text"].get<std::string>();
    }
  }
  if (j.contains("stop_reason") && j["stop_reason"].is_string()) {
    a.finish_reason = j["stop_reason"].get<std::string>();
  }
  const Json usage = j.value("usage", Json());
  a.tokens_in = usage_count(usage, "input_tokens");
  a.tokens_out = usage_count(usage, "output_tokens");
  return a;
}

}  // namespace

std::string_view to_string(Api api) { return api == Api::openai ? "openai" : "anthropic"; }

std::optional<Api> parse_api(std::string_view name) {
  if (name == "openai") {
    return Api::openai;
  }
  if (name == "anthropic") {
    return Api::anthropic;
  }
  return std::nullopt;
}

Json request_body(Api api, const ChatRequest& request) {
  Json messages = Json::array();
  if (api == Api::openai && !request.system.empty()) {
    messages.push_back(Json{{"role", "system"}, {"content", request.system}});
  }
  for (const auto& m : request.messages) {
    messages.push_back(Json{{"role", m.role}, {"content", m.content}});
  }
  Json body{{"model", request.model}};
  if (api == Api::anthropic && !request.system.empty()) {
    body["system"] = request.system;
  }
  body["messages"] = messages;
  body["max_tokens"] = request.max_tokens;
  body["temperature"] = request.temperature;
  return body;
}

HttpRequest http_request(const Endpoint& endpoint, const ChatRequest& request, int timeout_ms) {
  HttpRequest r;
  r.timeout_ms = timeout_ms;
  r.body = request_body(endpoint.api, request).dump();
  r.headers.emplace_back("Content-Type", "application/json");
  if (endpoint.api == Api::openai) {
    r.url = trim_slash(endpoint.base_url) + "/chat/completions";
    if (!endpoint.api_key.empty()) {
      r.headers.emplace_back("Authorization", "Bearer " + endpoint.api_key);
    }
  } else {
    r.url = trim_slash(endpoint.base_url) + "/messages";
    r.headers.emplace_back("anthropic-version", "2023-06-01");
    if (!endpoint.api_key.empty()) {
      r.headers.emplace_back("x-api-key", endpoint.api_key);
    }
  }
  return r;
}

Result<ChatAnswer> parse_answer(Api api, std::string_view body) {
  auto parsed = parse_untrusted_json(body);
  if (!parsed) {
    return bad_answer(fmt::format("not JSON ({})", parsed.error().what()));
  }
  const Json& j = parsed.value();
  if (!j.is_object()) {
    return bad_answer("not a JSON object");
  }
  if (j.contains("error") && !j["error"].is_null()) {
    return bad_answer(
        fmt::format("the server answered with an error: {}", j["error"].dump().substr(0, 300)));
  }
  return api == Api::openai ? parse_openai(j) : parse_anthropic(j);
}

}  // namespace kbx::llm
