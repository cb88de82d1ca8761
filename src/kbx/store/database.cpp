// Database: opening, migrating, and the run-level tables (config, sessions, tasks, submissions).
// Evaluations and timings are in database_evaluations.cpp.
#include "kbx/store/database.h"

#include <sqlite3.h>

#include <charconv>
#include <map>

#include "kbx/common/check.h"
#include "kbx/common/error.h"
#include "kbx/common/version.h"
#include "kbx/store/migrations.h"
#include "kbx/store/sqlite_statement.h"

namespace kbx::store {
namespace {

namespace fs = std::filesystem;
using detail::Connection;
using detail::Statement;
using detail::Transaction;

// Long enough to ride out another process's evaluation write; short enough to report a stuck lock.
constexpr int busy_timeout_ms = 30'000;

void enable_wal(Connection conn) {
  Statement st(conn, "PRAGMA journal_mode = WAL");
  std::string mode = st.step() ? st.text(0) : "";
  if (mode != "wal") {
    throw Error(ErrorKind::store,
                "{}: cannot switch the store to WAL mode (got '{}'); put --out on a local disk",
                conn.path->string(), mode);
  }
}

void configure(Connection conn) {
  sqlite3_extended_result_codes(conn.db, 1);
  sqlite3_busy_timeout(conn.db, busy_timeout_ms);
  enable_wal(conn);
  // In WAL mode NORMAL survives a killed process; only a power cut may drop the last commits.
  detail::exec_sql(conn, "PRAGMA synchronous = NORMAL");
  detail::exec_sql(conn, "PRAGMA foreign_keys = ON");
}

bool has_meta_table(Connection conn) {
  Statement st(conn, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  return st.step() && st.int64(0) > 0;
}

// The schema version recorded in the store; 0 for a new (empty) file.
int read_schema_version(Connection conn) {
  if (!has_meta_table(conn)) {
    return 0;
  }
  Statement st(conn, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!st.step()) {
    return 0;
  }
  std::string text = st.text(0);
  int version = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || end != text.data() + text.size() || version < 0) {
    throw Error(ErrorKind::store, "{}: meta.schema_version is '{}', not a version number ({})",
                conn.path->string(), text, "the store is damaged; point --out at a fresh folder");
  }
  return version;
}

void refuse_newer_schema(Connection conn, int version) {
  if (version > latest_schema_version()) {
    throw Error(ErrorKind::store,
                "{}: the store has schema version {}, but this kbx ({}) understands versions up to "
                "{}; open it with a newer kbx, or point --out at a fresh folder",
                conn.path->string(), version, kbx::version(), latest_schema_version());
  }
}

void apply_migrations(Connection conn, int from_version) {
  detail::exec_sql(
      conn, "CREATE TABLE IF NOT EXISTS meta (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)");
  for (const Migration& m : migrations()) {
    if (m.version > from_version) {
      detail::exec_sql(conn, m.sql);
    }
  }
  Statement st(conn,
               "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
               "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  st.bind_all(std::to_string(latest_schema_version())).run();
}

SessionRecord read_session(const Statement& st) {
  SessionRecord s;
  s.id = st.int64(0);
  s.started_at = st.text(1);
  s.finished_at = st.text(2);
  s.status = st.text(3);
  s.kbx_version = st.text(4);
  s.argv = st.json(5);
  s.env = st.json(6);
  return s;
}

void insert_workloads(Connection conn, const TaskRecord& task) {
  Statement st(conn,
               "INSERT INTO workloads (task_key, workload_index, params_json, bytes, flops, "
               "input_size_json, dtype) VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const WorkloadRecord& w : task.workloads) {
    st.bind_all(task.key, w.index, detail::dump_json(w.params), w.bytes, w.flops,
                detail::dump_json(w.input_size), w.dtype)
        .run();
  }
}

}  // namespace

Database::Database(fs::path path) : path_(std::move(path)) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);  // the destructor does not run when a constructor throws
    db_ = nullptr;
    throw Error(ErrorKind::store,
                "{}: cannot open the store: {} (check that the folder exists and is writable)",
                path_.string(), message);
  }
}

