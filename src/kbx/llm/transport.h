// Transport: the HTTP seam under the LLM clients (curl in production, fakes in unit tests).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kbx::llm {

/// One HTTP POST.
struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  ///< name, value
  std::string body;
  int timeout_ms = 120'000;  ///< the whole exchange, connection included
};

/// What came back. `status` 0 means no HTTP answer at all (`error` says why: a refused
/// connection, a timeout, a reset).
struct HttpResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  ///< names in lower case
  std::string error;                           ///< transport failure; empty when an answer came
  bool timed_out = false;
};

/// Sends one request and waits for its answer. Implementations are thread-safe and never throw
/// for network failures: those are HttpResponse values with status 0.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual HttpResponse send(const HttpRequest& request) = 0;
};

}  // namespace kbx::llm
