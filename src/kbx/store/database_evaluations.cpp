// Database: evaluations with their cases and raw timing samples, and the reference's timings.
#include <fmt/format.h>

#include <map>

#include "kbx/store/database.h"
#include "kbx/store/sqlite_statement.h"

namespace kbx::store {
namespace {

using detail::Connection;
using detail::Statement;
using detail::Transaction;

constexpr const char* evaluation_columns =
    "submission_id, session_id, device, outcome, reason, detail, call_ok, exe_ok, triton_ok, "
    "perf_ok, perf_note, triton_launches, time_queue_ms, time_load_ms, time_cases_ms, "
    "time_compare_ms, time_perf_ms, time_total_ms, log_tail, reference_session_id, task_version, "
    "rules, triton_share";

void insert_evaluation_row(Connection conn, const EvaluationRecord& e) {
  std::string sql = fmt::format(
      "INSERT INTO evaluations ({}) VALUES "
      "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0), ?, ?, ?)",
      evaluation_columns);
  Statement st(conn, sql.c_str());
  st.bind_all(e.submission_id, e.session_id, e.device, e.outcome, e.reason, e.detail, e.call_ok,
              e.exe_ok, e.triton_ok, e.perf_ok, e.perf_note, e.triton_launches, e.time_queue_ms,
              e.time_load_ms, e.time_cases_ms, e.time_compare_ms, e.time_perf_ms, e.time_total_ms,
              e.log_tail, e.reference_session_id, e.task_version, e.rules, e.triton_share)
      .run();
}

void insert_kernels(Connection conn, const EvaluationRecord& e) {
  Statement st(conn,
               "INSERT INTO kernels (submission_id, stage, name, origin, launches, gpu_ms) "
               "VALUES (?, ?, ?, ?, ?, ?)");
  for (const KernelUse& k : e.kernels) {
    st.bind_all(e.submission_id, k.stage, k.name, k.origin, k.launches, k.gpu_ms).run();
  }
}

void insert_cases(Connection conn, const EvaluationRecord& e) {
  Statement st(
      conn,
      "INSERT INTO cases (submission_id, case_index, name, status, reason, detail, "
      "output_path, err_abs_max, err_rel_max, mismatch_count, first_mismatch_index, time_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const CaseRecord& c : e.cases) {
    st.bind_all(e.submission_id, c.index, c.name, c.status, c.reason, c.detail, c.path,
                c.err_abs_max, c.err_rel_max, c.mismatch_count, c.first_mismatch_index, c.time_ms)
        .run();
  }
}

// Inserts timings and their samples, one row per sample. `key` fills the leading parameters of
// the timing statement (the submission id, or the session id and task key); the sample statement
// takes (timing_id, sample_index, time_ms).
template <typename... Key>
void insert_timings(Connection conn, const char* timing_sql, const char* sample_sql,
                    const std::vector<TimingRecord>& timings, const Key&... key) {
  Statement timing(conn, timing_sql);
  Statement sample(conn, sample_sql);
  for (const TimingRecord& t : timings) {
    timing
        .bind_all(key..., t.workload, t.status, t.error, t.warmup_calls,
                  std::string(t.timed_by_bracket ? "brackets" : "events"), t.method_note,
                  t.events_median_ms, t.brackets_min_ms, t.kernel_busy_ms, t.host_ms,
                  detail::dump_json(Json(t.graph_samples_ms)), t.graph_error)
        .run();
    std::int64_t timing_id = timing.last_insert_rowid();
    for (std::size_t i = 0; i < t.samples_ms.size(); ++i) {
      sample.bind_all(timing_id, static_cast<std::int64_t>(i), t.samples_ms[i]).run();
    }
  }
}

EvaluationRecord read_evaluation(const Statement& st) {
  EvaluationRecord e;
  e.submission_id = st.text(0);
  e.session_id = st.int64(1);
  e.device = st.text(2);
  e.outcome = st.text(3);
  e.reason = st.text(4);
  e.detail = st.text(5);
  e.call_ok = st.boolean(6);
  e.exe_ok = st.boolean(7);
  e.triton_ok = st.boolean(8);
  e.perf_ok = st.boolean(9);
  e.perf_note = st.text(10);
  e.triton_launches = st.int64(11);
  e.time_queue_ms = st.real(12);
  e.time_load_ms = st.real(13);
  e.time_cases_ms = st.real(14);
  e.time_compare_ms = st.real(15);
  e.time_perf_ms = st.real(16);
  e.time_total_ms = st.real(17);
  e.log_tail = st.text(18);
  e.reference_session_id = st.int64(19);
  e.task_version = st.text(20);
  e.rules = st.text(21);
  if (!st.is_null(22)) {
    e.triton_share = st.real(22);
  }
  return e;
}

// Columns from `first`: name, status, reason, detail, output_path, err_abs_max, err_rel_max,
// mismatch_count, first_mismatch_index, time_ms; the case index is at first - 1.
CaseRecord read_case(const Statement& st, int first) {
  CaseRecord c;
  c.index = st.int32(first - 1);
  c.name = st.text(first);
  c.status = st.text(first + 1);
  c.reason = st.text(first + 2);
  c.detail = st.text(first + 3);
  c.path = st.text(first + 4);
  c.err_abs_max = st.real(first + 5);
  c.err_rel_max = st.real(first + 6);
  c.mismatch_count = st.int64(first + 7);
  c.first_mismatch_index = st.int64(first + 8);
  c.time_ms = st.real(first + 9);
  return c;
}

// The columns insert_timings writes after the key, in its statements' order (the same in every
// timings table).
constexpr const char* timing_insert_columns =
    "workload_index, status, error, warmup_calls, method, method_note, events_median_ms, "
    "brackets_min_ms, kernel_busy_ms, host_ms, graph_samples_json, graph_error";
constexpr const char* timing_insert_values = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";

// "INSERT INTO <table> (<key columns>, <timing_insert_columns>) VALUES (...)".
std::string timing_insert_sql(const char* table, const char* key_columns,
                              const char* key_values) {
  return fmt::format("INSERT INTO {} ({}, {}) VALUES ({}, {})", table, key_columns,
                     timing_insert_columns, key_values, timing_insert_values);
}

// The columns append_timing_row reads, for a timings table `t` joined with its samples `s`.
constexpr const char* timing_row_columns =
    "t.workload_index, t.status, t.error, t.warmup_calls, t.method, t.method_note, "
    "t.events_median_ms, t.brackets_min_ms, t.kernel_busy_ms, t.host_ms, t.graph_samples_json, "
    "t.graph_error, s.sample_index, s.time_ms";

// The numbers of a graph_samples_json column (a list; anything else in it is skipped).
std::vector<double> graph_samples_of(const Statement& st, int column) {
  std::vector<double> out;
  Json list = st.json(column);
  for (const Json& v : list.is_array() ? list : Json::array()) {
    if (v.is_number()) {
      out.push_back(v.get<double>());
    }
  }
  return out;
}

// One row of a timings-LEFT-JOIN-samples query, columns from `first`: workload_index, status,
// error, warmup_calls, method, method_note, events_median_ms, brackets_min_ms, kernel_busy_ms,
// host_ms, graph_samples_json, graph_error, sample_index (NULL when the workload has no samples),
// time_ms. Rows must come ordered by workload, then sample.
void append_timing_row(const Statement& st, int first, std::vector<TimingRecord>& out) {
  int workload = st.int32(first);
  if (out.empty() || out.back().workload != workload) {
    TimingRecord t;
    t.workload = workload;
    t.status = st.text(first + 1);
    t.error = st.text(first + 2);
    t.warmup_calls = st.int32(first + 3);
    t.timed_by_bracket = st.text(first + 4) == "brackets";
    t.method_note = st.text(first + 5);
    auto optional_real = [&](int column) -> std::optional<double> {
      return st.is_null(column) ? std::nullopt : std::optional<double>(st.real(column));
    };
    t.events_median_ms = optional_real(first + 6);
    t.brackets_min_ms = optional_real(first + 7);
    t.kernel_busy_ms = optional_real(first + 8);
    t.host_ms = optional_real(first + 9);
    t.graph_samples_ms = graph_samples_of(st, first + 10);
    t.graph_error = st.text(first + 11);
    out.push_back(std::move(t));
  }
  if (!st.is_null(first + 12)) {
    out.back().samples_ms.push_back(st.real(first + 13));
  }
}

// With `only`, the rows of that one submission.
void read_cases(Connection conn, const std::map<std::string, EvaluationRecord*>& by_id,
                const std::string* only = nullptr) {
  std::string sql = fmt::format(
      "SELECT submission_id, case_index, name, status, reason, detail, output_path, "
      "err_abs_max, err_rel_max, mismatch_count, first_mismatch_index, time_ms "
      "FROM cases {}ORDER BY submission_id, case_index",
      only != nullptr ? "WHERE submission_id = ? " : "");
  Statement st(conn, sql.c_str());
  if (only != nullptr) {
    st.bind_all(*only);
  }
  while (st.step()) {
    by_id.at(st.text(0))->cases.push_back(read_case(st, 2));
  }
}

void read_candidate_timings(Connection conn,
                            const std::map<std::string, EvaluationRecord*>& by_id,
                            const std::string* only = nullptr) {
  std::string sql = fmt::format(
      "SELECT t.submission_id, {} FROM candidate_timings t "
      "LEFT JOIN candidate_samples s ON s.timing_id = t.timing_id {}"
      "ORDER BY t.submission_id, t.workload_index, s.sample_index",
      timing_row_columns, only != nullptr ? "WHERE t.submission_id = ? " : "");
  Statement st(conn, sql.c_str());
  if (only != nullptr) {
    st.bind_all(*only);
  }
  while (st.step()) {
    append_timing_row(st, 1, by_id.at(st.text(0))->timings);
  }
}

}  // namespace

std::set<std::string> Database::evaluated_submission_ids() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_}, "SELECT submission_id FROM evaluations");
  std::set<std::string> ids;
  while (st.step()) {
    ids.insert(st.text(0));
  }
  return ids;
}

