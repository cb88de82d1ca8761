// Retries with exponential backoff, honouring Retry-After, over an injectable clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "kbx/llm/transport.h"

namespace kbx::llm {

/// Wall time and sleeping, behind a seam so unit tests run retries without waiting.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::system_clock::time_point now() = 0;
  virtual void sleep_ms(std::int64_t ms) = 0;
};

/// The real clock.
class SystemClock : public Clock {
 public:
  std::chrono::system_clock::time_point now() override;
  void sleep_ms(std::int64_t ms) override;
};

struct RetryPolicy {
  int max_attempts = 6;               ///< the first try included
  std::int64_t base_ms = 1000;        ///< the first backoff; doubled on each retry
  std::int64_t max_wait_ms = 60'000;  ///< no single wait is longer (Retry-After included)
};

/// True for answers worth another try: no answer (timeout, reset), 408, 409, 429 and 5xx.
bool is_retryable(const HttpResponse& response);

/// The wait a Retry-After header asks for: delay-seconds ("120") or an HTTP date
/// ("Wed, 21 Oct 2015 07:28:00 GMT", relative to `now`; a past date is 0). nullopt when the value
/// is neither.
std::optional<std::int64_t> retry_after_ms(std::string_view value,
                                           std::chrono::system_clock::time_point now);

/// The wait before retry number `retry` (1 for the first retry): Retry-After when given, else
/// base_ms * 2^(retry-1); at most max_wait_ms either way.
std::int64_t backoff_ms(const RetryPolicy& policy, int retry,
                        std::optional<std::int64_t> retry_after);

}  // namespace kbx::llm
