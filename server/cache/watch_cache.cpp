#include "server/cache/watch_cache.hpp"

#include "server/cache/watch_cache_parts.hpp"

#include "core/codec/protobuf_wire.hpp"
#include "core/util/backoff.hpp"

#include <algorithm>
#include <iostream>

namespace kw::cache {
namespace {

constexpr std::int64_t k_relist_page = 10000;
constexpr auto k_tick = std::chrono::milliseconds(250);
constexpr auto k_blocked_poll = std::chrono::milliseconds(5);
constexpr auto k_bookmark_before_deadline = std::chrono::seconds(2);
// At most this many backend events are applied and dispatched as one batch.
constexpr std::size_t k_max_batch_events = 1024;

storage::Error cache_error(storage::ErrorCode code, std::string message, Revision revision = 0) {
  return storage::Error{code, "", revision, std::move(message)};
}

}  // namespace

ObjectPtr with_revision(const ObjectPtr& object, Revision revision) {
  auto copy = std::make_shared<StoredObject>(*object);
  copy->set_revision(revision);
  return copy;
}

const char* to_string(EventType type) {
  switch (type) {
    case EventType::added: return "ADDED";
    case EventType::modified: return "MODIFIED";
    case EventType::deleted: return "DELETED";
    case EventType::bookmark: return "BOOKMARK";
    case EventType::error: return "ERROR";
  }
  return "ERROR";
}

std::shared_ptr<const std::string> WatchEvent::encoded(std::string_view format,
                                                       const std::function<std::string()>& make) const {
  std::lock_guard lock(m_memo_mutex);
  for (const auto& [name, bytes] : m_memo)
    if (name == format) return bytes;
  m_memo.emplace_back(std::string(format), std::make_shared<const std::string>(make()));
  return m_memo.back().second;
}

struct WatchCache::Feed {
  enum class Kind { events, error, progress } kind;
  std::uint64_t generation = 0;
  std::vector<storage::Event> events;
  storage::Error error;
  Revision progress = 0;
};

WatchCache::WatchCache(storage::Backend& backend, CacheOptions options)
    : m_backend(backend), m_options(std::move(options)) {
  if (!m_options.clock) m_options.clock = [] { return std::chrono::steady_clock::now(); };
}

WatchCache::~WatchCache() {
  std::unique_ptr<storage::WatchHandle> backend_watch;
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    backend_watch = std::move(m_backend_watch);
    close_all_locked("");
  }
  backend_watch.reset();  // no backend callback runs after this
  {
    std::lock_guard lock(m_feed_mutex);
    m_feed_ready.notify_all();
  }
  m_advanced.notify_all();
  m_ticker_wake.notify_all();
  if (m_feed_thread.joinable()) m_feed_thread.join();
  if (m_ticker_thread.joinable()) m_ticker_thread.join();
}

std::chrono::steady_clock::time_point WatchCache::now() const { return m_options.clock(); }

storage::Result<void> WatchCache::start() {
  {
    std::unique_lock lock(m_mutex);
    if (auto listed = relist_locked(lock); !listed) return listed;
  }
  m_feed_thread = std::thread([this] { feed_loop(); });
  return {};
}

void WatchCache::start_ticker_locked() {
  // Started by the first event or watcher: a cache with neither has nothing to tick (its
  // objects were listed lean), and a server starts dozens of such caches at once.
  if (m_ticker_thread.joinable() || !m_options.start_ticker || m_stopping) return;
  m_ticker_thread = std::thread([this] { ticker_loop(); });
}

// Wakes every k_tick for bookmarks and timeouts, and every k_blocked_poll while some watcher
// holds back events, so a slow watcher is closed close to its budget.
void WatchCache::ticker_loop() {
  std::unique_lock lock(m_mutex);
  auto next_tick = std::chrono::steady_clock::now() + k_tick;
  while (!m_stopping) {
    const auto wake = m_blocked.empty() ? next_tick
                                        : std::min(next_tick, std::chrono::steady_clock::now() + k_blocked_poll);
    m_ticker_wake.wait_until(lock, wake);
    if (m_stopping) break;
    if (!m_blocked.empty()) service_blocked_locked();
    if (std::chrono::steady_clock::now() >= next_tick) {
      lock.unlock();
      tick();
      lock.lock();
      next_tick = std::chrono::steady_clock::now() + k_tick;
    }
  }
}