std::map<std::string, std::string> Database::evaluated_task_versions() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_}, "SELECT submission_id, task_version FROM evaluations");
  std::map<std::string, std::string> out;
  while (st.step()) {
    out[st.text(0)] = st.text(1);
  }
  return out;
}

void Database::save_evaluation(const EvaluationRecord& evaluation) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::string context = "saving the evaluation of submission " + evaluation.submission_id;
  detail::with_context(conn, context, [&] {
    Transaction tx(conn);
    // Cascades to the cases, timings and samples of the earlier evaluation.
    Statement(conn, "DELETE FROM evaluations WHERE submission_id = ?")
        .bind_all(evaluation.submission_id)
        .run();
    insert_evaluation_row(conn, evaluation);
    insert_cases(conn, evaluation);
    insert_kernels(conn, evaluation);
    insert_timings(conn,
                   timing_insert_sql("candidate_timings", "submission_id", "?").c_str(),
                   "INSERT INTO candidate_samples (timing_id, sample_index, time_ms) "
                   "VALUES (?, ?, ?)",
                   evaluation.timings, evaluation.submission_id);
    tx.commit();
  });
}

std::vector<EvaluationRecord> Database::evaluations() {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::string sql = fmt::format(
      "SELECT {} FROM evaluations JOIN submissions USING (submission_id) "
      "ORDER BY submissions.ordinal, submissions.rowid",
      evaluation_columns);
  Transaction snapshot(conn, Transaction::Mode::read);  // the three reads see one state
  std::vector<EvaluationRecord> out;
  Statement st(conn, sql.c_str());
  while (st.step()) {
    out.push_back(read_evaluation(st));
  }
  std::map<std::string, EvaluationRecord*> by_id;
  for (EvaluationRecord& e : out) {
    by_id[e.submission_id] = &e;
  }
  read_cases(conn, by_id);
  read_candidate_timings(conn, by_id);
  return out;
}

