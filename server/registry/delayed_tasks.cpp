#include "server/registry/delayed_tasks.hpp"

namespace kw::registry {

DelayedTasks::DelayedTasks() : m_thread([this] { loop(); }) {}

DelayedTasks::~DelayedTasks() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void DelayedTasks::run_after(std::chrono::milliseconds delay, std::function<void()> task) {
  {
    std::lock_guard lock(m_mutex);
    m_due.emplace(Clock::now() + delay, std::move(task));
  }
  m_wake.notify_all();
}

void DelayedTasks::loop() {
  std::unique_lock lock(m_mutex);
  while (!m_stopping) {
    if (m_due.empty()) {
      m_wake.wait(lock);
      continue;
    }
    const auto next = m_due.begin()->first;
    if (Clock::now() < next) {
      m_wake.wait_until(lock, next);
      continue;
    }
    auto task = std::move(m_due.begin()->second);
    m_due.erase(m_due.begin());
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace kw::registry
