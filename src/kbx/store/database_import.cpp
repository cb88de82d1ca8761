// Database::import_rows: copying one store's rows into another (kbx merge), renumbering ids.
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>

#include "kbx/common/error.h"
#include "kbx/store/database.h"
#include "kbx/store/sqlite_statement.h"

namespace kbx::store {
namespace {

using detail::Connection;
using detail::Statement;
using detail::Transaction;

/// How one table is copied: which columns are renumbered (by an offset named in `shift`: 's'
/// sessions, 'c' candidate timings, 'r' reference timings, 'a' adjacent reference timings, 'b'
/// baseline timings), and
/// whether rows already present are kept (tables shared by every source: tasks, submissions).
struct TableRule {
  const char* table;
  std::map<std::string, char> shift;
  bool keep_existing = false;
  bool drop_rowid_key = false;  ///< an INTEGER PRIMARY KEY left for SQLite to assign
};

const std::vector<TableRule>& rules() {
  static const std::vector<TableRule> all{
      {"sessions", {{"session_id", 's'}}},
      {"tasks", {}, true},
      {"workloads", {}, true},
      {"submissions", {}, true},
      {"input_errors", {{"session_id", 's'}}, false, true},
      {"evaluations", {{"session_id", 's'}, {"reference_session_id", 's'}}},
      {"cases", {}},
      {"kernels", {}},
      {"candidate_timings", {{"timing_id", 'c'}}},
      {"candidate_samples", {{"timing_id", 'c'}}},
      {"reference_timings", {{"timing_id", 'r'}, {"session_id", 's'}}},
      {"reference_samples", {{"timing_id", 'r'}}},
      {"submission_reference_timings", {{"timing_id", 'a'}, {"session_id", 's'}}},
      {"submission_reference_samples", {{"timing_id", 'a'}}},
      {"baseline_timings", {{"timing_id", 'b'}, {"session_id", 's'}}},
      {"baseline_samples", {{"timing_id", 'b'}}},
      {"llm_responses", {}, true},  // keyed by the request: the same answer in every source
      {"generations", {}},
      {"serve_requests", {{"session_id", 's'}}, false, true},
  };
  return all;
}

std::vector<std::string> columns_of(Connection conn, const std::string& table) {
  Statement st(conn, fmt::format("PRAGMA main.table_info({})", table).c_str());
  std::vector<std::string> out;
  while (st.step()) {
    out.push_back(st.text(1));
  }
  return out;
}

std::int64_t max_of(Connection conn, const char* table, const char* column) {
  Statement st(conn,
               fmt::format("SELECT COALESCE(MAX({}), 0) FROM main.{}", column, table).c_str());
  return st.step() ? st.int64(0) : 0;
}

std::int64_t count_of(Connection conn, const char* table) {
  Statement st(conn, fmt::format("SELECT count(*) FROM main.{}", table).c_str());
  return st.step() ? st.int64(0) : 0;
}

/// Tables of the attached source that hold rows but are not copied (a newer schema's).
void refuse_unknown_tables(Connection conn, const std::filesystem::path& source) {
  Statement st(conn,
               "SELECT name FROM src.sqlite_master WHERE type = 'table' AND name NOT IN "
               "('meta', 'sqlite_sequence')");
  std::vector<std::string> names;
  while (st.step()) {
    names.push_back(st.text(0));
  }
  for (const auto& name : names) {
    const auto& known = Database::imported_tables();
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      continue;
    }
    Statement count(conn, fmt::format("SELECT count(*) FROM src.\"{}\"", name).c_str());
    if (count.step() && count.int64(0) > 0) {
      throw Error(ErrorKind::store,
                  "{}: table '{}' holds rows that kbx merge does not know how to copy (a kbx "
                  "bug: add it to the rules in src/kbx/store/database_import.cpp)",
                  source.string(), name);
    }
  }
}

std::string select_list(const TableRule& rule, const std::vector<std::string>& columns,
                        const std::map<char, std::int64_t>& offsets) {
  std::string out;
  for (const auto& c : columns) {
    std::string expr = "\"" + c + "\"";
    if (auto it = rule.shift.find(c); it != rule.shift.end()) {
      expr = fmt::format("\"{}\" + {}", c, offsets.at(it->second));
    } else if (std::string(rule.table) == "sessions" && c == "env_json") {
      expr = "json_set(env_json, '$.merge_source', json(?1))";
    }
    out += (out.empty() ? "" : ", ") + expr;
  }
  return out;
}

void copy_table(Connection conn, const TableRule& rule, const std::map<char, std::int64_t>& offsets,
                const std::string& note) {
  auto columns = columns_of(conn, rule.table);
  if (rule.drop_rowid_key) {
    columns.erase(columns.begin());  // input_error_id: SQLite assigns a fresh one
  }
  std::string names;
  for (const auto& c : columns) {
    names += (names.empty() ? "\"" : ", \"") + c + "\"";
  }
  std::string sql = fmt::format("INSERT {}INTO main.{} ({}) SELECT {} FROM src.{}",
                                rule.keep_existing ? "OR IGNORE " : "", rule.table, names,
                                select_list(rule, columns, offsets), rule.table);
  Statement st(conn, sql.c_str());
  if (std::string(rule.table) == "sessions") {
    st.bind(1, note);
  }
  st.run();
}

}  // namespace

const std::vector<std::string>& Database::imported_tables() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : rules()) {
      out.emplace_back(r.table);
    }
    return out;
  }();
  return names;
}

int Database::import_rows(const std::filesystem::path& source, const Json& source_note) {
  std::lock_guard lock(mutex_);
  Connection conn{db_, &path_};
  Statement(conn, "ATTACH DATABASE ? AS src").bind_all(source.string()).run();
  try {
    refuse_unknown_tables(conn, source);
    std::int64_t before = count_of(conn, "evaluations");
    detail::with_context(conn, "copying the rows of " + source.string(), [&] {
      Transaction tx(conn);
      std::map<char, std::int64_t> offsets{
          {'s', max_of(conn, "sessions", "session_id")},
          {'c', max_of(conn, "candidate_timings", "timing_id")},
          {'r', max_of(conn, "reference_timings", "timing_id")},
          {'a', max_of(conn, "submission_reference_timings", "timing_id")},
          {'b', max_of(conn, "baseline_timings", "timing_id")}};
      for (const auto& rule : rules()) {
        copy_table(conn, rule, offsets, detail::dump_json(source_note));
      }
      tx.commit();
    });
    std::int64_t after = count_of(conn, "evaluations");
    detail::exec_sql(conn, "DETACH DATABASE src");
    return static_cast<int>(after - before);
  } catch (...) {
    sqlite3_exec(db_, "DETACH DATABASE src", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace kbx::store
