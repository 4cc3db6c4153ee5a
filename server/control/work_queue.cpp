#include "server/control/work_queue.hpp"

namespace kw::control {

WorkQueue::WorkQueue(Work work, std::chrono::milliseconds retry_delay)
    : m_work(std::move(work)), m_retry_delay(retry_delay), m_worker([this] { run(); }) {}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_worker.join();
}

void WorkQueue::add(const std::string& key) {
  {
    std::lock_guard lock(m_mutex);
    if (!m_queued.insert(key).second) return;
    m_ready.push_back(key);
  }
  m_wake.notify_one();
}

void WorkQueue::run() {
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    const auto now = std::chrono::steady_clock::now();
    while (!m_retries.empty() && m_retries.begin()->first <= now) {
      auto due = m_retries.extract(m_retries.begin());
      if (m_queued.insert(due.mapped()).second) m_ready.push_back(std::move(due.mapped()));
    }
    if (m_ready.empty()) {
      if (m_retries.empty()) m_wake.wait(lock);
      else m_wake.wait_until(lock, m_retries.begin()->first);
      continue;
    }
    std::string key = std::move(m_ready.front());
    m_ready.pop_front();
    m_queued.erase(key);
    lock.unlock();
    const bool done = m_work(key);
    lock.lock();
    if (!done) m_retries.emplace(std::chrono::steady_clock::now() + m_retry_delay, std::move(key));
  }
}

}  // namespace kw::control
