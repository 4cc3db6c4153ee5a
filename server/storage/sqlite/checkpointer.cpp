#include "server/storage/sqlite/checkpointer.hpp"

namespace kw::storage::sqlite {

Checkpointer::Checkpointer(std::string path, std::chrono::milliseconds busy_timeout, std::chrono::milliseconds interval)
    : m_path(std::move(path)), m_busy_timeout(busy_timeout), m_interval(interval), m_thread([this] { run(); }) {}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_wake.notify_one();
  }
  m_thread.join();
}

void Checkpointer::nudge() {
  std::lock_guard lock(m_mutex);
  m_nudged = true;
  m_wake.notify_one();
}

std::uint64_t Checkpointer::rounds() const {
  std::lock_guard lock(m_mutex);
  return m_rounds;
}

void Checkpointer::run() {
  std::unique_ptr<Database> db;
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_wake.wait_for(lock, m_interval, [this] { return m_stopping || m_nudged; });
    if (m_stopping) return;
    m_nudged = false;
    lock.unlock();
    if (!db) {
      auto opened = Database::open(m_path, m_busy_timeout);
      if (opened) db = std::move(*opened);
    }
    // A failed round (busy, I/O) is retried at the next one; the WAL keeps every frame meanwhile.
    const bool ran = db && db->checkpoint_passive().has_value();
    lock.lock();
    if (ran) ++m_rounds;
  }
}

}  // namespace kw::storage::sqlite
