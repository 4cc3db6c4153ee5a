// Opening the embedded store: data dir, lock, schema, threads.
#include "server/storage/sqlite/sqlite_backend.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "server/storage/sqlite/schema.hpp"
#include "server/storage/sqlite/sqlite_store.hpp"

namespace kw::storage {
namespace {

Result<void> make_data_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return std::unexpected(Error{ErrorCode::unavailable, "", 0,
                                 "cannot create data dir " + dir + ": " + ec.message()});
  }
  if (::chmod(dir.c_str(), 0700) != 0) {
    return std::unexpected(Error{ErrorCode::unavailable, "", 0,
                                 "cannot set mode 0700 on data dir " + dir + ": " + std::strerror(errno)});
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Backend>> open_sqlite_backend(const SqliteOptions& options) {
  if (options.data_dir.empty()) {
    return std::unexpected(Error{ErrorCode::invalid, "", 0, "the sqlite backend needs a data dir"});
  }
  if (auto ok = make_data_dir(options.data_dir); !ok) return std::unexpected(ok.error());
  auto lock = sqlite::DirLock::acquire(options.data_dir);
  if (!lock) return std::unexpected(lock.error());
  auto db = sqlite::Database::open(options.data_dir + "/kw.db", options.busy_timeout);
  if (!db) return std::unexpected(db.error());
  if (auto ok = (*db)->exec(sqlite::sql::k_schema); !ok) return std::unexpected(ok.error());
  // A WAL that grew under load is cut back to this size once it restarts.
  if (auto ok = (*db)->exec("PRAGMA journal_size_limit=67108864"); !ok) return std::unexpected(ok.error());
  auto stmt = (*db)->prepare(sqlite::sql::k_max_revision);
  if (!stmt) return std::unexpected(stmt.error());
  if (stmt->step() != SQLITE_ROW) {
    return std::unexpected((*db)->error(SQLITE_ERROR, "cannot read the current revision"));
  }
  const Revision revision = stmt->int_at(0);
  return std::make_unique<sqlite::SqliteStore>(options, std::move(*lock), std::move(*db), revision);
}

}  // namespace kw::storage