std::optional<EvaluationRecord> Database::evaluation(const std::string& submission_id) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::string sql =
      fmt::format("SELECT {} FROM evaluations WHERE submission_id = ?", evaluation_columns);
  Transaction snapshot(conn, Transaction::Mode::read);
  Statement st(conn, sql.c_str());
  st.bind_all(submission_id);
  if (!st.step()) {
    return std::nullopt;
  }
  EvaluationRecord e = read_evaluation(st);
  std::map<std::string, EvaluationRecord*> by_id{{submission_id, &e}};
  read_cases(conn, by_id, &submission_id);
  read_candidate_timings(conn, by_id, &submission_id);
  return e;
}

void Database::save_reference_timings(std::int64_t session_id, const std::string& task_key,
                                      const std::vector<TimingRecord>& timings,
                                      const std::string& device,
                                      const std::string& submission_id) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::string context =
      fmt::format("saving the reference timings of {} (session {})", task_key, session_id);
  detail::with_context(conn, context, [&] {
    Transaction tx(conn);
    if (submission_id.empty()) {
      Statement(conn,
                "DELETE FROM reference_timings WHERE session_id = ? AND task_key = ? AND device = ?")
          .bind_all(session_id, task_key, device)
          .run();
      insert_timings(conn,
                     timing_insert_sql("reference_timings", "session_id, task_key, device",
                                       "?, ?, ?")
                         .c_str(),
                     "INSERT INTO reference_samples (timing_id, sample_index, time_ms) "
                     "VALUES (?, ?, ?)",
                     timings, session_id, task_key, device);
    } else {
      Statement(conn,
                "DELETE FROM submission_reference_timings WHERE submission_id = ? AND "
                "session_id = ? AND device = ?")
          .bind_all(submission_id, session_id, device)
          .run();
      insert_timings(conn,
                     timing_insert_sql("submission_reference_timings",
                                       "submission_id, session_id, task_key, device", "?, ?, ?, ?")
                         .c_str(),
                     "INSERT INTO submission_reference_samples (timing_id, sample_index, time_ms) "
                     "VALUES (?, ?, ?)",
                     timings, submission_id, session_id, task_key, device);
    }
    tx.commit();
  });
}