bool WatchCache::ready() const {
  std::lock_guard lock(m_mutex);
  return m_ready;
}

Revision WatchCache::revision() const {
  std::lock_guard lock(m_mutex);
  return m_revision;
}

CacheMetrics WatchCache::metrics() const {
  std::lock_guard lock(m_mutex);
  CacheMetrics out = m_metrics;
  out.watchers = m_watchers.size();
  return out;
}

storage::Result<void> WatchCache::relist_locked(std::unique_lock<std::mutex>& lock) {
  (void)lock;
  std::map<std::string, ObjectPtr> store;
  storage::ListOptions options;
  options.limit = k_relist_page;
  options.count_remaining = false;
  Revision revision = 0;
  for (;;) {
    auto page = m_backend.list(m_options.prefix, options);
    if (!page) return std::unexpected(page.error());
    revision = page->revision;
    for (const auto& kv : page->items) {
      auto object = m_options.decode(kv);
      if (!object) {
        std::cerr << "kw: skipping unreadable object " << kv.key << ": " << object.error().message << "\n";
        continue;
      }
      // Nobody has asked for these trees: the cache keeps the protobuf only.
      store[kv.key] = (*object)->can_be_lean() ? (*object)->lean() : *object;
    }
    if (!page->more || page->items.empty()) break;
    options.revision = revision;
    options.continue_key = page->items.back().key + '\0';
  }
  m_store = std::move(store);
  m_index.clear();
  for (const auto& [key, object] : m_store) index_locked(object, true);
  m_window.clear();
  m_window_bytes = 0;
  m_lean_entries = 0;
  m_revision = revision;
  m_applied = revision;
  m_window_start = revision;
  m_ready = true;
  ++m_metrics.relists;
  start_backend_watch_locked(revision);
  m_advanced.notify_all();
  return {};
}

void WatchCache::start_backend_watch_locked(Revision after) {
  const std::uint64_t generation = ++m_feed_generation;
  auto push = [this](std::unique_ptr<Feed> feed) {
    std::lock_guard lock(m_feed_mutex);
    m_feed.push_back(std::move(feed));
    m_feed_ready.notify_one();
  };
  storage::WatchCallbacks callbacks;
  callbacks.on_events = [push, generation](std::vector<storage::Event> events) {
    auto feed = std::make_unique<Feed>(Feed{Feed::Kind::events, generation, std::move(events), {}, 0});
    push(std::move(feed));
  };
  callbacks.on_error = [push, generation](storage::Error error) {
    push(std::make_unique<Feed>(Feed{Feed::Kind::error, generation, {}, std::move(error), 0}));
  };
  callbacks.on_progress = [push, generation](Revision revision) {
    push(std::make_unique<Feed>(Feed{Feed::Kind::progress, generation, {}, {}, revision}));
  };
  auto handle = m_backend.watch(m_options.prefix, after, std::move(callbacks));
  if (handle) {
    m_backend_watch = std::move(*handle);
  } else {
    push(std::make_unique<Feed>(Feed{Feed::Kind::error, generation, {}, handle.error(), 0}));
  }
}

void WatchCache::feed_loop() {
  for (;;) {
    std::unique_ptr<Feed> feed;
    {
      std::unique_lock lock(m_feed_mutex);
      m_feed_ready.wait(lock, [this] { return !m_feed.empty() || m_stopping; });
      if (m_stopping) return;
      feed = std::move(m_feed.front());
      m_feed.pop_front();
      // A backlog (dispatch slower than the writes) is applied as one batch: each watcher
      // then gets one write for all of it instead of one per event.
      while (feed->kind == Feed::Kind::events && !m_feed.empty() && m_feed.front()->kind == Feed::Kind::events &&
             m_feed.front()->generation == feed->generation && feed->events.size() < k_max_batch_events) {
        auto& more = m_feed.front()->events;
        feed->events.insert(feed->events.end(), std::make_move_iterator(more.begin()),
                            std::make_move_iterator(more.end()));
        m_feed.pop_front();
      }
    }
    std::unique_lock lock(m_mutex);
    if (m_stopping) return;
    if (feed->generation != m_feed_generation) continue;  // from a watch that was replaced
    switch (feed->kind) {
      case Feed::Kind::events:
        lock.unlock();
        apply_events(std::move(feed->events));
        break;
      case Feed::Kind::progress:
        if (feed->progress > m_revision) {
          m_revision = feed->progress;
          m_advanced.notify_all();
        }
        break;
      case Feed::Kind::error: {
        // The backend watch is gone: every watcher relists, then the cache does.
        std::cerr << "kw: watch of " << m_options.prefix << " ended (" << feed->error.message << "); relisting\n";
        m_ready = false;
        close_all_locked("the watch cache is relisting");
        auto old_watch = std::move(m_backend_watch);
        lock.unlock();
        old_watch.reset();
        lock.lock();
        for (util::Backoff backoff(std::chrono::milliseconds(100), std::chrono::seconds(5)); !m_stopping;) {
          if (relist_locked(lock)) break;
          m_advanced.wait_for(lock, backoff.next(), [this] { return m_stopping; });
        }
        break;
      }
    }
  }
}

