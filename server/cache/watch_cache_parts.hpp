#pragma once
// Internal to server/cache: the parts of WatchCache shared by its implementation files
// (watch_cache.cpp: life cycle, feed, reads, watch start, ticks; watch_dispatch.cpp: fan-out).
#include "server/cache/watch_cache.hpp"

namespace kw::cache {

// A copy of `object` at `revision` (metadata.resourceVersion set): a deletion's last state.
ObjectPtr with_revision(const ObjectPtr& object, Revision revision);

// One event of the window. `prev` is the object before it (null for an add); the variants
// are what a watcher whose selector the object enters or leaves receives instead.
struct WatchCache::Entry {
  EventType type;
  Revision revision;
  ObjectPtr object;  // for deletions: the last state, at the deletion's revision
  ObjectPtr prev;
  std::chrono::steady_clock::time_point at;
  std::size_t bytes = 0;  // the stored value's size (a deletion's: its last state's)
  EventPtr as_is, as_added, as_deleted;
};

struct WatchCache::Watcher {
  WatcherId id = 0;
  WatchRequest request;
  std::shared_ptr<WatchSink> sink;
  Revision start_after = 0;  // events at or below this revision were already covered
  std::chrono::steady_clock::time_point next_bookmark;
  std::vector<EventPtr> pending;  // held back while the sink is full (keeps order), from pending_head
  std::size_t pending_head = 0;
  std::chrono::steady_clock::time_point blocked_since;  // when `pending` became non-empty
  bool touched = false;          // got events in the current dispatch (needs a flush)
};

}  // namespace kw::cache
