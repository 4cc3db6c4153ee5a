#include "server/registry/informer.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "core/util/backoff.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {
namespace {

// How long a starting informer waits for a cache that cannot serve it yet.
constexpr auto k_start_patience = std::chrono::seconds(60);

}  // namespace

// What the informer and its sinks share. `mutex` guards everything here and in the sinks:
// handlers run one at a time under it, and never again once `stopped` is set.
struct Informer::Feed {
  InformerHandlers handlers;
  std::mutex mutex;
  std::condition_variable wake;  // the current watch closed, or the informer stops
  bool stopped = false;
  bool watch_closed = false;
  std::uint64_t current = 0;  // the sink of the current watch; older ones are ignored

  // Until the state a watch started with has been handed over whole (`replace`), events are
  // folded into `pending`; after that each goes to `change`.
  class Sink final : public cache::WatchSink {
   public:
    Sink(std::shared_ptr<Feed> feed, std::uint64_t id) : m_feed(std::move(feed)), m_id(id) {}
    bool try_send(const cache::EventPtr& event) override {
      take(event);
      return true;
    }
    void send(const cache::EventPtr& event) override { take(event); }
    bool writable() const override { return true; }
    void flush() override {}
    void close(const std::string&) override {
      std::lock_guard lock(m_feed->mutex);
      close_locked();
    }
    void abort(const std::string& reason) override { close(reason); }
    // Events are taken in the dispatching thread itself: nothing ever waits.
    std::chrono::steady_clock::duration lag() override { return {}; }
    bool closed() const override {
      std::lock_guard lock(m_feed->mutex);
      return m_closed || m_feed->stopped;
    }
    void go_live() {
      std::lock_guard lock(m_feed->mutex);
      if (m_feed->stopped || m_closed) return;
      std::vector<cache::ObjectPtr> state;
      state.reserve(m_pending.size());
      for (auto& [key, object] : m_pending) state.push_back(std::move(object));
      m_pending.clear();
      m_feed->handlers.replace(state);
      m_live = true;
    }

   private:
    void close_locked() {
      if (m_closed) return;
      m_closed = true;
      if (m_id != m_feed->current) return;
      m_feed->watch_closed = true;
      m_feed->wake.notify_all();
    }
    void take(const cache::EventPtr& event) {
      const auto type = event->type();
      if (type == cache::EventType::bookmark) return;
      std::lock_guard lock(m_feed->mutex);
      if (m_feed->stopped || m_closed) return;
      if (type == cache::EventType::error || !event->object()) return close_locked();
      if (m_live) {
        m_feed->handlers.change(type, event->object());
      } else if (type == cache::EventType::deleted) {
        m_pending.erase(event->object()->key);
      } else {
        m_pending[event->object()->key] = event->object();
      }
    }

    std::shared_ptr<Feed> m_feed;
    std::uint64_t m_id;
    bool m_closed = false;  // guarded by m_feed->mutex, as are the two below
    bool m_live = false;
    std::map<std::string, cache::ObjectPtr> m_pending;
  };
};

Informer::Informer(Registry& registry, api::ResourceInfo info, std::shared_ptr<Feed> feed)
    : m_registry(registry), m_info(std::move(info)), m_feed(std::move(feed)) {}

ApiResult<std::unique_ptr<Informer>> Informer::start(Registry& registry, const api::ResourceInfo& info,
                                                     InformerHandlers handlers) {
  auto feed = std::make_shared<Feed>();
  feed->handlers = std::move(handlers);
  std::unique_ptr<Informer> informer(new Informer(registry, info, std::move(feed)));
  // A cache that is relisting (429) or still catching up (5xx) is waited for, with a bound: a
  // server starting while others write must not give up on its first read.
  const auto give_up = std::chrono::steady_clock::now() + k_start_patience;
  util::Backoff backoff(std::chrono::milliseconds(100), std::chrono::seconds(2));
  for (;;) {
    auto watched = informer->watch_once();
    if (watched) break;
    const int code = watched.error().code;
    if ((code != 429 && code < 500) || std::chrono::steady_clock::now() + backoff.peek() > give_up)
      return std::unexpected(watched.error());
    std::this_thread::sleep_for(backoff.next());
  }
  informer->m_restarter = std::thread([self = informer.get()] { self->restart_loop(); });
  return informer;
}

ApiResult<void> Informer::watch_once() {
  std::shared_ptr<Feed::Sink> sink;
  {
    std::lock_guard lock(m_feed->mutex);
    sink = std::make_shared<Feed::Sink>(m_feed, ++m_feed->current);
    m_feed->watch_closed = false;
  }
  // The cache's current state, as a client-go reflector's first list (resourceVersion 0)
  // takes it: no wait for the cache to catch up with storage, the events that follow do.
  WatchRequest request;
  request.resource_version = "0";
  request.deadline = std::chrono::steady_clock::time_point::max();  // until closed
  auto started = m_registry.watch(m_info, request, [&] { return sink; });
  if (!started) return started;
  sink->go_live();
  return {};
}

void Informer::restart_loop() {
  util::Backoff backoff(std::chrono::milliseconds(100), std::chrono::seconds(5));
  std::unique_lock lock(m_feed->mutex);
  while (true) {
    m_feed->wake.wait(lock, [&] { return m_feed->stopped || m_feed->watch_closed; });
    if (m_feed->stopped) return;
    lock.unlock();
    const bool watched = watch_once().has_value();
    lock.lock();
    if (watched) {
      backoff.reset();
      continue;
    }
    // The cache is relisting (429) or the resource is gone: try again shortly.
    m_feed->watch_closed = true;
    m_feed->wake.wait_for(lock, backoff.next(), [&] { return m_feed->stopped; });
  }
}

Informer::~Informer() {
  {
    std::lock_guard lock(m_feed->mutex);
    m_feed->stopped = true;  // the cache drops the sink at its next tick
    m_feed->wake.notify_all();
  }
  if (m_restarter.joinable()) m_restarter.join();
}

}  // namespace kw::registry
