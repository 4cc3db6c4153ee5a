#pragma once
// Thin RAII wrappers over one sqlite3 connection and its cached prepared statements.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/storage/backend.hpp"

namespace kw::storage::sqlite {

// A prepared statement borrowed from a Database; reset and unbound when it goes out of scope.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : m_stmt(stmt) {}
  Statement(Statement&& other) noexcept : m_stmt(other.m_stmt) { other.m_stmt = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind_blob(int index, std::string_view value);
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step();
  std::int64_t int_at(int column) const;
  std::string blob_at(int column) const;

 private:
  sqlite3_stmt* m_stmt;
};

class Database {
 public:
  // Opens (creating if needed) the file at path in WAL mode with synchronous=FULL.
  static Result<std::unique_ptr<Database>> open(const std::string& path, std::chrono::milliseconds busy_timeout);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  Result<void> exec(const char* sql);
  // The statement for sql, prepared once per connection (sql must be a string literal).
  Result<Statement> prepare(const char* sql);
  // Turns SQLite's own checkpoint-on-commit off and starts counting the frames in the WAL
  // after each commit of this connection (wal_frames()). For the single writer connection,
  // whose checkpoints run elsewhere.
  void count_wal_frames();
  // Frames in the WAL after this connection's last commit (0 before the first one).
  int wal_frames() const { return m_wal_frames; }
  // Copies committed WAL frames into the database file without blocking readers or the writer
  // (SQLITE_CHECKPOINT_PASSIVE). Returns the frames left behind (not yet copied).
  Result<int> checkpoint_passive();
  // True while a transaction is open (false once SQLite rolled one back on its own after an error).
  bool in_transaction() const { return sqlite3_get_autocommit(m_db) == 0; }
  // An Error for the connection's last failure, with context.
  Error error(int code, std::string_view what) const;

 private:
  explicit Database(sqlite3* db) : m_db(db) {}
  sqlite3* m_db;
  int m_wal_frames = 0;  // written by the WAL hook on the thread that commits
  std::unordered_map<const char*, sqlite3_stmt*> m_statements;
};

// Runs BEGIN (IMMEDIATE for writers) and rolls back on destruction unless commit() succeeded.
class Transaction {
 public:
  static Result<Transaction> begin(Database& db, bool immediate);
  Transaction(Transaction&& other) noexcept : m_db(other.m_db) { other.m_db = nullptr; }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Result<void> commit();

 private:
  explicit Transaction(Database* db) : m_db(db) {}
  Database* m_db;
};

}  // namespace kw::storage::sqlite
