// Client: one model behind one endpoint, with retries, a concurrency limit, a response cache and
// token and cost accounting.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "kbx/llm/chat.h"
#include "kbx/llm/retry.h"

namespace kbx::llm {

/// Dollars per million tokens; 0 when unknown (cost is then reported as 0).
struct Prices {
  double in_per_mtok = 0;
  double out_per_mtok = 0;
};

double cost_usd(const Prices& prices, std::int64_t tokens_in, std::int64_t tokens_out);

/// An answer as the cache keeps it.
struct CachedAnswer {
  std::string response_body;  ///< the raw 200 body
  ChatAnswer answer;
  double cost_usd = 0;
  int attempts = 1;
  double latency_ms = 0;
};

/// Where answers are kept across runs (the store implements it, gen/ adapts it): a resumed run
/// finds every answer it already paid for. Implementations are thread-safe.
class ResponseCache {
 public:
  virtual ~ResponseCache() = default;
  virtual std::optional<CachedAnswer> get(const std::string& key) = 0;
  virtual void put(const std::string& key, Api api, const ChatRequest& request,
                   const CachedAnswer& answer) = 0;
};

/// The cache key of a request: sha256 of the API, the canonical request body and `sample`
/// (which of several candidates drawn from the same prompt this is), hex.
std::string cache_key(Api api, const ChatRequest& request, int sample);

/// Totals over the client's life (thread-safe snapshot via Client::usage()).
struct Usage {
  std::int64_t requests = 0;  ///< HTTP requests sent (retries included)
  std::int64_t cache_hits = 0;
  std::int64_t answers = 0;    ///< answers obtained, from the network or the cache
  std::int64_t failures = 0;   ///< calls that ran out of attempts or got a final error
  std::int64_t tokens_in = 0;  ///< spent in this process (cache hits cost nothing)
  std::int64_t tokens_out = 0;
  double cost_usd = 0;
};

struct ClientOptions {
  Endpoint endpoint;
  RetryPolicy retry;
  int timeout_ms = 300'000;
  int concurrency = 4;  ///< requests in flight at once
  Prices prices;
  /// Polled before each attempt and wait (may be null): once set, a call ends at once with an
  /// error instead of retrying.
  const std::atomic<bool>* cancel = nullptr;
};

/// One completed call: the answer and where it came from.
struct Completion {
  CachedAnswer answer;
  std::string key;
  bool cached = false;
};

/// Sends chat requests with retries (is_retryable answers and malformed 200 bodies), at most
/// `concurrency` at once, looking in and filling `cache` (may be null). Thread-safe.
class Client {
 public:
  Client(ClientOptions options, Transport& transport, Clock& clock, ResponseCache* cache);

  /// The answer to `request` (sample `sample`, see cache_key). A failure after every attempt is
  /// an Error (kind io for no or a bad HTTP answer, input for a malformed body) naming the last
  /// status and the attempts.
  Result<Completion> complete(const ChatRequest& request, int sample);

  [[nodiscard]] Usage usage() const;

  [[nodiscard]] const ClientOptions& options() const { return options_; }

 private:
  Result<CachedAnswer> send_with_retries(const ChatRequest& request);
  void acquire_slot();
  void release_slot();

  ClientOptions options_;
  Transport& transport_;
  Clock& clock_;
  ResponseCache* cache_;
  mutable std::mutex mutex_;
  std::condition_variable slot_freed_;
  int in_flight_ = 0;
  Usage usage_;
};

}  // namespace kbx::llm
