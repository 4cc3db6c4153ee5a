#include "server/storage/sqlite/watch_hub.hpp"

#include <atomic>
#include <string_view>

namespace kw::storage::sqlite {

struct WatchHub::Watcher {
  std::string prefix;
  Revision after = 0;  // deliver only events above this revision
  WatchCallbacks callbacks;
  // Held while a callback runs; the handle's destructor takes it to wait for a running
  // callback. Recursive so a callback may destroy its own handle.
  std::recursive_mutex callback_mutex;
  bool cancelled = false;  // guarded by callback_mutex
  std::atomic<bool> progress_requested{false};
  std::vector<Event> pending;  // dispatcher thread only

  bool matches(const Event& event) const {
    return event.kv.mod_revision > after && std::string_view(event.kv.key).starts_with(prefix);
  }
};

struct WatchHub::Core {
  ReplayFn replay;
  std::chrono::milliseconds progress_interval;
  std::mutex mutex;  // guards the fields below; taken after a backend's write lock
  std::condition_variable wake;
  std::deque<Event> events;
  std::vector<std::shared_ptr<Watcher>> joining;
  bool progress_requested = false;
  bool stopping = false;

  // Dispatcher thread only.
  std::vector<std::shared_ptr<Watcher>> live;
  Revision dispatched = 0;

  void run();
  void dispatch_events(std::deque<Event>& batch);
  void register_watcher(const std::shared_ptr<Watcher>& watcher);
  void send_progress(bool everyone);
  void close_all();
};

namespace {

class HubWatchHandle final : public WatchHandle {
 public:
  HubWatchHandle(std::shared_ptr<WatchHub::Core> core, std::shared_ptr<WatchHub::Watcher> watcher)
      : m_core(std::move(core)), m_watcher(std::move(watcher)) {}
  ~HubWatchHandle() override {
    std::lock_guard lock(m_watcher->callback_mutex);
    m_watcher->cancelled = true;
  }
  void request_progress() override {
    m_watcher->progress_requested = true;
    std::lock_guard lock(m_core->mutex);
    m_core->progress_requested = true;
    m_core->wake.notify_one();
  }

 private:
  std::shared_ptr<WatchHub::Core> m_core;
  std::shared_ptr<WatchHub::Watcher> m_watcher;
};

// Runs fn under the watcher's callback lock unless it was cancelled. Returns false when cancelled.
template <class Fn>
bool with_callbacks(WatchHub::Watcher& watcher, Fn&& fn) {
  std::lock_guard lock(watcher.callback_mutex);
  if (watcher.cancelled) return false;
  fn(watcher.callbacks);
  return true;
}

}  // namespace

WatchHub::WatchHub(ReplayFn replay, Revision start_revision, std::chrono::milliseconds progress_interval)
    : m_core(std::make_shared<Core>()) {
  m_core->replay = std::move(replay);
  m_core->progress_interval = progress_interval;
  m_core->dispatched = start_revision;
  m_thread = std::thread([core = m_core] { core->run(); });
}

WatchHub::~WatchHub() {
  {
    std::lock_guard lock(m_core->mutex);
    m_core->stopping = true;
    m_core->wake.notify_one();
  }
  m_thread.join();
}

void WatchHub::publish(Event event) {
  std::lock_guard lock(m_core->mutex);
  m_core->events.push_back(std::move(event));
  m_core->wake.notify_one();
}

void WatchHub::publish(std::vector<Event> events) {
  std::lock_guard lock(m_core->mutex);
  for (auto& event : events) m_core->events.push_back(std::move(event));
  m_core->wake.notify_one();
}

std::unique_ptr<WatchHandle> WatchHub::add(const std::string& prefix, Revision after_revision,
                                           WatchCallbacks callbacks) {
  auto watcher = std::make_shared<Watcher>();
  watcher->prefix = prefix;
  watcher->after = after_revision;
  watcher->callbacks = std::move(callbacks);
  {
    std::lock_guard lock(m_core->mutex);
    m_core->joining.push_back(watcher);
    m_core->wake.notify_one();
  }
  return std::make_unique<HubWatchHandle>(m_core, std::move(watcher));
}

void WatchHub::Core::run() {
  auto next_progress = std::chrono::steady_clock::now() + progress_interval;
  for (;;) {
    std::deque<Event> batch;
    std::vector<std::shared_ptr<Watcher>> arrivals;
    bool progress_now = false;
    {
      std::unique_lock lock(mutex);
      wake.wait_until(lock, next_progress, [&] {
        return stopping || !events.empty() || !joining.empty() || progress_requested;
      });
      if (stopping) break;
      batch.swap(events);
      arrivals.swap(joining);
      progress_now = progress_requested;
      progress_requested = false;
    }
    dispatch_events(batch);
    for (const auto& watcher : arrivals) register_watcher(watcher);
    if (std::chrono::steady_clock::now() >= next_progress) {
      send_progress(true);
      next_progress = std::chrono::steady_clock::now() + progress_interval;
    } else if (progress_now) {
      send_progress(false);
    }
  }
  close_all();
}

void WatchHub::Core::dispatch_events(std::deque<Event>& batch) {
  if (batch.empty()) return;
  for (auto& event : batch) {
    dispatched = event.kv.mod_revision;
    for (const auto& watcher : live) {
      if (watcher->matches(event)) watcher->pending.push_back(event);
    }
  }
  std::erase_if(live, [](const std::shared_ptr<Watcher>& watcher) {
    if (watcher->pending.empty()) return false;
    std::vector<Event> events = std::move(watcher->pending);
    watcher->pending.clear();
    return !with_callbacks(*watcher, [&](WatchCallbacks& cb) {
      if (cb.on_events) cb.on_events(std::move(events));
    });
  });
}

void WatchHub::Core::register_watcher(const std::shared_ptr<Watcher>& watcher) {
  auto replayed = replay(watcher->prefix, watcher->after, dispatched);
  if (!replayed) {
    with_callbacks(*watcher, [&](WatchCallbacks& cb) {
      if (cb.on_error) cb.on_error(replayed.error());
    });
    return;
  }
  if (!replayed->empty()) {
    const bool open = with_callbacks(*watcher, [&](WatchCallbacks& cb) {
      if (cb.on_events) cb.on_events(std::move(*replayed));
    });
    if (!open) return;
  }
  live.push_back(watcher);
}

void WatchHub::Core::send_progress(bool everyone) {
  std::erase_if(live, [&](const std::shared_ptr<Watcher>& watcher) {
    const bool asked = watcher->progress_requested.exchange(false);
    if (!everyone && !asked) return false;
    return !with_callbacks(*watcher, [&](WatchCallbacks& cb) {
      if (cb.on_progress) cb.on_progress(dispatched);
    });
  });
}

void WatchHub::Core::close_all() {
  for (const auto& watcher : live) {
    with_callbacks(*watcher, [](WatchCallbacks& cb) {
      if (cb.on_error) cb.on_error(Error{ErrorCode::unavailable, "", 0, "the storage backend was closed"});
    });
  }
  live.clear();
}

}  // namespace kw::storage::sqlite
