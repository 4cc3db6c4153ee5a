#pragma once
// The watch cache seam: what a watch handler sees. Events are immutable and shared by every
// watcher; each carries a memo so an event is encoded once per wire format, however many
// watchers send it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::cache {

using Revision = std::int64_t;

// A lazily made, thread-safe copy of an object's compact JSON. Copying a StoredObject
// (to change it) starts the copy with an empty memo.
class JsonMemo {
 public:
  JsonMemo() = default;
  JsonMemo(const JsonMemo&) {}
  JsonMemo& operator=(const JsonMemo&) { return *this; }
  const std::string& get(const nlohmann::json& object) const {
    if (m_ready.load(std::memory_order_acquire)) return m_bytes;
    std::lock_guard lock(m_mutex);
    if (!m_ready.load(std::memory_order_relaxed)) {
      m_bytes = object.dump();
      m_ready.store(true, std::memory_order_release);
    }
    return m_bytes;
  }
  // The JSON when it has been made, else null.
  const std::string* made() const { return m_ready.load(std::memory_order_acquire) ? &m_bytes : nullptr; }

 private:
  mutable std::mutex m_mutex;
  mutable std::atomic<bool> m_ready{false};
  mutable std::string m_bytes;
};

// How the objects of one resource are rebuilt from their protobuf (StoredObject::protobuf)
// once the cache has let go of their trees; shared by every object of the resource.
struct TreeSource {
  std::string api_version;
  std::string kind;
  std::function<kw::Result<nlohmann::json>(std::string_view protobuf)> decode;
};

// One stored object as the cache holds it: never changed after publication (but for its tree
// and JSON, each made once, on first use, when it was not given).
//
// The tree (`object()`) is the costly part: a pod's is about 30 KiB against its 3 KiB of
// protobuf. An object with a TreeSource and its protobuf can do without it: `lean()` copies
// it without tree or JSON, and the cache keeps such copies of the objects nobody has written
// for a while (WatchCache's history and store). Their trees are rebuilt from the protobuf
// when asked for, and kept by that copy for as long as it lives.
class StoredObject {
 public:
  std::string key;
  std::string namespace_;
  std::string name;
  Revision revision = 0;                        // mod revision (metadata.resourceVersion)
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> fields;    // the selectable fields of the kind
  // The object's protobuf message (no envelope), metadata.resourceVersion set, when it was
  // taken straight from the stored bytes: protobuf lists and watch events join these instead
  // of encoding the tree. Empty when the stored form differs from the served one.
  std::string protobuf;
  std::shared_ptr<const TreeSource> source;  // set with `protobuf`: the tree can be rebuilt

  StoredObject() = default;
  StoredObject(const StoredObject& other);  // the copy has the tree when `other` has made it
  StoredObject& operator=(const StoredObject&) = delete;

  // Gives the tree (metadata.resourceVersion set); before publication only.
  void set_object(nlohmann::json tree);
  // The tree, rebuilt from the protobuf on first use when the object was made without one.
  const nlohmann::json& object() const;
  // `object()` as compact JSON, encoded once and shared by every LIST and watch that sends it.
  const std::string& json() const { return m_json.get(object()); }
  // Appends `json()` to `out` without keeping a tree or JSON that were not made yet (a LIST
  // of many lean objects builds one tree at a time).
  void append_json(std::string& out) const;
  // Calls `use` with the tree: the object's own when it holds one, else one rebuilt for the
  // call (a lean object stays lean).
  template <class Use>
  void with_tree(Use&& use) const {
    if (keeps_tree()) use(object());
    else use(rebuilt_tree());
  }
  // About the size of json(), without making it.
  std::size_t json_size_hint() const;
  // Moves the object to `revision` (metadata.resourceVersion of the tree and the protobuf);
  // before publication only.
  void set_revision(Revision revision);

  // Whether the tree has been made (given, or rebuilt on use).
  bool holds_tree() const { return m_tree_ready.load(std::memory_order_acquire); }
  // Whether the tree could be rebuilt, so a lean copy serves as well as this one.
  bool can_be_lean() const { return source != nullptr && !protobuf.empty(); }
  // A copy without tree or JSON (which it rebuilds on use); requires can_be_lean().
  std::shared_ptr<const StoredObject> lean() const;

 private:
  nlohmann::json rebuilt_tree() const;
  // Whether uses of the tree go through object(), keeping it: it is made already, or this
  // object could not rebuild it later.
  bool keeps_tree() const { return holds_tree() || !can_be_lean(); }

