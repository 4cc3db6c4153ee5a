#pragma once
// A watch cache for one resource: the current objects plus a window of recent events, fed
// by one backend watch, fanning each event out to many watchers without blocking on any.
//
// Life cycle: construct, start() (lists, then watches from the list's revision; returns
// once synced), use from any thread, destroy (stops the feed and closes every watcher).
// When the backend reports `compacted` or loses the watch, the cache closes its watchers
// (their clients relist), relists and resumes; it never serves a gap.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/cache/fanout_pool.hpp"
#include "server/cache/watcher.hpp"
#include "server/storage/backend.hpp"

namespace kw::cache {

using SteadyClock = std::function<std::chrono::steady_clock::time_point()>;

struct CacheOptions {
  std::string prefix;  // backend key prefix, e.g. "/registry/pods/"
  // Builds the cached form of a stored value (parse, set resourceVersion, index fields).
  std::function<storage::Result<ObjectPtr>(const storage::KeyValue&)> decode;
  std::string api_version;  // of bookmark objects, e.g. "v1"
  std::string kind;         // of bookmark objects, e.g. "Pod"
  SteadyClock clock;        // defaults to std::chrono::steady_clock::now
  // A selectable field to index objects and watchers by (StoredObject::fields key), e.g.
  // "spec.nodeName" for pods: lists and dispatch touch only the matching ones. Empty = none.
  std::string index_field;
  std::chrono::seconds history_window{75};     // keep at least this much history...
  std::size_t min_history = 100;               // ...and at least this many events,
  std::size_t max_history = 100 * 1024;        // but never more than this many,
  // nor events whose stored values add up to more than this many bytes (the newest event is
  // always kept). Older history is trimmed as events arrive and on every tick.
  std::size_t max_history_bytes = 64 * 1024 * 1024;
  // How long a watcher may stay unable to take events (its events held back, in order)
  // before it is closed. Dispatch itself never waits for a watcher.
  std::chrono::milliseconds slow_budget{100};
  std::size_t max_held_events = 1000;  // a watcher holding back more is closed at once
  // A watcher whose sink has held an event longer than this (WatchSink::lag: taken, not yet
  // out) has fallen too far behind and is aborted, whatever its queue's size: under overload
  // the others keep up, and it resumes from its last event.
  std::chrono::milliseconds max_lag{5000};
  std::chrono::milliseconds consistent_read_timeout{3000};
  // Objects are kept lean (StoredObject::lean: protobuf without tree or JSON) once nobody has
  // written them for a while: the objects of an event this old...
  std::chrono::milliseconds lean_after{5000};
  // ...and, swept this many per tick, the stored objects written before the previous sweep
  // began whose trees a read has made again.
  std::size_t lean_sweep_batch = 4096;
  std::chrono::seconds bookmark_interval{60};
  // A dispatch round reaching at least parallel_dispatch_min watchers is split by watcher
  // over dispatch_threads threads (the dispatching one included; helpers start on first use).
  // Off by default: on a 2-core machine the extra thread costs more than it gains (the
  // sends are kernel work competing for the same cores; measured with watch_fanout_bench).
  int dispatch_threads = 1;
  std::size_t parallel_dispatch_min = 1000;
  bool start_ticker = true;  // tests drive tick() themselves
};

using WatcherId = std::uint64_t;

struct Snapshot {
  std::vector<ObjectPtr> items;  // sorted by key
  Revision revision = 0;
};

class WatchCache {
 public:
  WatchCache(storage::Backend& backend, CacheOptions options);
  ~WatchCache();
  WatchCache(const WatchCache&) = delete;
  WatchCache& operator=(const WatchCache&) = delete;

  storage::Result<void> start();
  bool ready() const;
  Revision revision() const;

  // Objects passing `filter`. consistent: first catch up with the backend's current revision
  // (a `timeout` error when that takes longer than consistent_read_timeout).
  storage::Result<Snapshot> list(const WatchFilter& filter, bool consistent);
  storage::Result<ObjectPtr> get(const std::string& key, bool consistent);

  // Starts a watcher. An exact revision older than the window gives `compacted` (the
  // handler answers 410 inside the stream); initial events are queued before it returns.
  storage::Result<WatcherId> watch(const WatchRequest& request, std::shared_ptr<WatchSink> sink);
  void stop_watch(WatcherId id);

  // The object a write just stored, decoded by the writer exactly as `decode` would decode the
  // event's bytes: when the event for its key and revision arrives, the feed takes it instead of
  // decoding again. An offer for an event already applied is dropped; offers never change
  // what is served, only who decodes it.
  void offer(ObjectPtr object);

  // Bookmarks, timeouts, closed sinks and slow watchers; runs every 250 ms on the ticker
  // thread (slow watchers every 5 ms while there are any), which starts with the cache's first
  // event or watcher.
  void tick();
  CacheMetrics metrics() const;

 private:
  struct Entry;    // one event of the window, with its per-watcher variants
  struct Watcher;
  struct Feed;     // queued backend callbacks

