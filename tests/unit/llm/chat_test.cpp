// Wire formats of both APIs, and the cache key.
#include "kbx/llm/chat.h"

#include <gtest/gtest.h>

#include "kbx/llm/client.h"
#include "support/test_support.h"

namespace kbx::llm {
namespace {

ChatRequest request() {
  ChatRequest r;
  r.model = "m";
  r.system = "be brief";
  r.messages.push_back({"user", "write a kernel"});
  r.temperature = 0.5;
  r.max_tokens = 100;
  return r;
}

TEST(RequestBody, OpenAiPutsTheSystemPromptFirstAmongTheMessages) {
  Json b = request_body(Api::openai, request());
  ASSERT_EQ(b["messages"].size(), 2U);
  EXPECT_EQ(b["messages"][0]["role"], "system");
  EXPECT_EQ(b["messages"][1]["content"], "write a kernel");
  EXPECT_EQ(b["max_tokens"], 100);
  EXPECT_FALSE(b.contains("system"));
}

TEST(RequestBody, AnthropicPutsTheSystemPromptAtTheTop) {
  Json b = request_body(Api::anthropic, request());
  EXPECT_EQ(b["system"], "be brief");
  ASSERT_EQ(b["messages"].size(), 1U);
  auto h = http_request({Api::anthropic, "https://api.example.com/v1/", "k"}, request(), 1000);
  EXPECT_EQ(h.url, "https://api.example.com/v1/messages");
  bool version = false;
  bool key = false;
  for (const auto& [n, v] : h.headers) {
    version = version || n == "anthropic-version";
    key = key || (n == "x-api-key" && v == "k");
  }
  EXPECT_TRUE(version);
  EXPECT_TRUE(key);
}

TEST(ParseAnswer, ReadsOpenAiTextAndUsage) {
  auto a = parse_answer(Api::openai,
                        R"({"choices":[{"message":{"content":"x"},"finish_reason":"length"}],)"
                        R"("usage":{"prompt_tokens":5,"completion_tokens":6}})");
  ASSERT_TRUE(a.ok()) << a.error().what();
  EXPECT_EQ(a->text, "x");
  EXPECT_EQ(a->finish_reason, "length");
  EXPECT_EQ(a->tokens_in, 5);
  EXPECT_EQ(a->tokens_out, 6);
}

TEST(ParseAnswer, JoinsAnthropicTextParts) {
  auto a =
      parse_answer(Api::anthropic, R"({"content":[{"type":"text","text":"a"},{"type":"tool_use"},)"
                                   R"({"type":"text","text":"b"}],"stop_reason":"end_turn",)"
                                   R"("usage":{"input_tokens":7,"output_tokens":8}})");
  ASSERT_TRUE(a.ok()) << a.error().what();
  EXPECT_EQ(a->text, "ab");
  EXPECT_EQ(a->tokens_in, 7);
  EXPECT_EQ(a->tokens_out, 8);
}

TEST(ParseAnswer, NamesWhatIsWrongWithABadBody) {
  EXPECT_CONTAINS(parse_answer(Api::openai, "{oops").error().what(), "not JSON");
  EXPECT_CONTAINS(parse_answer(Api::openai, "[]").error().what(), "not a JSON object");
  EXPECT_CONTAINS(parse_answer(Api::openai, R"({"choices":[]})").error().what(), "choices");
  EXPECT_CONTAINS(parse_answer(Api::openai, R"({"error":{"message":"x"}})").error().what(),
                  "error");
  EXPECT_CONTAINS(parse_answer(Api::anthropic, R"({"id":1})").error().what(), "content");
}

TEST(CacheKey, EqualRequestsShareAKey) {
  EXPECT_EQ(cache_key(Api::openai, request(), 0), cache_key(Api::openai, request(), 0));
  EXPECT_EQ(cache_key(Api::openai, request(), 0).size(), 64U);
}

TEST(CacheKey, IsStableAcrossReleasesSoOldRunsResumeFromTheirCache) {
  // sha256("kbx-llm-cache-v1\nopenai\n0\n" + the canonical body); changing the key's recipe
  // would make every stored answer unreachable and a resume pay again.
  EXPECT_EQ(cache_key(Api::openai, request(), 0),
            "0b97e32e6436969c08ef0437f773a33b1367b94aa2d5097c5fea286394559b00");
}

TEST(CacheKey, AnythingThatChangesTheAnswerChangesTheKey) {
  const auto base = cache_key(Api::openai, request(), 0);
  auto r = request();
  r.temperature = 0.7;
  EXPECT_NE(cache_key(Api::openai, r, 0), base);
  r = request();
  r.model = "other";
  EXPECT_NE(cache_key(Api::openai, r, 0), base);
  r = request();
  r.messages[0].content += " ";
  EXPECT_NE(cache_key(Api::openai, r, 0), base);
  EXPECT_NE(cache_key(Api::openai, request(), 1), base);  // another sample of the same prompt
  EXPECT_NE(cache_key(Api::anthropic, request(), 0), base);
}

}  // namespace
}  // namespace kbx::llm
