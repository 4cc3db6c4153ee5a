// The embedded store: writes (through the group committer), compaction and TTL expiry.
#include "server/storage/sqlite/batch_apply.hpp"
#include "server/storage/sqlite/schema.hpp"
#include "server/storage/sqlite/sqlite_store.hpp"

namespace kw::storage::sqlite {
namespace {

// WAL frames (pages) after which the checkpointer is asked to copy them into the database.
constexpr int k_checkpoint_frames = 1000;
// WAL frames after which the writer checkpoints itself between batches: under a steady write
// load the passive checkpoints never catch up fully, and only a complete one lets the WAL restart.
constexpr int k_wal_frames_limit = 16000;

std::int64_t unix_millis_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<void> check_write(const Backend& backend, const std::string& key, const std::string& value) {
  if (key.empty()) return failure(ErrorCode::invalid, key, 0, "the key must not be empty");
  if (value.size() > backend.max_value_size()) {
    return failure(ErrorCode::too_large, key, 0,
                 "value of " + std::to_string(value.size()) + " bytes for key " + key + " is above the limit of " +
                     std::to_string(backend.max_value_size()) + " bytes; store a smaller object");
  }
  return {};
}

}  // namespace

void SqliteStore::apply_writes(std::span<PendingWrite*> batch) {
  std::lock_guard lock(m_write_mutex);
  AppliedBatch applied = apply_batch(*m_writer, m_revision.load(), batch);
  if (applied.events.empty()) return;
  m_revision.store(applied.revision);
  m_hub->publish(std::move(applied.events));
  const int frames = m_writer->wal_frames();
  if (frames >= k_wal_frames_limit) {
    (void)m_writer->checkpoint_passive();  // busy when the checkpointer is mid-round: it catches up instead
  } else if (frames >= k_checkpoint_frames) {
    m_checkpointer->nudge();
  }
}

Result<WriteResult> SqliteStore::create(const std::string& key, const std::string& value, std::chrono::seconds ttl) {
  if (auto ok = check_write(*this, key, value); !ok) return std::unexpected(ok.error());
  if (ttl.count() < 0) return failure(ErrorCode::invalid, key, 0, "ttl must not be negative");
  const std::int64_t expires_at = ttl.count() > 0 ? unix_millis_now() + ttl.count() * 1000 : 0;
  return m_committer->submit(WriteRequest{WriteKind::create, key, value, expires_at, std::nullopt});
}

Result<WriteResult> SqliteStore::update(const std::string& key, const std::string& value,
                                        Revision expected_mod_revision) {
  if (auto ok = check_write(*this, key, value); !ok) return std::unexpected(ok.error());
  return m_committer->submit(WriteRequest{WriteKind::update, key, value, 0, expected_mod_revision});
}

Result<WriteResult> SqliteStore::remove(const std::string& key, std::optional<Revision> expected_mod_revision) {
  if (key.empty()) return failure(ErrorCode::invalid, key, 0, "the key must not be empty");
  return m_committer->submit(WriteRequest{WriteKind::remove, key, "", 0, expected_mod_revision});
}

Result<void> SqliteStore::compact(Revision revision) {
  std::lock_guard lock(m_write_mutex);
  const Revision current = m_revision.load();
  if (revision <= 0 || revision > current) {
    return failure(ErrorCode::invalid, "", current,
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
  auto due = expired_keys(unix_millis_now());
  if (!due) return std::unexpected(due.error());
  if (due->empty()) return {};
  std::vector<WriteRequest> removals;
  for (auto& [key, revision] : *due) {
    // Guarded by the revision seen expiring: a key written since keeps living.
    removals.push_back(WriteRequest{WriteKind::remove, std::move(key), "", 0, revision});
  }
  for (auto& removed : m_committer->submit_all(std::move(removals))) {
    if (!removed && removed.error().code != ErrorCode::conflict && removed.error().code != ErrorCode::not_found) {
      return std::unexpected(removed.error());
    }
  }
  return {};
}

}  // namespace kw::storage::sqlite
