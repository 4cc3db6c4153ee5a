// The embedded store: lifecycle, reads and watch.
#include "server/storage/sqlite/sqlite_store.hpp"

#include "server/storage/sqlite/rows.hpp"
#include "server/storage/sqlite/schema.hpp"

namespace kw::storage::sqlite {
namespace {

std::unexpected<Error> compacted_error(Revision requested, Revision compacted) {
  return std::unexpected(Error{ErrorCode::compacted, "", compacted,
                               "revision " + std::to_string(requested) + " has been compacted (oldest available: " +
                                   std::to_string(compacted) + "); read or watch from a newer revision"});
}

}  // namespace

class SqliteStore::ReaderLease {
 public:
  ReaderLease(SqliteStore* store, std::unique_ptr<Database> db) : m_store(store), m_db(std::move(db)) {}
  ReaderLease(ReaderLease&&) = default;
  ReaderLease(const ReaderLease&) = delete;
  ReaderLease& operator=(const ReaderLease&) = delete;
  ReaderLease& operator=(ReaderLease&&) = delete;
  ~ReaderLease() {
    if (!m_db) return;
    std::lock_guard lock(m_store->m_readers_mutex);
    m_store->m_readers.push_back(std::move(m_db));
  }
  Database& db() { return *m_db; }

