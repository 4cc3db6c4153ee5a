#include "server/storage/sqlite/rows.hpp"

#include "server/storage/sqlite/schema.hpp"

namespace kw::storage::sqlite {

Row row_from(const Statement& stmt) {
  return Row{stmt.int_at(0), stmt.blob_at(1),     stmt.blob_at(2), stmt.int_at(3),
             stmt.int_at(4), stmt.int_at(5) != 0, stmt.int_at(6)};
}

Result<std::optional<Row>> read_latest_row(Database& db, const std::string& key, Revision at) {
  auto stmt = db.prepare(sql::k_latest_at);
  if (!stmt) return std::unexpected(stmt.error());
  stmt->bind_blob(1, key).bind(2, at);
  const int rc = stmt->step();
  if (rc == SQLITE_DONE) return std::optional<Row>();
  if (rc != SQLITE_ROW) return std::unexpected(db.error(rc, "cannot read key " + key));
  return std::optional<Row>(row_from(*stmt));
}

Result<void> insert_row(Database& db, const Row& row) {
  auto insert = db.prepare(sql::k_insert);
  if (!insert) return std::unexpected(insert.error());
  insert->bind(1, row.rev).bind_blob(2, row.key).bind_blob(3, row.value).bind(4, row.create_rev);
  insert->bind(5, row.prev_rev).bind(6, row.deleted ? 1 : 0).bind(7, row.expires_at);
  if (const int rc = insert->step(); rc != SQLITE_DONE)
    return std::unexpected(db.error(rc, "cannot write key " + row.key));
  return {};
}

}  // namespace kw::storage::sqlite
