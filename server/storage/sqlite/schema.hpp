#pragma once
// The MVCC table and the SQL the embedded backend runs against it.
//
// kv holds one row per write: rev is the global revision (1, 2, 3, ... with no holes),
// prev_rev the revision of the key's live value the write replaced (0 when none),
// deleted marks a tombstone, expires_at a TTL deadline in unix milliseconds (0 = none).
// Compaction drops tombstones and superseded rows below the compacted revision; the row
// holding the current revision is never dropped.
namespace kw::storage::sqlite::sql {

inline constexpr const char* k_schema = R"(
CREATE TABLE IF NOT EXISTS kv (
  rev INTEGER PRIMARY KEY,
  key BLOB NOT NULL,
  value BLOB NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS kv_key_rev_deleted ON kv(key, rev, deleted);
DROP INDEX IF EXISTS kv_key_rev;
CREATE INDEX IF NOT EXISTS kv_expiry ON kv(expires_at) WHERE expires_at > 0;
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO meta(name, value) VALUES ('compacted', 0);
)";

inline constexpr const char* k_max_revision = "SELECT COALESCE(MAX(rev), 0) FROM kv";
inline constexpr const char* k_compacted = "SELECT value FROM meta WHERE name = 'compacted'";
inline constexpr const char* k_set_compacted = "UPDATE meta SET value = ?1 WHERE name = 'compacted'";

// Columns of a row: rev, key, value, create_rev, prev_rev, deleted, expires_at.
inline constexpr const char* k_latest_at =
    "SELECT rev, key, value, create_rev, prev_rev, deleted, expires_at FROM kv "
    "WHERE key = ?1 AND rev <= ?2 ORDER BY rev DESC LIMIT 1";
inline constexpr const char* k_insert =
    "INSERT INTO kv(rev, key, value, create_rev, prev_rev, deleted, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

// Live keys in [?1, ?2) (or >= ?1) as of revision ?3, by key; ?4 = limit (-1 = all). The rows
// are walked in key order through kv_key_rev_deleted and each is kept when it is its key's
// newest at ?3, so a page costs its own size, not the size of the range.
inline constexpr const char* k_list_bounded =
    "SELECT kv.rev, kv.key, kv.value, kv.create_rev, kv.prev_rev, kv.deleted, kv.expires_at FROM kv "
    "WHERE kv.key >= ?1 AND kv.key < ?2 AND kv.rev <= ?3 AND kv.deleted = 0 AND kv.rev = "
    "(SELECT MAX(k2.rev) FROM kv k2 WHERE k2.key = kv.key AND k2.rev <= ?3) ORDER BY kv.key LIMIT ?4";
inline constexpr const char* k_list_open =
    "SELECT kv.rev, kv.key, kv.value, kv.create_rev, kv.prev_rev, kv.deleted, kv.expires_at FROM kv "
    "WHERE kv.key >= ?1 AND kv.rev <= ?3 AND kv.deleted = 0 AND kv.rev = "
    "(SELECT MAX(k2.rev) FROM kv k2 WHERE k2.key = kv.key AND k2.rev <= ?3) ORDER BY kv.key LIMIT ?4";
// How many of those there are: the index alone answers (the deleted flag of each key's newest
// row, SQLite's bare column beside MAX).
inline constexpr const char* k_count_bounded =
    "SELECT COUNT(*) FROM (SELECT MAX(rev), deleted FROM kv WHERE key >= ?1 AND key < ?2 AND rev <= ?3 GROUP BY key) "
    "WHERE deleted = 0";
inline constexpr const char* k_count_open =
    "SELECT COUNT(*) FROM (SELECT MAX(rev), deleted FROM kv WHERE key >= ?1 AND rev <= ?3 GROUP BY key) "
    "WHERE deleted = 0";

// Rows with ?1 < rev <= ?2 for keys in [?3, ?4) (or >= ?3), by revision.
inline constexpr const char* k_history_bounded =
    "SELECT rev, key, value, create_rev, prev_rev, deleted, expires_at FROM kv "
    "WHERE rev > ?1 AND rev <= ?2 AND key >= ?3 AND key < ?4 ORDER BY rev";
inline constexpr const char* k_history_open =
    "SELECT rev, key, value, create_rev, prev_rev, deleted, expires_at FROM kv "
    "WHERE rev > ?1 AND rev <= ?2 AND key >= ?3 ORDER BY rev";

// Live keys whose TTL passed (?1 = now in unix ms): key and mod revision.
inline constexpr const char* k_expired =
    "SELECT kv.key, kv.rev FROM kv WHERE kv.expires_at > 0 AND kv.expires_at <= ?1 AND kv.deleted = 0 "
    "AND kv.rev = (SELECT MAX(n.rev) FROM kv n WHERE n.key = kv.key) LIMIT 256";

inline constexpr const char* k_compact =
    "DELETE FROM kv WHERE rev < ?1 AND (deleted = 1 OR EXISTS "
    "(SELECT 1 FROM kv n WHERE n.key = kv.key AND n.rev > kv.rev AND n.rev < ?1))";

}  // namespace kw::storage::sqlite::sql
