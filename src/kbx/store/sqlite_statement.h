// Thin RAII over the SQLite C API for the store's own use: statements, transactions, errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "kbx/common/error.h"
#include "kbx/common/json.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kbx::store::detail {

/// An open connection and the file it belongs to (for error messages). Not owning.
struct Connection {
  sqlite3* db = nullptr;
  const std::filesystem::path* path = nullptr;
};

/// Throws Error(store) for SQLite result `rc`: "<file>: <what>: <sqlite's message> (<what to do>)".
[[noreturn]] void throw_sqlite(Connection conn, int rc, std::string_view what);

/// Runs `write` and, if it throws an Error(store) from this connection, rethrows it with `context`
/// after the file name: "<file>: saving the evaluation of submission 1f3a: INSERT INTO cases: ...".
template <typename Fn>
void with_context(Connection conn, std::string_view context, Fn&& write);

/// Runs SQL that returns no rows we need (pragmas, DDL, BEGIN/COMMIT); throws on failure.
void exec_sql(Connection conn, const char* sql);

/// JSON as stored in TEXT columns (compact; invalid UTF-8 replaced rather than thrown on).
std::string dump_json(const Json& value);

/// A prepared statement. Binds are 1-based like SQLite's, columns 0-based. Not thread-safe: use
/// it under the Database mutex. Example:
/// `Statement st(conn, "SELECT code FROM submissions WHERE submission_id = ?"); st.bind_all(id);`
class Statement {
 public:
  Statement(Connection conn, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, std::int64_t value);

  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }

  Statement& bind(int index, bool value) { return bind(index, static_cast<std::int64_t>(value)); }

  /// NaN is stored as NULL (SQLite's rule); real() reads NULL back as NaN.
  Statement& bind(int index, double value);
  /// Text with its exact length, so embedded NULs survive.
  Statement& bind(int index, std::string_view value);

  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }

  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }

  Statement& bind(int index, std::nullptr_t);
  /// NULL when empty.
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }

  /// Binds every argument in order, starting at parameter 1.
  template <typename... Args>
  Statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  /// Advances; true when a row is ready, false when the statement is done. Throws on failure.
  bool step();
  /// Steps to completion (for INSERT, UPDATE, DELETE), then resets for reuse with new bindings.
  void run();
  /// Rows changed by the last run() on this connection.
  [[nodiscard]] std::int64_t changes() const;
  /// The rowid of the last row inserted on this connection.
  [[nodiscard]] std::int64_t last_insert_rowid() const;

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;
  [[nodiscard]] int int32(int column) const;

  [[nodiscard]] bool boolean(int column) const { return int64(column) != 0; }

  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;
  /// The column parsed as JSON; throws Error(store) naming the file if it is not JSON.
  [[nodiscard]] Json json(int column) const;

 private:
  void check_bind(int rc, int index);

  Connection conn_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// A write transaction: BEGIN IMMEDIATE on construction (takes the write lock up front, so the
/// busy timeout applies), ROLLBACK on destruction unless commit() ran, so a throw in between leaves
/// nothing written. A read transaction (BEGIN DEFERRED) gives several reads one snapshot; it needs
/// no commit.
class Transaction {
 public:
  enum class Mode { read, write };

  explicit Transaction(Connection conn, Mode mode = Mode::write);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Connection conn_;
  bool done_ = false;
};

[[noreturn]] void rethrow_with_context(Connection conn, std::string_view context);

template <typename Fn>
void with_context(Connection conn, std::string_view context, Fn&& write) {
  try {
    write();
  } catch (const Error&) {
    rethrow_with_context(conn, context);
  }
}

}  // namespace kbx::store::detail
