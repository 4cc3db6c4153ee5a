#pragma once
// One MVCC row of the kv table and the reads/writes of single rows (private to this folder).
#include <cstdint>
#include <optional>
#include <string>

#include "server/storage/sqlite/database.hpp"

namespace kw::storage::sqlite {

struct Row {
  Revision rev = 0;
  std::string key;
  std::string value;
  Revision create_rev = 0;
  Revision prev_rev = 0;
  bool deleted = false;
  std::int64_t expires_at = 0;  // unix ms, 0 = none

  KeyValue to_kv() const { return KeyValue{key, value, create_rev, rev}; }
};

// The row at the statement's current result (columns as in schema.hpp).
Row row_from(const Statement& stmt);

// The newest row of key with rev <= at (tombstones included); nullopt when the key never existed.
Result<std::optional<Row>> read_latest_row(Database& db, const std::string& key, Revision at);

// Appends row to the kv table inside the caller's transaction.
Result<void> insert_row(Database& db, const Row& row);

}  // namespace kw::storage::sqlite