  mutable std::mutex m_tree_mutex;  // guards making m_tree
  mutable std::atomic<bool> m_tree_ready{false};
  mutable nlohmann::json m_tree;
  JsonMemo m_json;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

enum class EventType { added, modified, deleted, bookmark, error };
const char* to_string(EventType type);  // "ADDED", ...

// An event as one watcher receives it. `encoded(format, make)` memoises the encoding.
class WatchEvent {
 public:
  WatchEvent(EventType type, ObjectPtr object, Revision revision)
      : m_type(type), m_object(std::move(object)), m_revision(revision) {}
  EventType type() const { return m_type; }
  const ObjectPtr& object() const { return m_object; }  // null for error events
  Revision revision() const { return m_revision; }
  nlohmann::json error_status;  // the Status carried by an error event

  // The bytes for `format`, made by `make` on first use (thread-safe, made once).
  std::shared_ptr<const std::string> encoded(std::string_view format,
                                             const std::function<std::string()>& make) const;

 private:
  EventType m_type;
  ObjectPtr m_object;
  Revision m_revision;
  mutable std::mutex m_memo_mutex;  // guards m_memo (a handful of formats: a flat list)
  mutable std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> m_memo;
};
using EventPtr = std::shared_ptr<const WatchEvent>;

// Where a watcher's events go (the HTTP watch handler implements it). Called from the
// cache's dispatch thread; must not block.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // Queues the event; false when the sink's bounded queue is full (the watcher is slow).
  virtual bool try_send(const EventPtr& event) = 0;
  // Queues an event whatever the queue holds: the initial state and replayed history of a
  // new watcher, which the client asked for and must get whole.
  virtual void send(const EventPtr& event) = 0;
  // True once the queue has room again (polled while a slow watcher's budget lasts).
  virtual bool writable() const = 0;
  // Pushes what was queued to the peer.
  virtual void flush() = 0;
  // Ends the stream cleanly. `reason` is logged / counted; empty for a normal end.
  virtual void close(const std::string& reason) = 0;
  // Ends the stream at once, dropping the events it still holds: a watcher too far behind.
  // Its client resumes from the last event it got, as from any ended watch.
  virtual void abort(const std::string& reason) = 0;
  // How long the oldest event taken by try_send() and not yet handed to the peer's connection
  // has waited; zero when there is none. The initial state and replayed history (send())
  // never count: a watcher lags only once they are out.
  virtual std::chrono::steady_clock::duration lag() = 0;
  virtual bool closed() const = 0;
};

struct WatchFilter {
  std::string namespace_;  // empty = all namespaces
  std::string name;        // empty = all names (single-object watches set it)
  std::function<bool(const StoredObject&)> matches;  // label + field selectors; null = all
  // Set when the field selector pins the cache's index field (e.g. spec.nodeName=node-1):
  // only objects with that value, before or after a change, can reach the watcher.
  std::optional<std::string> index_value;
  bool passes(const StoredObject& o) const {
    return (namespace_.empty() || o.namespace_ == namespace_) && (name.empty() || o.name == name) &&
           (!matches || matches(o));
  }
};

// What a watch cache has done so far.
struct CacheMetrics {
  std::uint64_t events = 0;              // backend events processed
  std::uint64_t watchers = 0;            // open watchers
  std::uint64_t terminated_watchers = 0; // closed for being too slow
  std::uint64_t relists = 0;
  // Watcher-event pairs dispatch looked at: indexed and named watchers keep it near the
  // number of events actually sent, however many watchers there are.
  std::uint64_t dispatch_candidates = 0;
};

enum class StartMode { current_state, exact };  // RV unset/"0": ADDED for current state first

struct WatchRequest {
  WatchFilter filter;
  StartMode mode = StartMode::current_state;
  Revision revision = 0;               // for exact: events after it
  // First catch up with the store's current revision (RV unset: what a client just wrote
  // must be in the initial events, or, for exact, behind the start and never streamed).
  // For exact, the watch then starts at that revision and `revision` is not used.
  bool consistent = false;
  bool allow_bookmarks = false;
  bool initial_events_end = false;     // sendInitialEvents: bookmark after the initial ADDED
  std::chrono::steady_clock::time_point deadline;  // the stream ends here
};

}  // namespace kw::cache