std::string WatchCache::index_value(const StoredObject& object) const {
  auto found = object.fields.find(m_options.index_field);
  return found == object.fields.end() ? std::string() : found->second;
}

void WatchCache::index_locked(const ObjectPtr& object, bool add) {
  if (m_options.index_field.empty()) return;
  const std::string value = index_value(*object);
  if (add) {
    m_index[value].insert(object->key);
    return;
  }
  auto found = m_index.find(value);
  if (found == m_index.end()) return;
  found->second.erase(object->key);
  if (found->second.empty()) m_index.erase(found);
}

void WatchCache::add_watcher_locked(WatcherId id, std::unique_ptr<Watcher> watcher) {
  start_ticker_locked();
  const WatchFilter& filter = watcher->request.filter;
  if (filter.index_value && !m_options.index_field.empty()) {
    m_indexed_watchers[*filter.index_value].insert(watcher.get());
  } else if (!filter.name.empty()) {
    m_named_watchers[filter.name].insert(watcher.get());
  } else {
    m_unindexed_watchers.insert(watcher.get());
    m_unindexed_list_stale = true;
  }
  m_watchers.emplace(id, std::move(watcher));
}

std::map<WatcherId, std::unique_ptr<WatchCache::Watcher>>::iterator WatchCache::erase_watcher_locked(
    std::map<WatcherId, std::unique_ptr<Watcher>>::iterator it) {
  Watcher* watcher = it->second.get();
  m_blocked.erase(watcher);
  auto forget = [watcher](auto& buckets, const std::string& value) {
    auto bucket = buckets.find(value);
    if (bucket == buckets.end()) return;
    bucket->second.erase(watcher);
    if (bucket->second.empty()) buckets.erase(bucket);
  };
  const WatchFilter& filter = watcher->request.filter;
  if (m_unindexed_watchers.erase(watcher)) {
    m_unindexed_list_stale = true;
  } else if (filter.index_value && !m_options.index_field.empty()) {
    forget(m_indexed_watchers, *filter.index_value);
  } else {
    forget(m_named_watchers, filter.name);
  }
  return m_watchers.erase(it);
}

void WatchCache::trim_history_locked() {
  const auto cutoff = now() - m_options.history_window;
  while (m_window.size() > m_options.max_history ||
         (m_window.size() > 1 && m_window_bytes > m_options.max_history_bytes) ||
         (m_window.size() > m_options.min_history && m_window.front()->at < cutoff)) {
    m_window_start = m_window.front()->revision;
    m_window_bytes -= m_window.front()->bytes;
    m_window.pop_front();
    if (m_lean_entries > 0) --m_lean_entries;
  }
}

ObjectPtr WatchCache::lean_stored_locked(const std::string& key, const ObjectPtr& object) {
  auto found = m_store.find(key);
  if (found == m_store.end() || found->second != object) return nullptr;
  found->second = object->lean();
  return found->second;
}

