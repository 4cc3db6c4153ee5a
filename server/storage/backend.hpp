#pragma once
// The storage seam: a revisioned key-value store with watch (etcd v3 semantics).
//
// Keys are byte strings (the REST layer uses "/registry/<resource>/[<ns>/]<name>"),
// values are opaque bytes. Every successful write returns the global revision it
// made; revisions increase by one per write transaction, starting at 1.
// Implementations: etcd3/ (real etcd over gRPC) and sqlite/ (embedded MVCC store).
// Every method is thread-safe. No method throws; failures are Error values.
#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kw::storage {

using Revision = std::int64_t;

enum class ErrorCode {
  not_found,    // key absent (or absent at the requested revision)
  exists,       // create of a key that is present
  conflict,     // guarded update/delete whose expected mod revision did not match
  compacted,    // requested revision is older than the compacted revision
  unavailable,  // backend unreachable (no quorum, connection refused, closed)
  timeout,      // deadline passed
  too_large,    // value above the backend's request limit
  corrupt,      // stored data cannot be read back
  invalid,      // bad argument (e.g. a future revision for a read, negative limit)
};

struct Error {
  ErrorCode code;
  std::string key;        // the key concerned, empty when none
  Revision revision = 0;  // current/compacted revision where meaningful
  std::string message;    // human readable, says what happened and what to do
};

const char* to_string(ErrorCode code);

inline std::unexpected<Error> failure(ErrorCode code, std::string key, Revision revision, std::string message) {
  return std::unexpected(Error{code, std::move(key), revision, std::move(message)});
}

// The smallest key above every key that starts with `prefix`; nullopt when there is none
// (the prefix is empty or all 0xff bytes).
std::optional<std::string> prefix_end(std::string_view prefix);

template <class T>
using Result = std::expected<T, Error>;

struct KeyValue {
  std::string key;
  std::string value;
  Revision create_revision = 0;
  Revision mod_revision = 0;
};

struct ListOptions {
  Revision revision = 0;     // 0 = current; otherwise read as of this revision
  std::int64_t limit = 0;    // 0 = no limit
  std::string continue_key;  // start at this key (inclusive), empty = start of prefix
  bool count_remaining = true;  // count the keys after a full page (ListResult::remaining)
};

struct ListResult {
  std::vector<KeyValue> items;  // sorted by key
  Revision revision = 0;        // the revision the list was read at
  bool more = false;            // more keys after the last item
  std::int64_t remaining = 0;   // keys left after the last item (0 when !more or not counted)
};

struct WriteResult {
  Revision revision = 0;  // revision this write made (for delete: the deletion's revision)
};

enum class EventType { put, del };

struct Event {
  EventType type;
  KeyValue kv;  // for del: key and mod_revision = deletion revision, empty value
};

// A watch delivers events of keys under a prefix, in revision order, exactly once.
// The callback gets batches of events (all with revision > the start revision), or
// a terminal error (compacted when the start revision is gone, unavailable when the
// backend is lost beyond recovery). After a terminal error no more calls happen.
// Callbacks run on a backend thread and must not block for long.
struct WatchCallbacks {
  std::function<void(std::vector<Event>)> on_events;
  std::function<void(Error)> on_error;
  // Called when the backend confirms it has delivered everything up to `revision`
  // (etcd progress notify / the embedded store's commit). Optional.
  std::function<void(Revision)> on_progress;
};

// Cancels the watch when destroyed; after the destructor returns no callback runs.
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
  // Ask the backend to report progress (on_progress) soon. Best effort.
  virtual void request_progress() {}
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual Result<KeyValue> get(const std::string& key, Revision revision = 0) = 0;
  virtual Result<ListResult> list(const std::string& prefix, const ListOptions& options) = 0;
  // Fails with `exists` if the key is present. ttl > 0 makes the key expire (a delete event) after it.
  virtual Result<WriteResult> create(const std::string& key, const std::string& value,
                                     std::chrono::seconds ttl = std::chrono::seconds{0}) = 0;
  // Replaces the value if the key's mod revision equals expected_mod_revision
  // (conflict otherwise, not_found if the key is absent).
  virtual Result<WriteResult> update(const std::string& key, const std::string& value,
                                     Revision expected_mod_revision) = 0;
  // Deletes the key; when expected_mod_revision is set it must match (conflict otherwise).
  virtual Result<WriteResult> remove(const std::string& key,
                                     std::optional<Revision> expected_mod_revision = std::nullopt) = 0;
  // Events for keys starting with `prefix` with revision > `after_revision`.
  virtual Result<std::unique_ptr<WatchHandle>> watch(const std::string& prefix, Revision after_revision,
                                                     WatchCallbacks callbacks) = 0;
  virtual Result<Revision> current_revision() = 0;
  // Discards history before `revision` (reads/watches older than it get `compacted`).
  virtual Result<void> compact(Revision revision) = 0;
  // The oldest revision still readable (0 when nothing was compacted).
  virtual Result<Revision> compacted_revision() = 0;
  virtual Result<void> health() = 0;
  // Largest value accepted (etcd's default request limit, 1.5 MiB).
  virtual std::size_t max_value_size() const { return 1536 * 1024; }
};

}  // namespace kw::storage
