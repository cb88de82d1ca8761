// Stores as an older kbx made them, and SQL run behind the store's back, for the store's tests.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "kbx/store/migrations.h"

namespace kbx::store::old_store {

/// Runs `sql` in the SQLite file at `path` (a failed statement fails the test, with SQLite's
/// message).
inline void exec_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string message = err != nullptr ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

/// A store as kbx made it at schema `version` (its migrations up to it), then `rows` (SQL) run
/// in it.
inline void make_store_at(const std::filesystem::path& path, int version, const std::string& rows) {
  std::string sql;
  for (const Migration& m : migrations()) {
    if (m.version <= version) {
      sql += m.sql;
    }
  }
  sql += "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);";
  sql += "INSERT INTO meta VALUES ('schema_version', '" + std::to_string(version) + "');";
  exec_sql(path, sql + rows);
}

}  // namespace kbx::store::old_store
