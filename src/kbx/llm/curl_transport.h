// CurlTransport: Transport over libcurl (HTTP/1.1 and HTTPS, one easy handle per request).
#pragma once

#include "kbx/llm/transport.h"

namespace kbx::llm {

/// Sends each request with a fresh libcurl easy handle (thread-safe: handles are not shared).
/// Construct once per process: the constructor runs curl_global_init.
class CurlTransport : public Transport {
 public:
  CurlTransport();
  HttpResponse send(const HttpRequest& request) override;
  /// False when this kbx was built without libcurl (send() then always fails).
  static bool available();
};

}  // namespace kbx::llm
