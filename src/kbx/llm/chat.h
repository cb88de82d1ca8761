// Chat requests and answers, and their wire formats: OpenAI-compatible chat completions and
// Anthropic's messages API.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kbx/common/json.h"
#include "kbx/common/result.h"
#include "kbx/llm/transport.h"

namespace kbx::llm {

/// Which API an endpoint speaks.
enum class Api { openai, anthropic };

std::string_view to_string(Api api);
/// "openai" or "anthropic"; nullopt for anything else.
std::optional<Api> parse_api(std::string_view name);

/// Where requests go: the base URL ("http://localhost:8000/v1", "https://api.anthropic.com/v1";
/// the client appends /chat/completions or /messages) and the key (empty: no auth header).
struct Endpoint {
  Api api = Api::openai;
  std::string base_url;
  std::string api_key;
};

struct Message {
  std::string role;  ///< "user" or "assistant"
  std::string content;
};

/// One completion request, provider-neutral.
struct ChatRequest {
  std::string model;
  std::string system;  ///< empty: none
  std::vector<Message> messages;
  double temperature = 0.0;
  int max_tokens = 4096;
};

/// A parsed answer.
struct ChatAnswer {
  std::string text;           ///< the assistant's text (all text parts joined)
  std::string finish_reason;  ///< "stop", "length", "end_turn", "max_tokens", ...
  std::int64_t tokens_in = 0;
  std::int64_t tokens_out = 0;
};

/// The request body for `api`, as canonical JSON (keys in a fixed order), so equal requests give
/// equal bytes: the cache key hashes it.
Json request_body(Api api, const ChatRequest& request);

/// The HTTP request for `request` at `endpoint` (URL, auth and version headers, body).
HttpRequest http_request(const Endpoint& endpoint, const ChatRequest& request, int timeout_ms);

/// Parses a 200 answer's body. Errors (kind input) say what was wrong: not JSON, no choices,
/// no text, an error object.
Result<ChatAnswer> parse_answer(Api api, std::string_view body);

}  // namespace kbx::llm
