// The store's schema as an ordered list of SQL migrations (docs/store-schema.md).
#pragma once

#include <span>

namespace kbx::store {

/// One schema step: `sql` takes a store at version `version - 1` to `version`.
struct Migration {
  int version = 0;
  const char* name = "";
  const char* sql = "";
};

/// Every migration, oldest first; versions are 1, 2, 3, ... with no gaps.
std::span<const Migration> migrations();

/// The schema version this kbx creates and understands (the last migration's).
int latest_schema_version();

}  // namespace kbx::store