std::optional<std::vector<TimingRecord>> Database::reference_timings(std::int64_t session_id,
                                                                     const std::string& task_key,
                                                                     const std::string& device,
                                                                     const std::string& submission_id) {
  std::lock_guard lock(mutex_);
  const bool own = !submission_id.empty();
  const std::string sql =
               fmt::format("SELECT {2} FROM {0}timings t "
                           "LEFT JOIN {0}samples s ON s.timing_id = t.timing_id "
                           "WHERE t.session_id = ? AND t.task_key = ? AND t.device = ?{1} "
                           "ORDER BY t.workload_index, s.sample_index",
                           own ? "submission_reference_" : "reference_",
                           own ? " AND t.submission_id = ?" : "", timing_row_columns);
  Statement st(Connection{db_, &path_}, sql.c_str());
  if (own) {
    st.bind_all(session_id, task_key, device, submission_id);
  } else {
    st.bind_all(session_id, task_key, device);
  }
  std::vector<TimingRecord> out;
  while (st.step()) {
    append_timing_row(st, 0, out);
  }
  if (out.empty()) {
    return std::nullopt;
  }
  return out;
}

void Database::save_baseline_timings(std::int64_t session_id, const std::string& task_key,
                                     const std::string& baseline,
                                     const std::vector<TimingRecord>& timings,
                                     const std::string& device) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::string context = fmt::format("saving the {} baseline's timings of {} (session {})",
                                    baseline, task_key, session_id);
  detail::with_context(conn, context, [&] {
    Transaction tx(conn);
    Statement(conn,
              "DELETE FROM baseline_timings WHERE session_id = ? AND task_key = ? AND device = ? "
              "AND baseline = ?")
        .bind_all(session_id, task_key, device, baseline)
        .run();
    insert_timings(conn,
                   timing_insert_sql("baseline_timings", "session_id, task_key, device, baseline",
                                     "?, ?, ?, ?")
                       .c_str(),
                   "INSERT INTO baseline_samples (timing_id, sample_index, time_ms) "
                   "VALUES (?, ?, ?)",
                   timings, session_id, task_key, device, baseline);
    tx.commit();
  });
}

std::optional<std::vector<TimingRecord>> Database::baseline_timings(std::int64_t session_id,
                                                                    const std::string& task_key,
                                                                    const std::string& baseline,
                                                                    const std::string& device) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               fmt::format("SELECT {} FROM baseline_timings t "
                           "LEFT JOIN baseline_samples s ON s.timing_id = t.timing_id "
                           "WHERE t.session_id = ? AND t.task_key = ? AND t.device = ? AND "
                           "t.baseline = ? ORDER BY t.workload_index, s.sample_index",
                           timing_row_columns)
                   .c_str());
  st.bind_all(session_id, task_key, device, baseline);
  std::vector<TimingRecord> out;
  while (st.step()) {
    append_timing_row(st, 0, out);
  }
  if (out.empty()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace kbx::store
