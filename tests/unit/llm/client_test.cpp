// Client: retries over a scripted fake transport and a fake clock, the cache, and accounting.
#include "kbx/llm/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "support/test_support.h"

namespace kbx::llm {
namespace {

/// Answers with scripted responses in order; records every request.
class ScriptedTransport : public Transport {
 public:
  void push(int status, std::string body, std::map<std::string, std::string> headers = {}) {
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    script_.push_back(std::move(r));
  }

  void push_timeout() {
    HttpResponse r;
    r.timed_out = true;
    r.error = "Timeout was reached";
    script_.push_back(std::move(r));
  }

  HttpResponse send(const HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sent.push_back(request);
    if (script_.empty()) {
      ADD_FAILURE() << "no scripted response left";
      return {};
    }
    auto r = script_.front();
    script_.pop_front();
    return r;
  }

  std::vector<HttpRequest> sent;

 private:
  std::mutex mutex_;
  std::deque<HttpResponse> script_;
};

/// Time stands still until someone sleeps; every sleep is recorded.
class FakeClock : public Clock {
 public:
  std::chrono::system_clock::time_point now() override {
    return std::chrono::system_clock::from_time_t(1'700'000'000) + std::chrono::milliseconds(slept);
  }

  void sleep_ms(std::int64_t ms) override {
    sleeps.push_back(ms);
    slept += ms;
  }

  std::vector<std::int64_t> sleeps;
  std::int64_t slept = 0;
};

class MemoryCache : public ResponseCache {
 public:
  std::optional<CachedAnswer> get(const std::string& key) override {
    auto it = entries.find(key);
    return it == entries.end() ? std::nullopt : std::optional<CachedAnswer>(it->second);
  }

  void put(const std::string& key, Api /*api*/, const ChatRequest& /*request*/,
           const CachedAnswer& answer) override {
    entries[key] = answer;
  }