void WatchCache::lean_history_locked() {
  const auto cutoff = now() - m_options.lean_after;
  // Leaner one by one: a copy of an object shared with the store (the newest event of its
  // key) is shared again.
  auto leaner = [&](ObjectPtr& object) {
    if (!object || !object->holds_tree() || !object->can_be_lean()) return;
    ObjectPtr shared = lean_stored_locked(object->key, object);
    object = shared ? std::move(shared) : object->lean();
  };
  for (; m_lean_entries < m_window.size(); ++m_lean_entries) {
    Entry& entry = *m_window[m_lean_entries];
    if (entry.at > cutoff) break;
    leaner(entry.object);
    leaner(entry.prev);
    // The events are made again (with their encodings) if a watcher replays this entry; those
    // delivered keep their own.
    entry.as_is.reset();
    entry.as_added.reset();
    entry.as_deleted.reset();
  }
}

void WatchCache::sweep_store_locked() {
  if (m_sweep_next.empty()) {
    m_sweep_floor = m_sweep_began;
    m_sweep_began = m_revision;
  }
  auto it = m_store.lower_bound(m_sweep_next);
  for (std::size_t n = 0; it != m_store.end() && n < m_options.lean_sweep_batch; ++it, ++n) {
    const ObjectPtr& object = it->second;
    if (object->revision <= m_sweep_floor && object->holds_tree() && object->can_be_lean()) it->second = object->lean();
  }
  m_sweep_next = it == m_store.end() ? std::string() : it->first;
}

void WatchCache::close_all_locked(const std::string& reason) {
  for (auto& [id, watcher] : m_watchers) watcher->sink->close(reason);
  m_watchers.clear();
  m_blocked.clear();
  m_unindexed_watchers.clear();
  m_unindexed_list.clear();
  m_unindexed_list_stale = false;
  m_indexed_watchers.clear();
  m_named_watchers.clear();
}

