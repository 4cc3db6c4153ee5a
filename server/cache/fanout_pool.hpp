#pragma once
// Splits one dispatch round of the watch cache over a few threads. A round's work is cut
// into shards by watcher (every event of one watcher stays on one thread, in order); the
// calling thread runs shard 0 and helper threads the others, and run() returns once all
// shards are done. The helpers start on the first round that asks for them.
//
// Sending an event is mostly kernel work per connection (one gathered write each over
// HTTP/1.1), so with thousands of watchers a single dispatching thread is the limit.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kw::cache {

class FanoutPool {
 public:
  // `shards` >= 1: the calling thread plus shards - 1 helpers.
  explicit FanoutPool(int shards);
  ~FanoutPool();
  FanoutPool(const FanoutPool&) = delete;
  FanoutPool& operator=(const FanoutPool&) = delete;

  int shards() const { return m_shards; }
  // Calls job(shard) for every shard in [0, shards()) at once and waits for all of them.
  // One round at a time: run() is called by one thread (the cache's dispatch).
  void run(const std::function<void(int shard)>& job);

 private:
  void helper_loop(int shard);

  const int m_shards;
  std::mutex m_round_mutex;  // guards the fields below
  std::condition_variable m_round_started;
  std::condition_variable m_round_done;
  const std::function<void(int)>* m_job = nullptr;
  std::uint64_t m_round = 0;
  int m_running = 0;  // helpers still on the current round
  bool m_stopping = false;
  std::vector<std::thread> m_helpers;
};

}  // namespace kw::cache