  std::map<std::string, CachedAnswer> entries;
};

const char* ok_body =
    R"({"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],)"
    R"("usage":{"prompt_tokens":100,"completion_tokens":20}})";

ClientOptions options() {
  ClientOptions o;
  o.endpoint = {Api::openai, "http://127.0.0.1:1/v1", "sk-test"};
  o.retry.max_attempts = 4;
  o.retry.base_ms = 100;
  o.retry.max_wait_ms = 10'000;
  o.prices = {2.0, 10.0};
  return o;
}

ChatRequest request() {
  ChatRequest r;
  r.model = "m";
  r.messages.push_back({"user", "write a kernel"});
  return r;
}

TEST(Client, RetriesA429AfterTheWaitItsRetryAfterAsksFor) {
  ScriptedTransport t;
  FakeClock clock;
  t.push(429, "slow down", {{"retry-after", "7"}});
  t.push(200, ok_body);
  Client c(options(), t, clock, nullptr);
  auto got = c.complete(request(), 0);
  ASSERT_TRUE(got.ok()) << got.error().what();
  EXPECT_EQ(got->answer.answer.text, "hi");
  EXPECT_EQ(got->answer.attempts, 2);
  EXPECT_EQ(clock.sleeps, std::vector<std::int64_t>{7000});
  EXPECT_EQ(t.sent.size(), 2U);
}

TEST(Client, RetriesServerErrorsTimeoutsAndMalformedBodiesWithGrowingWaits) {
  ScriptedTransport t;
  FakeClock clock;
  t.push(500, "oops");
  t.push_timeout();
  t.push(200, "{not json");
  t.push(200, ok_body);
  Client c(options(), t, clock, nullptr);
  auto got = c.complete(request(), 0);
  ASSERT_TRUE(got.ok()) << got.error().what();
  EXPECT_EQ(clock.sleeps, (std::vector<std::int64_t>{100, 200, 400}));
  EXPECT_EQ(c.usage().requests, 4);
}

TEST(Client, GivesUpAfterTheLastAttemptAndSaysWhatWentWrong) {
  ScriptedTransport t;
  FakeClock clock;
  for (int i = 0; i < 4; ++i) {
    t.push(503, "overloaded");
  }
  Client c(options(), t, clock, nullptr);
  auto got = c.complete(request(), 0);
  ASSERT_FALSE(got.ok());
  EXPECT_CONTAINS(got.error().what(), "HTTP 503");
  EXPECT_CONTAINS(got.error().what(), "after 4 attempts");
  EXPECT_EQ(c.usage().failures, 1);
}

TEST(Client, DoesNotRetryAClientError) {
  ScriptedTransport t;
  FakeClock clock;
  t.push(401, R"({"error":"bad key"})");
  Client c(options(), t, clock, nullptr);
  auto got = c.complete(request(), 0);
  ASSERT_FALSE(got.ok());
  EXPECT_CONTAINS(got.error().what(), "HTTP 401");
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(Client, SendsTheKeyAndCountsTokensAndCost) {
  ScriptedTransport t;
  FakeClock clock;
  t.push(200, ok_body);
  Client c(options(), t, clock, nullptr);
  ASSERT_TRUE(c.complete(request(), 0).ok());
  ASSERT_EQ(t.sent.size(), 1U);
  EXPECT_EQ(t.sent[0].url, "http://127.0.0.1:1/v1/chat/completions");
  bool auth = false;
  for (const auto& [k, v] : t.sent[0].headers) {
    auth = auth || (k == "Authorization" && v == "Bearer sk-test");
  }
  EXPECT_TRUE(auth);
  auto u = c.usage();
  EXPECT_EQ(u.tokens_in, 100);
  EXPECT_EQ(u.tokens_out, 20);
  EXPECT_DOUBLE_EQ(u.cost_usd, (100 * 2.0 + 20 * 10.0) / 1e6);
}

TEST(Client, ACachedAnswerCostsNoRequestAndNoTokens) {
  ScriptedTransport t;
  FakeClock clock;
  MemoryCache cache;
  t.push(200, ok_body);
  {
    Client first(options(), t, clock, &cache);
    ASSERT_TRUE(first.complete(request(), 0).ok());
  }
  Client second(options(), t, clock, &cache);
  auto got = second.complete(request(), 0);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->cached);
  EXPECT_EQ(got->answer.answer.text, "hi");
  EXPECT_EQ(t.sent.size(), 1U);
  EXPECT_EQ(second.usage().requests, 0);
  EXPECT_EQ(second.usage().cache_hits, 1);
  EXPECT_EQ(second.usage().tokens_in, 0);
}

TEST(Client, AFailedRequestIsNotCached) {
  ScriptedTransport t;
  FakeClock clock;
  MemoryCache cache;
  t.push(400, "bad");
  Client c(options(), t, clock, &cache);
  EXPECT_FALSE(c.complete(request(), 0).ok());
  EXPECT_TRUE(cache.entries.empty());
}

TEST(Client, AnInterruptEndsTheCallInsteadOfRetrying) {
  ScriptedTransport t;
  t.push(500, "oops");
  std::atomic<bool> stop{false};
  auto o = options();
  o.cancel = &stop;

  // The first attempt fails; the interrupt arrives during the wait.
  struct StoppingClock : FakeClock {
    std::atomic<bool>* stop = nullptr;

    void sleep_ms(std::int64_t ms) override {
      FakeClock::sleep_ms(ms);
      stop->store(true);
    }
  } stopping;

  stopping.stop = &stop;
  Client c2(o, t, stopping, nullptr);
  auto got = c2.complete(request(), 0);
  ASSERT_FALSE(got.ok());
  EXPECT_CONTAINS(got.error().what(), "interrupted");
  EXPECT_EQ(t.sent.size(), 1U);
}

/// Answers after a pause, counting how many requests are inside send() at once.
class SlowTransport : public Transport {
 public:
  HttpResponse send(const HttpRequest& /*request*/) override {
    int now = ++inside_;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    --inside_;
    HttpResponse r;
    r.status = 200;
    r.body = ok_body;
    return r;
  }

  std::atomic<int> inside_{0};
  std::atomic<int> most_{0};
};

TEST(Client, KeepsAtMostConcurrencyRequestsInFlight) {
  SlowTransport t;
  FakeClock clock;
  auto o = options();
  o.concurrency = 2;
  Client c(o, t, clock, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&c, i] { EXPECT_TRUE(c.complete(request(), i).ok()); });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(t.most_.load(), 2);
  EXPECT_EQ(c.usage().answers, 6);
}

}  // namespace
}  // namespace kbx::llm
