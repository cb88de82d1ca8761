// The HTTP front of kbx serve (cpp-httplib): routes, bearer-token check, JSON answers.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "kbx/serve/service.h"

namespace kbx::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8765;          ///< 0: any free port (on_listening tells which)
  std::string token;        ///< empty: no token (loopback only; the CLI enforces it)
  int threads = 64;         ///< connections handled at once (each waits for its verdict)
};

/// False when this kbx was built without cpp-httplib (then serve_http throws Error(usage)).
bool http_available();

/// Serves `service` until `stop` is set: POST /v1/evaluate, GET /v1/tasks, GET /v1/tasks/{key},
/// GET /v1/health. With a token, every request lacking `Authorization: Bearer <token>` gets 401.
/// Calls `on_listening(port)` once bound. Throws Error(usage) when the address cannot be bound.
void serve_http(EvaluationService& service, const HttpOptions& options,
                const std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

}  // namespace kbx::serve
