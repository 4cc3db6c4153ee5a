#include "server/storage/sqlite/database.hpp"

namespace kw::storage::sqlite {

Statement::~Statement() {
  if (m_stmt != nullptr) {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

Statement& Statement::bind_blob(int index, std::string_view value) {
  // A non-null pointer keeps an empty value a zero-length blob rather than NULL.
  sqlite3_bind_blob64(m_stmt, index, value.empty() ? "" : value.data(), value.size(), SQLITE_TRANSIENT);
  return *this;
}

int Statement::step() { return sqlite3_step(m_stmt); }

std::int64_t Statement::int_at(int column) const { return sqlite3_column_int64(m_stmt, column); }

std::string Statement::blob_at(int column) const {
  const void* data = sqlite3_column_blob(m_stmt, column);
  const int size = sqlite3_column_bytes(m_stmt, column);
  if (data == nullptr || size <= 0) return {};
  return std::string(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

Result<std::unique_ptr<Database>> Database::open(const std::string& path, std::chrono::milliseconds busy_timeout) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<Database> db(new Database(raw));
  if (rc != SQLITE_OK) {
    return std::unexpected(db->error(rc, "cannot open " + path));
  }
  sqlite3_busy_timeout(raw, static_cast<int>(busy_timeout.count()));
  sqlite3_extended_result_codes(raw, 1);
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=OFF"}) {
    if (auto ok = db->exec(pragma); !ok) return std::unexpected(ok.error());
  }
  return db;
}

Database::~Database() {
  for (auto& [sql, stmt] : m_statements) sqlite3_finalize(stmt);
  sqlite3_close_v2(m_db);
}

void Database::count_wal_frames() {
  sqlite3_wal_hook(
      m_db,
      [](void* self, sqlite3*, const char*, int frames) {
        static_cast<Database*>(self)->m_wal_frames = frames;
        return SQLITE_OK;
      },
      this);
}

Result<int> Database::checkpoint_passive() {
  int log_frames = 0;
  int copied = 0;
  const int rc = sqlite3_wal_checkpoint_v2(m_db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log_frames, &copied);
  if (rc != SQLITE_OK) return std::unexpected(error(rc, "checkpoint"));
  return log_frames > copied ? log_frames - copied : 0;
}

Result<void> Database::exec(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &message);
  sqlite3_free(message);
  if (rc != SQLITE_OK) return std::unexpected(error(rc, sql));
  return {};
}

Result<Statement> Database::prepare(const char* sql) {
  if (auto it = m_statements.find(sql); it != m_statements.end()) return Statement(it->second);
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return std::unexpected(error(rc, "prepare failed"));
  m_statements.emplace(sql, stmt);
  return Statement(stmt);
}

Error Database::error(int code, std::string_view what) const {
  const int primary = code & 0xff;
  ErrorCode kind = ErrorCode::unavailable;
  std::string advice = "; check the disk and the data dir";
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
    kind = ErrorCode::corrupt;
    advice = "; the database file is damaged, restore it from a backup";
  } else if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
    kind = ErrorCode::timeout;
    advice = "; the database stayed busy, retry";
  } else if (primary == SQLITE_TOOBIG) {
    kind = ErrorCode::too_large;
    advice = "";
  }
  const char* detail = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
  return Error{kind, "", 0, "sqlite: " + std::string(what) + ": " + detail + advice};
}

Result<Transaction> Transaction::begin(Database& db, bool immediate) {
  if (auto ok = db.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN"); !ok) return std::unexpected(ok.error());
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (m_db != nullptr) (void)m_db->exec("ROLLBACK");
}

Result<void> Transaction::commit() {
  Database* db = m_db;
  auto ok = db->exec("COMMIT");
  if (ok) m_db = nullptr;
  return ok;
}

}  // namespace kw::storage::sqlite
