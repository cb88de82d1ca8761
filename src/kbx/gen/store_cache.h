// StoreCache: the LLM response cache kept in the run's store (table llm_responses).
#pragma once

#include "kbx/llm/client.h"
#include "kbx/store/database.h"

namespace kbx::gen {

/// llm::ResponseCache over Database::llm_response / put_llm_response. Thread-safe (the
/// Database is).
class StoreCache : public llm::ResponseCache {
 public:
  explicit StoreCache(store::Database& db) : db_(db) {}

  std::optional<llm::CachedAnswer> get(const std::string& key) override;
  void put(const std::string& key, llm::Api api, const llm::ChatRequest& request,
           const llm::CachedAnswer& answer) override;

 private:
  store::Database& db_;
};

}  // namespace kbx::gen
