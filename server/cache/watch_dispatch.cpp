// WatchCache fan-out: applying a batch of backend events to the window and the store, and
// handing each new entry to the watchers it concerns without ever waiting for one of them.
#include <algorithm>
#include <iostream>

#include "server/cache/watch_cache.hpp"
#include "server/cache/watch_cache_parts.hpp"

namespace kw::cache {
namespace {

// Runs of 64 consecutive watchers share a shard: watchers opened together often share a
// connection (HTTP/2 streams), whose queue then stays with one thread.
int shard_of(WatcherId id, int shards) { return static_cast<int>((id >> 6) % static_cast<WatcherId>(shards)); }

// Writes in flight whose decoded objects may wait for their events at once; past this the
// waiting offers are dropped (their events are decoded by the feed as usual).
constexpr std::size_t k_max_offers = 4096;

}  // namespace

void WatchCache::apply_events(std::vector<storage::Event> events) {
  std::unique_lock lock(m_mutex);
  start_ticker_locked();
  std::vector<Entry*> batch;
  for (auto& event : events) {
    const Revision revision = event.kv.mod_revision;
    if (revision <= m_revision) continue;  // already applied (a resumed backend watch)
    m_revision = revision;
    ++m_metrics.events;
    auto entry = std::make_unique<Entry>();
    entry->revision = revision;
    entry->at = now();
    auto found = m_store.find(event.kv.key);
    entry->prev = found == m_store.end() ? nullptr : found->second;
    if (event.type == storage::EventType::put) {
      storage::Result<ObjectPtr> object = take_offer(event.kv.key, revision);
      if (!*object) object = m_options.decode(event.kv);
      if (!object) {
        std::cerr << "kw: skipping unreadable object " << event.kv.key << ": " << object.error().message << "\n";
        continue;
      }
      entry->type = entry->prev ? EventType::modified : EventType::added;
      entry->object = *object;
      entry->bytes = event.kv.value.size();
      if (entry->prev) index_locked(entry->prev, false);
      index_locked(*object, true);
      m_store[event.kv.key] = *object;
    } else {
      if (!entry->prev) continue;
      entry->type = EventType::deleted;
      entry->object = with_revision(entry->prev, revision);
      entry->bytes = entry->prev->protobuf.empty() ? entry->prev->json().size() : entry->prev->protobuf.size();
      index_locked(entry->prev, false);
      m_store.erase(found);
    }
    m_window_bytes += entry->bytes;
    m_window.push_back(std::move(entry));
    batch.push_back(m_window.back().get());
  }
  m_applied = m_revision;
  dispatch_locked(batch);
  trim_history_locked();
  if (!m_blocked.empty()) service_blocked_locked();
  m_advanced.notify_all();
}

void WatchCache::offer(ObjectPtr object) {
  if (!object || object->revision <= m_applied.load()) return;  // its event came first
  std::lock_guard lock(m_offer_mutex);
  // Offers whose events never come (a relist in between) are forgotten in bulk.
  if (m_offers.size() >= k_max_offers) m_offers.clear();
  m_offers[object->key] = std::move(object);
}

ObjectPtr WatchCache::take_offer(const std::string& key, Revision revision) {
  std::lock_guard lock(m_offer_mutex);
  if (m_offers.empty()) return nullptr;
  auto found = m_offers.find(key);
  if (found == m_offers.end() || found->second->revision > revision) return nullptr;
  ObjectPtr object = std::move(found->second);
  m_offers.erase(found);
  return object->revision == revision ? object : nullptr;
}

void WatchCache::drop_stale_offers() {
  const Revision applied = m_applied.load();
  std::lock_guard lock(m_offer_mutex);
  std::erase_if(m_offers, [applied](const auto& offer) { return offer.second->revision <= applied; });
}

void WatchCache::dispatch_locked(const std::vector<Entry*>& entries) {
  std::vector<std::vector<Watcher*>> candidates;
  candidates.reserve(entries.size());
  std::size_t reach = 0;
  for (const Entry* entry : entries) {
    candidates.push_back(candidates_locked(*entry));
    reach += candidates.back().size();
  }
  m_metrics.dispatch_candidates += reach;
  if (reach == 0) return;
  int shards = 1;
  if (m_options.dispatch_threads > 1 && reach >= m_options.parallel_dispatch_min) {
    if (!m_fanout) m_fanout = std::make_unique<FanoutPool>(m_options.dispatch_threads);
    shards = m_fanout->shards();
    for (Entry* entry : entries) prepare_variants_locked(*entry);
  }
  struct ShardResult {
    std::vector<Watcher*> touched;  // got events: flushed once at the end of the round
    std::vector<Watcher*> blocked;  // became blocked: joins m_blocked after the round
  };
  std::vector<ShardResult> results(static_cast<std::size_t>(shards));
  auto job = [&](int shard) {
    ShardResult& out = results[static_cast<std::size_t>(shard)];
    for (std::size_t i = 0; i < entries.size(); ++i)
      for (Watcher* watcher : candidates[i]) {
        if (shards > 1 && shard_of(watcher->id, shards) != shard) continue;
        EventPtr event = event_for_locked(*entries[i], *watcher);
        if (!event) continue;
        if (!watcher->touched) {
          watcher->touched = true;
          out.touched.push_back(watcher);
        }
        if (deliver_locked(*watcher, std::move(event))) out.blocked.push_back(watcher);
      }
    // One flush per watcher per batch: a backlog goes out together.
    for (Watcher* watcher : out.touched) {
      watcher->touched = false;
      if (!watcher->sink->closed()) watcher->sink->flush();
    }
  };
  if (shards > 1) m_fanout->run(job);
  else job(0);
  for (const ShardResult& result : results)
    for (Watcher* watcher : result.blocked) {
      if (m_blocked.empty()) m_ticker_wake.notify_all();
      m_blocked.insert(watcher);
    }
}

bool WatchCache::deliver_locked(Watcher& watcher, EventPtr event) {
  bool newly_blocked = false;
  if (watcher.pending.empty()) {
    if (watcher.sink->try_send(event)) return false;
    watcher.blocked_since = now();
    newly_blocked = true;
  }
  watcher.pending.push_back(std::move(event));
  return newly_blocked;
}

void WatchCache::service_blocked_locked() {
  const auto at = now();
  std::vector<WatcherId> expired;
  for (auto it = m_blocked.begin(); it != m_blocked.end();) {
    Watcher& w = **it;
    const std::size_t head = w.pending_head;
    const bool lags = lagging(w);  // nothing more is queued behind an old backlog
    while (!lags && w.pending_head < w.pending.size() && w.sink->try_send(w.pending[w.pending_head])) ++w.pending_head;
    if (w.pending_head != head) w.sink->flush();  // what the sink took goes out now
    if (w.pending_head == w.pending.size()) {
      std::vector<EventPtr>().swap(w.pending);
      w.pending_head = 0;
      it = m_blocked.erase(it);
      continue;
    }
    if (w.sink->closed() || at - w.blocked_since >= m_options.slow_budget ||
        w.pending.size() - w.pending_head > m_options.max_held_events || lags)
      expired.push_back(w.id);
    ++it;
  }
  for (WatcherId id : expired) {
    auto found = m_watchers.find(id);
    if (found != m_watchers.end()) terminate_locked(found);
  }
}

bool WatchCache::lagging(Watcher& watcher) const { return watcher.sink->lag() > m_options.max_lag; }

std::map<WatcherId, std::unique_ptr<WatchCache::Watcher>>::iterator WatchCache::terminate_locked(
    std::map<WatcherId, std::unique_ptr<Watcher>>::iterator it) {
  WatchSink& sink = *it->second->sink;
  if (!sink.closed()) {
    sink.abort("watcher too slow: its client did not keep up");
    ++m_metrics.terminated_watchers;
  }
  return erase_watcher_locked(it);
}

std::vector<WatchCache::Watcher*> WatchCache::candidates_locked(const Entry& entry) {
  if (m_unindexed_list_stale) {
    m_unindexed_list.assign(m_unindexed_watchers.begin(), m_unindexed_watchers.end());
    m_unindexed_list_stale = false;
  }
  std::vector<Watcher*> out(m_unindexed_list);
  if (!m_named_watchers.empty())  // an object keeps its name: one bucket
    if (auto named = m_named_watchers.find(entry.object->name); named != m_named_watchers.end())
      out.insert(out.end(), named->second.begin(), named->second.end());
  if (m_indexed_watchers.empty()) return out;
  auto add = [&](const std::string& value) {
    auto bucket = m_indexed_watchers.find(value);
    if (bucket != m_indexed_watchers.end()) out.insert(out.end(), bucket->second.begin(), bucket->second.end());
  };
  const std::string now = index_value(*entry.object);
  add(now);
  if (entry.prev)
    if (const std::string before = index_value(*entry.prev); before != now) add(before);
  return out;
}

EventPtr WatchCache::event_for_locked(Entry& entry, const Watcher& watcher) {
  if (entry.revision <= watcher.start_after) return nullptr;
  const WatchFilter& filter = watcher.request.filter;
  const bool was = entry.prev && filter.passes(*entry.prev);
  const bool is = entry.type != EventType::deleted && filter.passes(*entry.object);
  auto make = [&](EventPtr& slot, EventType type, ObjectPtr object) {
    if (!slot) slot = std::make_shared<WatchEvent>(type, std::move(object), entry.revision);
    return slot;
  };
  switch (entry.type) {
    case EventType::added:
      return is ? make(entry.as_is, EventType::added, entry.object) : nullptr;
    case EventType::deleted:
      return was ? make(entry.as_is, EventType::deleted, entry.object) : nullptr;
    default:
      if (is && was) return make(entry.as_is, EventType::modified, entry.object);
      if (is) return make(entry.as_added, EventType::added, entry.object);
      if (!was) return nullptr;
      if (!entry.as_deleted)  // the previous state at this revision, copied once
        entry.as_deleted = std::make_shared<WatchEvent>(EventType::deleted, with_revision(entry.prev, entry.revision),
                                                        entry.revision);
      return entry.as_deleted;
  }
}

void WatchCache::prepare_variants_locked(Entry& entry) {
  const EventType as_is = entry.type;
  if (!entry.as_is) entry.as_is = std::make_shared<WatchEvent>(as_is, entry.object, entry.revision);
  if (entry.type != EventType::modified) return;
  if (!entry.as_added) entry.as_added = std::make_shared<WatchEvent>(EventType::added, entry.object, entry.revision);
  if (!entry.as_deleted)
    entry.as_deleted = std::make_shared<WatchEvent>(EventType::deleted, with_revision(entry.prev, entry.revision),
                                                    entry.revision);
}

}  // namespace kw::cache
