#pragma once
// Fans committed events out to watchers on one dispatcher thread.
//
// Writers publish() each committed revision in order (under their write lock); the
// dispatcher thread runs every callback, never under the writers' lock. A new watcher
// is registered by the dispatcher itself: it replays the table up to the last revision
// it has dispatched and then joins the live set, so no event is missed or repeated.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "server/storage/backend.hpp"

namespace kw::storage::sqlite {

// Reads the events of keys under prefix with after < revision <= upto, in revision order.
using ReplayFn = std::function<Result<std::vector<Event>>(const std::string& prefix, Revision after, Revision upto)>;

class WatchHub {
 public:
  WatchHub(ReplayFn replay, Revision start_revision, std::chrono::milliseconds progress_interval);
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;
  // Stops the dispatcher; watchers still open get on_error(unavailable).
  ~WatchHub();

  // Queues the event of one committed revision. Calls must come in revision order.
  void publish(Event event);
  // Queues the events of consecutive committed revisions, in revision order.
  void publish(std::vector<Event> events);
  std::unique_ptr<WatchHandle> add(const std::string& prefix, Revision after_revision, WatchCallbacks callbacks);

  struct Watcher;
  struct Core;

 private:
  std::shared_ptr<Core> m_core;
  std::thread m_thread;
};

}  // namespace kw::storage::sqlite
