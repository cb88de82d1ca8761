// CurlTransport: Transport over libcurl (HTTP/1.1 and HTTPS, one easy handle per request).
#pragma once

#include <atomic>

#include "kbx/llm/transport.h"

namespace kbx::llm {

/// Sends each request with a fresh libcurl easy handle (thread-safe: handles are not shared).
/// Construct once per process: the constructor runs curl_global_init.
class CurlTransport : public Transport {
 public:
  /// `cancel` (may be null) is polled during transfers: once set, a request in flight is
  /// abandoned at once (an error answer), so Ctrl-C does not wait for a slow model.
  explicit CurlTransport(const std::atomic<bool>* cancel = nullptr);
  HttpResponse send(const HttpRequest& request) override;
  /// False when this kbx was built without libcurl (send() then always fails).
  static bool available();

 private:
  const std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace kbx::llm