EventPtr WatchCache::bookmark_locked(bool initial_events_end) const {
  auto object = std::make_shared<StoredObject>();
  object->revision = m_revision;
  nlohmann::json tree = {{"kind", m_options.kind},
                         {"apiVersion", m_options.api_version},
                         {"metadata", {{"resourceVersion", std::to_string(m_revision)}}}};
  if (initial_events_end) tree["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  object->set_object(std::move(tree));
  return std::make_shared<WatchEvent>(EventType::bookmark, std::move(object), m_revision);
}

storage::Result<void> WatchCache::wait_fresh(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  auto target = m_backend.current_revision();
  lock.lock();
  if (!target) return std::unexpected(target.error());
  const auto deadline = std::chrono::steady_clock::now() + m_options.consistent_read_timeout;
  while (m_revision < *target && !m_stopping) {
    if (m_backend_watch) m_backend_watch->request_progress();
    if (std::chrono::steady_clock::now() >= deadline)
      return std::unexpected(cache_error(storage::ErrorCode::timeout,
                                         "the watch cache did not catch up with revision " +
                                             std::to_string(*target) + " in time; retry",
                                         m_revision));
    m_advanced.wait_for(lock, std::chrono::milliseconds(100));
  }
  return {};
}

storage::Result<Snapshot> WatchCache::list(const WatchFilter& filter, bool consistent) {
  std::unique_lock lock(m_mutex);
  if (!m_ready) return std::unexpected(cache_error(storage::ErrorCode::unavailable, "the watch cache is not ready"));
  if (consistent)
    if (auto fresh = wait_fresh(lock); !fresh) return std::unexpected(fresh.error());
  Snapshot out;
  out.revision = m_revision;
  for_each_match_locked(filter, [&](const ObjectPtr& object) { out.items.push_back(object); });
  return out;
}

// Visits the stored objects passing `filter` in key order, touching only the filter's
// namespace range (or its index bucket) rather than the whole store.
template <class Fn>
void WatchCache::for_each_match_locked(const WatchFilter& filter, Fn&& fn) const {
  if (filter.index_value && !m_options.index_field.empty()) {
    auto keys = m_index.find(*filter.index_value);
    if (keys != m_index.end())
      for (const auto& key : keys->second)
        if (const auto& object = m_store.at(key); filter.passes(*object)) fn(object);
    return;
  }
  auto begin = m_store.begin();
  if (!filter.namespace_.empty()) begin = m_store.lower_bound(m_options.prefix + filter.namespace_ + "/");
  for (auto it = begin; it != m_store.end(); ++it) {
    const StoredObject& o = *it->second;
    if (!filter.namespace_.empty() && o.namespace_ != filter.namespace_) break;
    if (filter.passes(o)) fn(it->second);
  }
}

storage::Result<ObjectPtr> WatchCache::get(const std::string& key, bool consistent) {
  std::unique_lock lock(m_mutex);
  if (!m_ready) return std::unexpected(cache_error(storage::ErrorCode::unavailable, "the watch cache is not ready"));
  if (consistent)
    if (auto fresh = wait_fresh(lock); !fresh) return std::unexpected(fresh.error());
  auto found = m_store.find(key);
  if (found == m_store.end())
    return std::unexpected(storage::Error{storage::ErrorCode::not_found, key, m_revision, "not found"});
  return found->second;
}

storage::Result<WatcherId> WatchCache::watch(const WatchRequest& request, std::shared_ptr<WatchSink> sink) {
  std::unique_lock lock(m_mutex);
  if (!m_ready) return std::unexpected(cache_error(storage::ErrorCode::unavailable, "the watch cache is not ready"));
  auto watcher = std::make_unique<Watcher>();
  watcher->request = request;
  watcher->sink = std::move(sink);
  if (request.mode == StartMode::current_state) {
    if (request.consistent)
      if (auto fresh = wait_fresh(lock); !fresh) return std::unexpected(fresh.error());
    for_each_match_locked(request.filter, [&](const ObjectPtr& object) {
      watcher->sink->send(std::make_shared<WatchEvent>(EventType::added, object, object->revision));
    });
    watcher->start_after = m_revision;
    if (request.initial_events_end) watcher->sink->send(bookmark_locked(true));
  } else if (request.consistent) {  // changes only, after the store's current revision
    if (auto fresh = wait_fresh(lock); !fresh) return std::unexpected(fresh.error());
    watcher->start_after = m_revision;
  } else if (request.revision < m_window_start) {
    return std::unexpected(cache_error(storage::ErrorCode::compacted,
                                       "too old resource version: " + std::to_string(request.revision) + " (" +
                                           std::to_string(m_window_start + 1) + ")",
                                       m_window_start + 1));
  } else {
    watcher->start_after = request.revision;
    for (auto& entry : m_window)
      if (EventPtr out = event_for_locked(*entry, *watcher)) watcher->sink->send(out);
    watcher->start_after = std::max(request.revision, m_revision);
  }
  watcher->sink->flush();
  const auto start = now();
  watcher->next_bookmark = std::min(start + m_options.bookmark_interval,
                                    request.deadline - k_bookmark_before_deadline);
  const WatcherId id = m_next_id++;
  watcher->id = id;
  add_watcher_locked(id, std::move(watcher));
  return id;
}

void WatchCache::stop_watch(WatcherId id) {
  std::lock_guard lock(m_mutex);
  auto found = m_watchers.find(id);
  if (found == m_watchers.end()) return;
  found->second->sink->close("");
  erase_watcher_locked(found);
}

void WatchCache::tick() {
  std::lock_guard lock(m_mutex);
  if (!m_blocked.empty()) service_blocked_locked();
  trim_history_locked();  // history ages out even when no event comes
  lean_history_locked();
  sweep_store_locked();
  drop_stale_offers();
  const auto at = now();
  EventPtr bookmark;
  for (auto it = m_watchers.begin(); it != m_watchers.end();) {
    Watcher& w = *it->second;
    if (w.sink->closed()) {
      it = erase_watcher_locked(it);
      continue;
    }
    if (at >= w.request.deadline) {
      w.sink->close("");
      it = erase_watcher_locked(it);
      continue;
    }
    if (lagging(w)) {
      it = terminate_locked(it);
      continue;
    }
    if (w.request.allow_bookmarks && at >= w.next_bookmark && w.pending.empty()) {
      if (!bookmark) bookmark = bookmark_locked(false);
      if (w.sink->try_send(bookmark)) w.sink->flush();
      const auto final_bookmark = w.request.deadline - k_bookmark_before_deadline;
      w.next_bookmark = at + m_options.bookmark_interval;
      if (at < final_bookmark && w.next_bookmark > final_bookmark) w.next_bookmark = final_bookmark;
      if (at >= final_bookmark) w.next_bookmark = w.request.deadline;
    }
    ++it;
  }
}

}  // namespace kw::cache