std::unique_ptr<Database> Database::open(const fs::path& path) {
  std::unique_ptr<Database> db(new Database(path));
  configure(Connection{db->db_, &db->path_});
  db->migrate();
  return db;
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(const char* sql) { detail::exec_sql(Connection{db_, &path_}, sql); }

void Database::migrate() {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  int version = read_schema_version(conn);
  refuse_newer_schema(conn, version);
  if (version == latest_schema_version()) {
    return;  // the common case needs no write lock
  }
  Transaction tx(conn);
  version = read_schema_version(conn);  // another process may have migrated meanwhile
  refuse_newer_schema(conn, version);
  if (version < latest_schema_version()) {
    apply_migrations(conn, version);
  }
  tx.commit();
}

std::optional<Json> Database::run_config() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_}, "SELECT value FROM meta WHERE key = 'run_config'");
  if (!st.step()) {
    return std::nullopt;
  }
  return st.json(0);
}

void Database::set_run_config(const Json& config) {
  std::lock_guard lock(mutex_);
  Statement st(
      Connection{db_, &path_},
      "INSERT INTO meta (key, value) VALUES ('run_config', ?) ON CONFLICT (key) DO NOTHING");
  st.bind_all(detail::dump_json(config)).run();
}

std::int64_t Database::begin_session(const SessionRecord& session) {
  std::lock_guard lock(mutex_);
  Statement st(
      Connection{db_, &path_},
      "INSERT INTO sessions (started_at, status, kbx_version, argv_json, env_json) VALUES ("
      "COALESCE(NULLIF(?, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), 'running', ?, ?, ?)");
  std::string version = session.kbx_version.empty() ? kbx::version_string() : session.kbx_version;
  st.bind_all(session.started_at, version, detail::dump_json(session.argv),
              detail::dump_json(session.env))
      .run();
  return sqlite3_last_insert_rowid(db_);
}

void Database::set_session_env(std::int64_t session_id, const Json& env) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_}, "UPDATE sessions SET env_json = ? WHERE session_id = ?");
  st.bind_all(detail::dump_json(env), session_id).run();
  if (st.changes() == 0) {
    throw Error(ErrorKind::store, "{}: no session {} to record the environment of (a kbx bug)",
                path_.string(), session_id);
  }
}

void Database::end_session(std::int64_t session_id, const std::string& status) {
  KBX_CHECK(!status.empty() && status != "running") << "end_session status '" << status << "'";
  std::lock_guard lock(mutex_);
  Statement st(
      Connection{db_, &path_},
      "UPDATE sessions SET status = ?, finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
      "WHERE session_id = ?");
  st.bind_all(status, session_id).run();
  if (st.changes() == 0) {
    throw Error(ErrorKind::store, "{}: no session {} to end (a kbx bug)", path_.string(),
                session_id);
  }
}

int Database::close_lost_sessions() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "UPDATE sessions SET status = 'lost' WHERE status = 'running'");
  st.run();
  return static_cast<int>(st.changes());
}

std::vector<SessionRecord> Database::sessions() {
  std::lock_guard lock(mutex_);
  Statement st(
      Connection{db_, &path_},
      "SELECT session_id, started_at, finished_at, status, kbx_version, argv_json, env_json "
      "FROM sessions ORDER BY session_id");
  std::vector<SessionRecord> out;
  while (st.step()) {
    out.push_back(read_session(st));
  }
  return out;
}

void Database::upsert_task(const TaskRecord& task) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  detail::with_context(conn, "saving task " + task.key, [&] {
    Transaction tx(conn);
    Statement st(conn,
                 "INSERT INTO tasks (task_key, category, entry, task_version, case_count) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (task_key) DO UPDATE SET "
                 "category = excluded.category, entry = excluded.entry, "
                 "task_version = excluded.task_version, case_count = excluded.case_count");
    st.bind_all(task.key, task.category, task.entry, task.version, task.case_count).run();
    Statement(conn, "DELETE FROM workloads WHERE task_key = ?").bind_all(task.key).run();
    insert_workloads(conn, task);
    tx.commit();
  });
}

