#pragma once
// The embedded backend's implementation class (private to this folder).
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/storage/sqlite/checkpointer.hpp"
#include "server/storage/sqlite/database.hpp"
#include "server/storage/sqlite/dir_lock.hpp"
#include "server/storage/sqlite/group_commit.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "server/storage/sqlite/watch_hub.hpp"

namespace kw::storage::sqlite {

class SqliteStore final : public Backend {
 public:
  SqliteStore(SqliteOptions options, DirLock lock, std::unique_ptr<Database> writer, Revision revision);
  ~SqliteStore() override;

  Result<KeyValue> get(const std::string& key, Revision revision) override;
  Result<ListResult> list(const std::string& prefix, const ListOptions& options) override;
  Result<WriteResult> create(const std::string& key, const std::string& value, std::chrono::seconds ttl) override;
  Result<WriteResult> update(const std::string& key, const std::string& value, Revision expected_mod_revision) override;
  Result<WriteResult> remove(const std::string& key, std::optional<Revision> expected_mod_revision) override;
  Result<std::unique_ptr<WatchHandle>> watch(const std::string& prefix, Revision after_revision,
                                             WatchCallbacks callbacks) override;
  Result<Revision> current_revision() override;
  Result<void> compact(Revision revision) override;
  Result<Revision> compacted_revision() override;
  Result<void> health() override;

 private:
  // A read connection from the pool, returned when the lease ends.
  class ReaderLease;
  Result<ReaderLease> lease_reader();
  // Opens a read transaction and checks revision against the current and compacted ones.
  Result<Revision> begin_read_locked(Database& db, Revision revision);
  Result<std::vector<Event>> replay(const std::string& prefix, Revision after, Revision upto);

  // Applies one group-commit batch (committer thread): one transaction, then the revision
  // moves and the events are published, all under m_write_mutex.
  void apply_writes(std::span<PendingWrite*> batch);
  // Live keys whose TTL deadline is at or before now_ms, with the revision that set it.
  Result<std::vector<std::pair<std::string, Revision>>> expired_keys(std::int64_t now_ms);
  void expiry_loop();
  Result<void> expire_due();

  SqliteOptions m_options;
  DirLock m_lock;
  // Lock order: m_write_mutex, then m_readers_mutex, then the watch hub's queue lock or the
  // checkpointer's. Writes reach m_writer only through m_committer's thread (whose queue lock
  // is never held while a batch is applied); compaction shares the connection.
  std::mutex m_write_mutex;  // guards m_writer and the order of revisions
  std::unique_ptr<Database> m_writer;
  std::atomic<Revision> m_revision;  // last committed revision; written under m_write_mutex
  std::mutex m_readers_mutex;        // guards m_readers (idle read connections)
  std::vector<std::unique_ptr<Database>> m_readers;
  std::unique_ptr<WatchHub> m_hub;
  std::unique_ptr<Checkpointer> m_checkpointer;
  std::unique_ptr<GroupCommitter> m_committer;  // stopped before the hub and the connections

  std::mutex m_expiry_mutex;  // guards m_stopping
  std::condition_variable m_expiry_wake;
  bool m_stopping = false;
  std::thread m_expiry_thread;
};

}  // namespace kw::storage::sqlite