  storage::Result<void> relist_locked(std::unique_lock<std::mutex>& lock);
  void start_backend_watch_locked(Revision after);
  void feed_loop();
  void apply_events(std::vector<storage::Event> events);
  // The offered object for this event, or null (then the feed decodes it); drops stale offers.
  ObjectPtr take_offer(const std::string& key, Revision revision);
  // Forgets offers whose events were applied before they came (an offer racing its event):
  // each holds a whole tree.
  void drop_stale_offers();
  void ticker_loop();
  // Starts the ticker thread once, when the cache first has an event or a watcher.
  void start_ticker_locked();
  // Fans a batch's new entries out to their watchers (over m_fanout when it reaches many).
  void dispatch_locked(const std::vector<Entry*>& entries);
  // Hands `event` to the watcher, or holds it back (in order) while its sink is full. True
  // when the watcher just became blocked (the caller adds it to m_blocked). Touches only
  // the watcher: dispatch shards call it for different watchers at once.
  bool deliver_locked(Watcher& watcher, EventPtr event);
  // Retries the held-back events of blocked watchers; closes those past the budget.
  void service_blocked_locked();
  // Whether the watcher's sink holds an event older than max_lag.
  bool lagging(Watcher& watcher) const;
  // Aborts a watcher that fell behind (counted in terminated_watchers) and forgets it.
  std::map<WatcherId, std::unique_ptr<Watcher>>::iterator terminate_locked(
      std::map<WatcherId, std::unique_ptr<Watcher>>::iterator it);
  EventPtr event_for_locked(Entry& entry, const Watcher& watcher);
  // Makes every variant of `entry` up front, so event_for_locked() only reads it (shards).
  void prepare_variants_locked(Entry& entry);
  void trim_history_locked();
  // Replaces the objects of the window's entries older than lean_after by lean copies (the
  // store's too, when it holds the same one), dropping their encoded events.
  void lean_history_locked();
  // Sweeps the next lean_sweep_batch stored objects, replacing by lean copies those with a
  // tree that were written before the previous sweep began.
  void sweep_store_locked();
  // A lean copy of the stored object of `key` when `object` is the one stored (else null).
  ObjectPtr lean_stored_locked(const std::string& key, const ObjectPtr& object);
  std::string index_value(const StoredObject& object) const;
  void index_locked(const ObjectPtr& object, bool add);
  void add_watcher_locked(WatcherId id, std::unique_ptr<Watcher> watcher);
  std::map<WatcherId, std::unique_ptr<Watcher>>::iterator erase_watcher_locked(
      std::map<WatcherId, std::unique_ptr<Watcher>>::iterator it);
  // The watchers an entry can concern: the unindexed ones, those watching the object by name
  // and those whose index value the object had before or has after.
  std::vector<Watcher*> candidates_locked(const Entry& entry);
  void close_all_locked(const std::string& reason);
  template <class Fn>  // Fn(const ObjectPtr&)
  void for_each_match_locked(const WatchFilter& filter, Fn&& fn) const;
  EventPtr bookmark_locked(bool initial_events_end) const;
  storage::Result<void> wait_fresh(std::unique_lock<std::mutex>& lock);
  std::chrono::steady_clock::time_point now() const;

  storage::Backend& m_backend;
  CacheOptions m_options;

  // Lock order: m_mutex, then a sink's own lock. m_mutex guards everything below it.
  mutable std::mutex m_mutex;
  std::condition_variable m_advanced;  // m_revision moved or readiness changed
  bool m_ready = false;
  bool m_stopping = false;
  Revision m_revision = 0;       // everything up to here is applied
  Revision m_window_start = 0;   // the window holds events with revision > m_window_start
  std::size_t m_window_bytes = 0;  // the stored sizes of the window's events
  std::map<std::string, ObjectPtr> m_store;
  std::deque<std::unique_ptr<Entry>> m_window;
  std::size_t m_lean_entries = 0;  // the window's first entries already made lean
  std::string m_sweep_next;        // the key the store's next sweep starts at ("" = the first)
  Revision m_sweep_floor = 0;      // objects written after this stay as they are this sweep
  Revision m_sweep_began = 0;      // m_revision when the current sweep began
  std::map<WatcherId, std::unique_ptr<Watcher>> m_watchers;
  std::map<std::string, std::set<std::string>> m_index;  // index value -> keys in m_store
  std::set<Watcher*> m_unindexed_watchers;  // neither by index value nor by name
  // m_unindexed_watchers as a flat array for dispatch rounds (walking a set of thousands of
  // nodes costs a cache miss each); rebuilt on the first round after the set changes.
  std::vector<Watcher*> m_unindexed_list;
  bool m_unindexed_list_stale = false;
  std::map<std::string, std::set<Watcher*>> m_indexed_watchers;  // by filter.index_value
  // Watchers of one object by name (filter.name set, no index value): a kubelet's own Node.
  std::unordered_map<std::string, std::set<Watcher*>> m_named_watchers;
  WatcherId m_next_id = 1;
  CacheMetrics m_metrics;
  std::set<Watcher*> m_blocked;  // watchers holding back events
  std::condition_variable m_ticker_wake;  // a watcher became blocked
  std::unique_ptr<storage::WatchHandle> m_backend_watch;
  std::uint64_t m_feed_generation = 0;  // bumped per backend watch; stale callbacks are dropped

  // Offered objects by key (offer()), waiting for their event; guarded by m_offer_mutex, which
  // is taken alone or inside m_mutex. m_applied mirrors m_revision for offer() to read.
  std::mutex m_offer_mutex;
  std::unordered_map<std::string, ObjectPtr> m_offers;
  std::atomic<Revision> m_applied{0};

  std::mutex m_feed_mutex;  // guards m_feed (taken without m_mutex held)
  std::condition_variable m_feed_ready;
  std::deque<std::unique_ptr<Feed>> m_feed;

  std::unique_ptr<FanoutPool> m_fanout;  // used by the feed thread only, under m_mutex
  std::thread m_feed_thread;
  std::thread m_ticker_thread;
};

}  // namespace kw::cache