std::vector<TaskRecord> Database::tasks() {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  std::vector<TaskRecord> out;
  std::map<std::string, std::size_t> by_key;
  Statement st(
      conn,
      "SELECT task_key, category, entry, task_version, case_count FROM tasks ORDER BY task_key");
  while (st.step()) {
    by_key[st.text(0)] = out.size();
    out.push_back({st.text(0), st.text(1), st.text(2), st.text(3), st.int32(4), {}});
  }
  Statement wl(conn,
               "SELECT task_key, workload_index, params_json, bytes, flops, input_size_json, dtype "
               "FROM workloads ORDER BY task_key, workload_index");
  while (wl.step()) {
    out[by_key.at(wl.text(0))].workloads.push_back(
        {wl.int32(1), wl.json(2), wl.real(3), wl.real(4), wl.json(5), wl.text(6)});
  }
  return out;
}

void Database::upsert_submission(const SubmissionRecord& submission) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "INSERT INTO submissions (submission_id, task_key, origin, ordinal, code) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT (submission_id) DO NOTHING");
  st.bind_all(submission.id, submission.task_key, submission.origin, submission.ordinal,
              submission.code)
      .run();
}

std::vector<SubmissionRecord> Database::submissions() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT submission_id, task_key, origin, ordinal, code FROM submissions "
               "ORDER BY ordinal, rowid");
  std::vector<SubmissionRecord> out;
  while (st.step()) {
    out.push_back({st.text(0), st.text(1), st.text(2), st.int32(3), st.text(4)});
  }
  return out;
}

std::optional<SubmissionRecord> Database::submission(const std::string& submission_id) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT submission_id, task_key, origin, ordinal, code FROM submissions "
               "WHERE submission_id = ?");
  st.bind_all(submission_id);
  if (!st.step()) {
    return std::nullopt;
  }
  return SubmissionRecord{st.text(0), st.text(1), st.text(2), st.int32(3), st.text(4)};
}

void Database::add_serve_request(const ServeRequestRecord& r) {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "INSERT INTO serve_requests (session_id, received_at, remote_addr, method, path, "
               "status, task_key, submission_id, served_from, outcome, error, label, "
               "metadata_json, perf, time_total_ms) "
               "VALUES (NULLIF(?, 0), ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?)");
  st.bind_all(r.session_id, r.received_at, r.remote_addr, r.method, r.path,
              static_cast<std::int64_t>(r.status), r.task_key, r.submission_id, r.served_from,
              r.outcome, r.error, r.label, r.metadata.dump(), r.perf, r.time_total_ms)
      .run();
}

std::vector<ServeRequestRecord> Database::serve_requests() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT session_id, received_at, remote_addr, method, path, status, task_key, "
               "submission_id, served_from, outcome, error, label, metadata_json, perf, "
               "time_total_ms FROM serve_requests ORDER BY request_id");
  std::vector<ServeRequestRecord> out;
  while (st.step()) {
    ServeRequestRecord r;
    r.session_id = st.int64(0);
    r.received_at = st.text(1);
    r.remote_addr = st.text(2);
    r.method = st.text(3);
    r.path = st.text(4);
    r.status = st.int32(5);
    r.task_key = st.text(6);
    r.submission_id = st.text(7);
    r.served_from = st.text(8);
    r.outcome = st.text(9);
    r.error = st.text(10);
    r.label = st.text(11);
    r.metadata = Json::parse(st.text(12), nullptr, false);
    r.perf = st.boolean(13);
    r.time_total_ms = st.real(14);
    out.push_back(std::move(r));
  }
  return out;
}

void Database::add_input_error(const InputErrorRecord& error) {
  std::lock_guard lock(mutex_);
  Statement st(
      Connection{db_, &path_},
      "INSERT INTO input_errors (session_id, origin, message) VALUES (NULLIF(?, 0), ?, ?)");
  st.bind_all(error.session_id, error.origin, error.message).run();
}

std::vector<InputErrorRecord> Database::input_errors() {
  std::lock_guard lock(mutex_);
  Statement st(Connection{db_, &path_},
               "SELECT COALESCE(session_id, 0), origin, message FROM input_errors "
               "ORDER BY input_error_id");
  std::vector<InputErrorRecord> out;
  while (st.step()) {
    out.push_back({st.int64(0), st.text(1), st.text(2)});
  }
  return out;
}

}  // namespace kbx::store
