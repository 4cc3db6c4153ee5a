// The embedded store: writes, compaction and TTL expiry.
#include <limits>

#include "server/storage/sqlite/schema.hpp"
#include "server/storage/sqlite/sqlite_store.hpp"

namespace kw::storage::sqlite {
namespace {

constexpr Revision k_latest = std::numeric_limits<Revision>::max();

std::int64_t unix_millis_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unexpected<Error> error(ErrorCode code, const std::string& key, Revision revision, std::string message) {
  return std::unexpected(Error{code, key, revision, std::move(message)});
}

Result<void> check_write(const Backend& backend, const std::string& key, const std::string& value) {
  if (key.empty()) return error(ErrorCode::invalid, key, 0, "the key must not be empty");
  if (value.size() > backend.max_value_size()) {
    return error(ErrorCode::too_large, key, 0,
                 "value of " + std::to_string(value.size()) + " bytes for key " + key + " is above the limit of " +
                     std::to_string(backend.max_value_size()) + " bytes; store a smaller object");
  }
  return {};
}

}  // namespace

Result<WriteResult> SqliteStore::commit_write_locked(Transaction& txn, Row row, std::optional<Row> previous) {
  auto insert = m_writer->prepare(sql::k_insert);
  if (!insert) return std::unexpected(insert.error());
  insert->bind(1, row.rev).bind_blob(2, row.key).bind_blob(3, row.value).bind(4, row.create_rev);
  insert->bind(5, row.prev_rev).bind(6, row.deleted ? 1 : 0).bind(7, row.expires_at);
  if (const int rc = insert->step(); rc != SQLITE_DONE) {
    return std::unexpected(m_writer->error(rc, "cannot write key " + row.key));
  }
  if (auto ok = txn.commit(); !ok) return std::unexpected(ok.error());
  m_revision.store(row.rev);

  WriteResult result{row.rev, std::nullopt};
  if (previous) result.previous = previous->to_kv();
  Event event{row.deleted ? EventType::del : EventType::put, row.to_kv(), result.previous};
  if (row.deleted) event.kv.create_revision = 0;
  m_hub->publish(std::move(event));
  return result;
}

Result<WriteResult> SqliteStore::create(const std::string& key, const std::string& value, std::chrono::seconds ttl) {
  if (auto ok = check_write(*this, key, value); !ok) return std::unexpected(ok.error());
  if (ttl.count() < 0) return error(ErrorCode::invalid, key, 0, "ttl must not be negative");
  std::lock_guard lock(m_write_mutex);
  auto txn = Transaction::begin(*m_writer, true);
  if (!txn) return std::unexpected(txn.error());
  auto latest = latest_row_locked(*m_writer, key, k_latest);
  if (!latest) return std::unexpected(latest.error());
  if (*latest && !(*latest)->deleted) {
    return error(ErrorCode::exists, key, (*latest)->rev, "key " + key + " already exists");
  }
  const Revision rev = m_revision.load() + 1;
  const std::int64_t expires_at = ttl.count() > 0 ? unix_millis_now() + ttl.count() * 1000 : 0;
  return commit_write_locked(*txn, Row{rev, key, value, rev, 0, false, expires_at}, std::nullopt);
}

Result<WriteResult> SqliteStore::update(const std::string& key, const std::string& value,
                                        Revision expected_mod_revision) {
  if (auto ok = check_write(*this, key, value); !ok) return std::unexpected(ok.error());
  std::lock_guard lock(m_write_mutex);
  auto txn = Transaction::begin(*m_writer, true);
  if (!txn) return std::unexpected(txn.error());
  auto latest = latest_row_locked(*m_writer, key, k_latest);
  if (!latest) return std::unexpected(latest.error());
  if (!*latest || (*latest)->deleted) return error(ErrorCode::not_found, key, m_revision.load(), "key " + key + " not found");
  const Row& old = **latest;
  if (old.rev != expected_mod_revision) {
    return error(ErrorCode::conflict, key, old.rev,
                 "key " + key + " was modified at revision " + std::to_string(old.rev) + ", not " +
                     std::to_string(expected_mod_revision) + "; read it again and retry");
  }
  const Revision rev = m_revision.load() + 1;
  // The key keeps its TTL deadline, like an etcd put with ignore_lease.
  return commit_write_locked(*txn, Row{rev, key, value, old.create_rev, old.rev, false, old.expires_at}, old);
}

Result<WriteResult> SqliteStore::remove(const std::string& key, std::optional<Revision> expected_mod_revision) {
  std::lock_guard lock(m_write_mutex);
  return remove_locked(key, expected_mod_revision);
}

Result<WriteResult> SqliteStore::remove_locked(const std::string& key, std::optional<Revision> expected_mod_revision) {
  auto txn = Transaction::begin(*m_writer, true);
  if (!txn) return std::unexpected(txn.error());
  auto latest = latest_row_locked(*m_writer, key, k_latest);
  if (!latest) return std::unexpected(latest.error());
  if (!*latest || (*latest)->deleted) return error(ErrorCode::not_found, key, m_revision.load(), "key " + key + " not found");
  const Row& old = **latest;
  if (expected_mod_revision && old.rev != *expected_mod_revision) {
    return error(ErrorCode::conflict, key, old.rev,
                 "key " + key + " was modified at revision " + std::to_string(old.rev) + ", not " +
                     std::to_string(*expected_mod_revision) + "; read it again and retry");
  }
  const Revision rev = m_revision.load() + 1;
  return commit_write_locked(*txn, Row{rev, key, "", 0, old.rev, true, 0}, old);
}

Result<void> SqliteStore::compact(Revision revision) {
  std::lock_guard lock(m_write_mutex);
  const Revision current = m_revision.load();
  if (revision <= 0 || revision > current) {
    return error(ErrorCode::invalid, "", current,
                 "cannot compact at revision " + std::to_string(revision) + ": it must be between 1 and the current revision " +
                     std::to_string(current));
  }
  auto txn = Transaction::begin(*m_writer, true);
  if (!txn) return std::unexpected(txn.error());
  {
    auto stmt = m_writer->prepare(sql::k_compacted);
    if (!stmt) return std::unexpected(stmt.error());
    if (const int rc = stmt->step(); rc != SQLITE_ROW) return std::unexpected(m_writer->error(rc, "compaction"));
    if (revision <= stmt->int_at(0)) return {};  // already compacted that far
  }
  for (const char* sql_text : {sql::k_compact, sql::k_set_compacted}) {
    auto stmt = m_writer->prepare(sql_text);
    if (!stmt) return std::unexpected(stmt.error());
    stmt->bind(1, revision);
    if (const int rc = stmt->step(); rc != SQLITE_DONE) return std::unexpected(m_writer->error(rc, "compaction"));
  }
  return txn->commit();
}

void SqliteStore::expiry_loop() {
  std::unique_lock lock(m_expiry_mutex);
  while (!m_stopping) {
    m_expiry_wake.wait_for(lock, m_options.expiry_interval, [this] { return m_stopping; });
    if (m_stopping) break;
    lock.unlock();
    (void)expire_due();  // a failure is retried at the next tick
    lock.lock();
  }
}

Result<void> SqliteStore::expire_due() {
  std::lock_guard lock(m_write_mutex);
  std::vector<std::pair<std::string, Revision>> due;
  {
    auto stmt = m_writer->prepare(sql::k_expired);
    if (!stmt) return std::unexpected(stmt.error());
    stmt->bind(1, unix_millis_now());
    int rc;
    while ((rc = stmt->step()) == SQLITE_ROW) due.emplace_back(stmt->blob_at(0), stmt->int_at(1));
    if (rc != SQLITE_DONE) return std::unexpected(m_writer->error(rc, "expiry scan"));
  }
  for (const auto& [key, rev] : due) {
    if (auto removed = remove_locked(key, rev); !removed && removed.error().code != ErrorCode::conflict &&
                                                 removed.error().code != ErrorCode::not_found) {
      return std::unexpected(removed.error());
    }
  }
  return {};
}

}  // namespace kw::storage::sqlite
