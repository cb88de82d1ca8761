// SQLite statements, transactions and error messages for the store.
#include "kbx/store/sqlite_statement.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kbx/common/check.h"
#include "kbx/common/error.h"
#include "kbx/common/strings.h"

namespace kbx::store::detail {
namespace {

// What the user can do about a failure, by SQLite's primary and extended result codes.
std::string_view hint_for(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "another kbx process is using this store; wait for it to finish or use another --out";
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return "the file is not a kbx store or is damaged; point --out at a fresh folder";
    case SQLITE_FULL:
      return "the disk is full; free space and resume";
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return "check that the folder exists and is writable";
    case SQLITE_IOERR:
      return "a disk error; check the file system and resume";
    default:
      break;
  }
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    return "a record refers to a submission, session or evaluation not saved yet; a kbx bug";
  }
  if ((rc & 0xff) == SQLITE_CONSTRAINT) {
    return "a record breaks a schema rule (a repeated index?); a kbx bug";
  }
  return "a kbx bug or a damaged store; please report it with this message";
}

// The start of a statement, enough to tell which one failed: "INSERT INTO cases".
std::string sql_head(const char* sql) {
  std::string head(sql);
  std::replace(head.begin(), head.end(), '\n', ' ');
  head = std::string(trim(head));
  if (auto paren = head.find(" ("); paren != std::string::npos) {
    head.resize(paren);
  }
  constexpr std::size_t max_chars = 48;
  if (head.size() > max_chars) {
    head = head.substr(0, max_chars) + "...";
  }
  return head;
}

}  // namespace

void throw_sqlite(Connection conn, int rc, std::string_view what) {
  const char* message = conn.db != nullptr ? sqlite3_errmsg(conn.db) : sqlite3_errstr(rc);
  throw Error(ErrorKind::store, "{}: {}: {} ({})", conn.path->string(), what, message,
              hint_for(rc));
}

void rethrow_with_context(Connection conn, std::string_view context) {
  try {
    throw;
  } catch (const Error& e) {
    std::string_view message = e.what();
    std::string prefix = conn.path->string() + ": ";
    if (e.kind() != ErrorKind::store || !message.starts_with(prefix)) {
      throw;
    }
    message.remove_prefix(prefix.size());
    throw Error(ErrorKind::store, "{}{}: {}", prefix, context, message);
  }
}

void exec_sql(Connection conn, const char* sql) {
  int rc = sqlite3_exec(conn.db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    throw_sqlite(conn, rc, sql_head(sql));
  }
}

std::string dump_json(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Statement::Statement(Connection conn, const char* sql) : conn_(conn) {
  int rc = sqlite3_prepare_v2(conn.db, sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    throw_sqlite(conn, rc, sql_head(sql));
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::check_bind(int rc, int index) {
  if (rc != SQLITE_OK) {
    throw_sqlite(conn_, rc, sql_head(sqlite3_sql(stmt_)) + ": parameter " + std::to_string(index));
  }
}

Statement& Statement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  check_bind(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      index);
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  check_bind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  sqlite3_reset(stmt_);  // keeps sqlite3_errmsg() meaningful for the message below
  throw_sqlite(conn_, rc, sql_head(sqlite3_sql(stmt_)));
}

void Statement::run() {
  while (step()) {
  }
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::changes() const { return sqlite3_changes64(conn_.db); }

std::int64_t Statement::last_insert_rowid() const { return sqlite3_last_insert_rowid(conn_.db); }

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

int Statement::int32(int column) const { return sqlite3_column_int(stmt_, column); }

double Statement::real(int column) const {
  if (is_null(column)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::text(int column) const {
  const auto* data = sqlite3_column_text(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);  // after _text, as SQLite's docs require
  if (data == nullptr) {
    return {};
  }
  return {reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)};
}

Json Statement::json(int column) const {
  std::string text_value = text(column);
  Json value = Json::parse(text_value, nullptr, false);
  if (value.is_discarded()) {
    throw Error(ErrorKind::store, "{}: column '{}' holds '{}', which is not JSON ({})",
                conn_.path->string(), sqlite3_column_name(stmt_, column), text_value,
                "the store was edited by hand or is damaged; point --out at a fresh folder");
  }
  return value;
}

Transaction::Transaction(Connection conn, Mode mode) : conn_(conn) {
  exec_sql(conn_, mode == Mode::write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Transaction::~Transaction() {
  if (!done_ && sqlite3_get_autocommit(conn_.db) == 0) {
    sqlite3_exec(conn_.db, "ROLLBACK", nullptr, nullptr, nullptr);  // nothing to do on failure
  }
}

void Transaction::commit() {
  KBX_CHECK(!done_) << "transaction committed twice";
  exec_sql(conn_, "COMMIT");
  done_ = true;
}

}  // namespace kbx::store::detail
