#include "server/cache/fanout_pool.hpp"

namespace kw::cache {

FanoutPool::FanoutPool(int shards) : m_shards(shards < 1 ? 1 : shards) {}

FanoutPool::~FanoutPool() {
  {
    std::lock_guard lock(m_round_mutex);
    m_stopping = true;
  }
  m_round_started.notify_all();
  for (auto& helper : m_helpers) helper.join();
}

void FanoutPool::run(const std::function<void(int shard)>& job) {
  if (m_shards == 1) {
    job(0);
    return;
  }
  {
    std::lock_guard lock(m_round_mutex);
    if (m_helpers.empty())
      for (int shard = 1; shard < m_shards; ++shard) m_helpers.emplace_back([this, shard] { helper_loop(shard); });
    m_job = &job;
    m_running = m_shards - 1;
    ++m_round;
  }
  m_round_started.notify_all();
  job(0);
  std::unique_lock lock(m_round_mutex);
  m_round_done.wait(lock, [this] { return m_running == 0; });
  m_job = nullptr;
}

void FanoutPool::helper_loop(int shard) {
  std::uint64_t seen = 0;
  std::unique_lock lock(m_round_mutex);
  for (;;) {
    m_round_started.wait(lock, [&] { return m_stopping || m_round != seen; });
    if (m_stopping) return;
    seen = m_round;
    const auto* job = m_job;
    lock.unlock();
    (*job)(shard);
    lock.lock();
    if (--m_running == 0) m_round_done.notify_one();
  }
}

}  // namespace kw::cache
