// Retry policy: which answers to retry, how long to wait, Retry-After in both of its forms.
#include "kbx/llm/retry.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <string>
#include <thread>

namespace kbx::llm {

std::chrono::system_clock::time_point SystemClock::now() {
  return std::chrono::system_clock::now();
}

void SystemClock::sleep_ms(std::int64_t ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

bool is_retryable(const HttpResponse& response) {
  const int s = response.status;
  return s == 0 || s == 408 || s == 409 || s == 429 || (s >= 500 && s <= 599);
}

std::optional<std::int64_t> retry_after_ms(std::string_view value,
                                           std::chrono::system_clock::time_point now) {
  std::string v(value);
  v.erase(0, v.find_first_not_of(" \t"));
  v.erase(v.find_last_not_of(" \t\r\n") + 1);
  if (v.empty()) {
    return std::nullopt;
  }
  if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    if (v.size() > 9) {
      return std::int64_t{999'999'999} * 1000;  // absurd, capped by the policy's max wait
    }
    return std::stoll(v) * 1000;
  }
  std::tm tm{};
  // IMF-fixdate, the form RFC 9110 requires senders to use.
  const char* end = strptime(v.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') {
    return std::nullopt;
  }
  auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at - now).count();
  return std::max<std::int64_t>(0, ms);
}

std::int64_t backoff_ms(const RetryPolicy& policy, int retry,
                        std::optional<std::int64_t> retry_after) {
  std::int64_t wait = 0;
  if (retry_after) {
    wait = *retry_after;
  } else {
    wait = policy.base_ms;
    for (int i = 1; i < retry && wait < policy.max_wait_ms; ++i) {
      wait *= 2;
    }
  }
  return std::clamp<std::int64_t>(wait, 0, policy.max_wait_ms);
}

}  // namespace kbx::llm
