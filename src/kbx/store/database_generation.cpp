// Database: the tables of `kbx generate` (schema versions 6 and 9): cached LLM answers, generated
// candidates.
#include <mutex>

#include "kbx/store/database.h"
#include "kbx/store/sqlite_statement.h"

namespace kbx::store {

using detail::Connection;
using detail::Statement;

std::optional<LlmResponseRecord> Database::llm_response(const std::string& request_key) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT request_key, api, model, request_json, response_json, text, finish_reason, "
               "tokens_in, tokens_out, COALESCE(cost_usd, 0), attempts, COALESCE(latency_ms, 0), "
               "created_at FROM llm_responses WHERE request_key = ?");
  st.bind_all(request_key);
  if (!st.step()) {
    return std::nullopt;
  }
  return LlmResponseRecord{st.text(0),   st.text(1),  st.text(2),  st.text(3),  st.text(4),
                           st.text(5),   st.text(6),  st.int64(7), st.int64(8), st.real(9),
                           st.int32(10), st.real(11), st.text(12)};
}

void Database::put_llm_response(const LlmResponseRecord& r) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "INSERT INTO llm_responses (request_key, api, model, request_json, response_json, "
               "text, finish_reason, tokens_in, tokens_out, cost_usd, attempts, latency_ms, "
               "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
               "COALESCE(NULLIF(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))) "
               "ON CONFLICT (request_key) DO NOTHING");
  st.bind_all(r.request_key, r.api, r.model, r.request_json, r.response_json, r.text,
              r.finish_reason, r.tokens_in, r.tokens_out, r.cost_usd, r.attempts, r.latency_ms,
              r.created_at)
      .run();
}

LlmResponseRecord Database::llm_response_totals() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT count(*), COALESCE(sum(tokens_in), 0), COALESCE(sum(tokens_out), 0), "
               "COALESCE(sum(cost_usd), 0) FROM llm_responses");
  LlmResponseRecord totals;
  if (st.step()) {
    totals.attempts = st.int32(0);  // the number of answers
    totals.tokens_in = st.int64(1);
    totals.tokens_out = st.int64(2);
    totals.cost_usd = st.real(3);
  }
  return totals;
}

void Database::upsert_generation(const GenerationRecord& g) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "INSERT OR REPLACE INTO generations (run_key, task_key, round, candidate, method, "
               "model, status, detail, submission_id, parent_submission_id, request_key, "
               "prompt_version, temperature, created_at) VALUES (COALESCE(NULLIF(?, ''), "
               "json_object('method', ?, 'model', ?)), ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, "
               "?, COALESCE(NULLIF(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))");
  st.bind_all(g.run_key, g.method, g.model, g.task_key, g.round, g.candidate, g.method, g.model,
              g.status, g.detail, g.submission_id, g.parent_submission_id, g.request_key,
              g.prompt_version, g.temperature, g.created_at)
      .run();
}

std::vector<GenerationRecord> Database::generations() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT task_key, round, candidate, method, model, status, detail, "
               "COALESCE(submission_id, ''), COALESCE(parent_submission_id, ''), "
               "COALESCE(request_key, ''), prompt_version, COALESCE(temperature, 0), created_at, "
               "run_key FROM generations ORDER BY run_key, task_key, round, candidate");
  std::vector<GenerationRecord> out;
  while (st.step()) {
    out.push_back({st.text(0), st.int32(1), st.int32(2), st.text(3), st.text(4), st.text(5),
                   st.text(6), st.text(7), st.text(8), st.text(9), st.text(10), st.real(11),
                   st.text(12), st.text(13)});
  }
  return out;
}

}  // namespace kbx::store