 private:
  SqliteStore* m_store;
  std::unique_ptr<Database> m_db;
};

SqliteStore::SqliteStore(SqliteOptions options, DirLock lock, std::unique_ptr<Database> writer, Revision revision)
    : m_options(std::move(options)), m_lock(std::move(lock)), m_writer(std::move(writer)), m_revision(revision) {
  m_hub = std::make_unique<WatchHub>(
      [this](const std::string& prefix, Revision after, Revision upto) { return replay(prefix, after, upto); },
      revision, m_options.progress_interval);
  m_writer->count_wal_frames();
  m_checkpointer = std::make_unique<Checkpointer>(m_options.data_dir + "/kw.db", m_options.busy_timeout,
                                                  std::chrono::milliseconds(1000));
  m_committer = std::make_unique<GroupCommitter>([this](std::span<PendingWrite*> batch) { apply_writes(batch); });
  m_expiry_thread = std::thread([this] { expiry_loop(); });
}

SqliteStore::~SqliteStore() {
  {
    std::lock_guard lock(m_expiry_mutex);
    m_stopping = true;
    m_expiry_wake.notify_one();
  }
  m_expiry_thread.join();
  m_committer.reset();  // applies what is still queued, then stops
  m_checkpointer.reset();
  m_hub.reset();  // joins the dispatcher before the connections go away
}

Result<SqliteStore::ReaderLease> SqliteStore::lease_reader() {
  {
    std::lock_guard lock(m_readers_mutex);
    if (!m_readers.empty()) {
      auto db = std::move(m_readers.back());
      m_readers.pop_back();
      return ReaderLease(this, std::move(db));
    }
  }
  auto db = Database::open(m_options.data_dir + "/kw.db", m_options.busy_timeout);
  if (!db) return std::unexpected(db.error());
  return ReaderLease(this, std::move(*db));
}

Result<Revision> SqliteStore::begin_read_locked(Database& db, Revision revision) {
  const Revision current = m_revision.load();
  if (revision < 0 || revision > current) {
    return std::unexpected(Error{ErrorCode::invalid, "", current,
                                 "revision " + std::to_string(revision) + " is in the future (current revision is " +
                                     std::to_string(current) + ")"});
  }
  auto stmt = db.prepare(sql::k_compacted);
  if (!stmt) return std::unexpected(stmt.error());
  if (stmt->step() != SQLITE_ROW) return std::unexpected(db.error(SQLITE_ERROR, "cannot read the compacted revision"));
  const Revision compacted = stmt->int_at(0);
  const Revision at = revision == 0 ? current : revision;
  if (at < compacted) return compacted_error(at, compacted);
  return at;
}

Result<KeyValue> SqliteStore::get(const std::string& key, Revision revision) {
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  Database& db = reader->db();
  auto txn = Transaction::begin(db, false);
  if (!txn) return std::unexpected(txn.error());
  auto at = begin_read_locked(db, revision);
  if (!at) return std::unexpected(at.error());
  auto row = read_latest_row(db, key, *at);
  if (!row) return std::unexpected(row.error());
  if (!*row || (*row)->deleted) {
    return std::unexpected(Error{ErrorCode::not_found, key, *at, "key " + key + " not found"});
  }
  return (*row)->to_kv();
}

Result<ListResult> SqliteStore::list(const std::string& prefix, const ListOptions& options) {
  if (options.limit < 0) {
    return std::unexpected(Error{ErrorCode::invalid, "", 0, "list limit must not be negative"});
  }
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  Database& db = reader->db();
  auto txn = Transaction::begin(db, false);
  if (!txn) return std::unexpected(txn.error());
  auto at = begin_read_locked(db, options.revision);
  if (!at) return std::unexpected(at.error());

  const std::string start = options.continue_key > prefix ? options.continue_key : prefix;
  const auto end = prefix_end(prefix);
  auto stmt = db.prepare(end ? sql::k_list_bounded : sql::k_list_open);
  if (!stmt) return std::unexpected(stmt.error());
  stmt->bind_blob(1, start).bind(3, *at).bind(4, options.limit > 0 ? options.limit + 1 : -1);
  if (end) stmt->bind_blob(2, *end);

  ListResult result;
  result.revision = *at;
  int rc;
  while ((rc = stmt->step()) == SQLITE_ROW) result.items.push_back(row_from(*stmt).to_kv());
  if (rc != SQLITE_DONE) return std::unexpected(db.error(rc, "cannot list prefix " + prefix));
  if (options.limit > 0 && static_cast<std::int64_t>(result.items.size()) > options.limit) {
    result.items.pop_back();
    result.more = true;
    if (!options.count_remaining) return result;
    auto count = db.prepare(end ? sql::k_count_bounded : sql::k_count_open);
    if (!count) return std::unexpected(count.error());
    count->bind_blob(1, start).bind(3, *at);
    if (end) count->bind_blob(2, *end);
    if ((rc = count->step()) != SQLITE_ROW) return std::unexpected(db.error(rc, "cannot count prefix " + prefix));
    result.remaining = count->int_at(0) - options.limit;
  }
  return result;
}

Result<std::vector<Event>> SqliteStore::replay(const std::string& prefix, Revision after, Revision upto) {
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  Database& db = reader->db();
  auto txn = Transaction::begin(db, false);
  if (!txn) return std::unexpected(txn.error());
  auto compacted = db.prepare(sql::k_compacted);
  if (!compacted) return std::unexpected(compacted.error());
  if (compacted->step() != SQLITE_ROW) return std::unexpected(db.error(SQLITE_ERROR, "cannot read compaction"));
  if (after + 1 < compacted->int_at(0)) return compacted_error(after + 1, compacted->int_at(0));
  std::vector<Event> events;
  if (after >= upto) return events;

  const auto end = prefix_end(prefix);
  auto stmt = db.prepare(end ? sql::k_history_bounded : sql::k_history_open);
  if (!stmt) return std::unexpected(stmt.error());
  stmt->bind(1, after).bind(2, upto).bind_blob(3, prefix);
  if (end) stmt->bind_blob(4, *end);
  std::vector<Row> rows;
  int rc;
  while ((rc = stmt->step()) == SQLITE_ROW) rows.push_back(row_from(*stmt));
  if (rc != SQLITE_DONE) return std::unexpected(db.error(rc, "cannot read history of " + prefix));

  for (const Row& row : rows) {
    Event event{row.deleted ? EventType::del : EventType::put, row.to_kv()};
    if (row.deleted) {
      event.kv.value.clear();
      event.kv.create_revision = 0;
    }
    events.push_back(std::move(event));
  }
  return events;
}

Result<std::vector<std::pair<std::string, Revision>>> SqliteStore::expired_keys(std::int64_t now_ms) {
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  auto stmt = reader->db().prepare(sql::k_expired);
  if (!stmt) return std::unexpected(stmt.error());
  stmt->bind(1, now_ms);
  std::vector<std::pair<std::string, Revision>> due;
  int rc;
  while ((rc = stmt->step()) == SQLITE_ROW) due.emplace_back(stmt->blob_at(0), stmt->int_at(1));
  if (rc != SQLITE_DONE) return std::unexpected(reader->db().error(rc, "expiry scan"));
  return due;
}

Result<std::unique_ptr<WatchHandle>> SqliteStore::watch(const std::string& prefix, Revision after_revision,
                                                        WatchCallbacks callbacks) {
  if (after_revision < 0) {
    return std::unexpected(Error{ErrorCode::invalid, "", 0, "watch revision must not be negative"});
  }
  return m_hub->add(prefix, after_revision, std::move(callbacks));
}

Result<Revision> SqliteStore::current_revision() { return m_revision.load(); }

Result<Revision> SqliteStore::compacted_revision() {
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  auto stmt = reader->db().prepare(sql::k_compacted);
  if (!stmt) return std::unexpected(stmt.error());
  if (const int rc = stmt->step(); rc != SQLITE_ROW) {
    return std::unexpected(reader->db().error(rc, "cannot read the compacted revision"));
  }
  return stmt->int_at(0);
}

Result<void> SqliteStore::health() {
  auto reader = lease_reader();
  if (!reader) return std::unexpected(reader.error());
  auto stmt = reader->db().prepare(sql::k_compacted);
  if (!stmt) return std::unexpected(stmt.error());
  if (const int rc = stmt->step(); rc != SQLITE_ROW) return std::unexpected(reader->db().error(rc, "health check"));
  return {};
}

}  // namespace kw::storage::sqlite
