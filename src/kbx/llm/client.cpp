// Client: cache lookup, a concurrency slot, then attempts with backoff until an answer parses.
#include "kbx/llm/client.h"

#include <fmt/format.h>

#include <chrono>

#include "kbx/common/hash.h"

namespace kbx::llm {

double cost_usd(const Prices& prices, std::int64_t tokens_in, std::int64_t tokens_out) {
  return (static_cast<double>(tokens_in) * prices.in_per_mtok +
          static_cast<double>(tokens_out) * prices.out_per_mtok) /
         1e6;
}

std::string cache_key(Api api, const ChatRequest& request, int sample) {
  return sha256_hex(fmt::format("kbx-llm-cache-v1\n{}\n{}\n{}", to_string(api), sample,
                                request_body(api, request).dump()));
}

Client::Client(ClientOptions options, Transport& transport, Clock& clock, ResponseCache* cache)
    : options_(std::move(options)), transport_(transport), clock_(clock), cache_(cache) {}

Usage Client::usage() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return usage_;
}

void Client::acquire_slot() {
  std::unique_lock<std::mutex> lock(mutex_);
  slot_freed_.wait(lock, [this] { return in_flight_ < std::max(1, options_.concurrency); });
  ++in_flight_;
}

void Client::release_slot() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_flight_;
  }
  slot_freed_.notify_one();
}

Result<Completion> Client::complete(const ChatRequest& request, int sample) {
  Completion c;
  c.key = cache_key(options_.endpoint.api, request, sample);
  if (cache_ != nullptr) {
    if (auto hit = cache_->get(c.key)) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++usage_.cache_hits;
      ++usage_.answers;
      c.answer = std::move(*hit);
      c.cached = true;
      return c;
    }
  }
  acquire_slot();
  auto sent = send_with_retries(request);
  release_slot();
  if (!sent) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++usage_.failures;
    return sent.error();
  }
  c.answer = std::move(sent).value();
  if (cache_ != nullptr) {
    cache_->put(c.key, options_.endpoint.api, request, c.answer);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++usage_.answers;
  usage_.tokens_in += c.answer.answer.tokens_in;
  usage_.tokens_out += c.answer.answer.tokens_out;
  usage_.cost_usd += c.answer.cost_usd;
  return c;
}

Result<CachedAnswer> Client::send_with_retries(const ChatRequest& request) {
  const HttpRequest http = http_request(options_.endpoint, request, options_.timeout_ms);
  std::string last;
  const int attempts = std::max(1, options_.retry.max_attempts);
  auto cancelled = [this] { return options_.cancel != nullptr && options_.cancel->load(); };
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (cancelled()) {
      return Error(ErrorKind::io, "interrupted");
    }
    auto started = std::chrono::steady_clock::now();
    HttpResponse r = transport_.send(http);
    double latency_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++usage_.requests;
    }
    std::optional<std::int64_t> retry_after;
    if (r.status == 200) {
      auto parsed = parse_answer(options_.endpoint.api, r.body);
      if (parsed) {
        CachedAnswer a;
        a.response_body = std::move(r.body);
        a.answer = std::move(parsed).value();
        a.cost_usd = cost_usd(options_.prices, a.answer.tokens_in, a.answer.tokens_out);
        a.attempts = attempt;
        a.latency_ms = latency_ms;
        return a;
      }
      last = parsed.error().what();  // a garbled body: the next try may be whole
    } else if (r.status == 0) {
      last = r.timed_out ? fmt::format("no answer within {} ms", options_.timeout_ms)
                         : fmt::format("no answer: {}", r.error);
    } else {
      last = fmt::format("HTTP {}: {}", r.status, r.body.substr(0, 300));
      if (!is_retryable(r)) {
        return Error(ErrorKind::io, "{} (not retried)", last);
      }
      if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
        retry_after = retry_after_ms(it->second, clock_.now());
      }
    }
    if (attempt < attempts) {
      clock_.sleep_ms(backoff_ms(options_.retry, attempt, retry_after));
    }
  }
  return Error(ErrorKind::io, "{} after {} attempt{}", last, attempts, attempts == 1 ? "" : "s");
}

}  // namespace kbx::llm
