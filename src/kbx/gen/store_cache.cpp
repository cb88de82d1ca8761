// StoreCache: answers in and out of the llm_responses table.
#include "kbx/gen/store_cache.h"

namespace kbx::gen {

std::optional<llm::CachedAnswer> StoreCache::get(const std::string& key) {
  auto r = db_.llm_response(key);
  if (!r) {
    return std::nullopt;
  }
  llm::CachedAnswer a;
  a.response_body = r->response_json;
  a.answer.text = r->text;
  a.answer.finish_reason = r->finish_reason;
  a.answer.tokens_in = r->tokens_in;
  a.answer.tokens_out = r->tokens_out;
  a.cost_usd = r->cost_usd;
  a.attempts = r->attempts;
  a.latency_ms = r->latency_ms;
  return a;
}

void StoreCache::put(const std::string& key, llm::Api api, const llm::ChatRequest& request,
                     const llm::CachedAnswer& answer) {
  store::LlmResponseRecord r;
  r.request_key = key;
  r.api = std::string(llm::to_string(api));
  r.model = request.model;
  r.request_json = llm::request_body(api, request).dump();
  r.response_json = answer.response_body;
  r.text = answer.answer.text;
  r.finish_reason = answer.answer.finish_reason;
  r.tokens_in = answer.answer.tokens_in;
  r.tokens_out = answer.answer.tokens_out;
  r.cost_usd = answer.cost_usd;
  r.attempts = answer.attempts;
  r.latency_ms = answer.latency_ms;
  db_.put_llm_response(r);
}

}  // namespace kbx::gen
