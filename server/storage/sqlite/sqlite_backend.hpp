#pragma once
// The embedded storage backend: one SQLite file (WAL) holding an MVCC table with a
// global revision, the same semantics as etcd v3 for a single process.
//
// Writes are group-committed: concurrent writers queue, one committer thread applies
// everything queued in one transaction (each write checked in queue order against the ones
// before it), commits once with synchronous=FULL, publishes the watch events in revision
// order, and only then answers each writer. An acknowledged write is on disk.
#include <chrono>
#include <memory>
#include <string>

#include "server/storage/backend.hpp"

namespace kw::storage {

struct SqliteOptions {
  std::string data_dir;  // created (mode 0700) if missing; holds kw.db and kw.lock
  std::chrono::milliseconds busy_timeout{5000};
  // How often expired TTL keys are looked for.
  std::chrono::milliseconds expiry_interval{250};
  // How often idle watchers get on_progress.
  std::chrono::milliseconds progress_interval{1000};
};

// Opens (or creates) the store under options.data_dir. The data dir stays locked
// (flock on kw.lock) until the backend is destroyed: a second opener, in this or
// another process, gets `unavailable`. Watch handles must be destroyed before the backend.
Result<std::unique_ptr<Backend>> open_sqlite_backend(const SqliteOptions& options);

}  // namespace kw::storage
