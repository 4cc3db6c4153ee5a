#include "server/storage/compactor.hpp"

#include <iostream>

namespace kw::storage {

Compactor::Compactor(Backend& backend, std::chrono::seconds interval, std::string key)
    : m_backend(backend), m_key(std::move(key)) {
  if (interval.count() <= 0) return;
  m_thread = std::thread([this, interval] {
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, interval, [this] { return m_stop; })) {
      lock.unlock();
      if (auto done = tick(); !done)
        std::cerr << "kw: compaction skipped: " << done.error().message << "\n";
      lock.lock();
    }
  });
}

Compactor::~Compactor() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

Result<Revision> Compactor::tick() {
  auto current = m_backend.current_revision();
  if (!current) return std::unexpected(current.error());
  // Claim this round: the key's mod revision must still be what we saw last round. A server
  // that lost the race (another one wrote the key) adopts the new value and waits a round.
  auto claimed = m_claim_revision == 0 ? m_backend.create(m_key, std::to_string(*current))
                                       : m_backend.update(m_key, std::to_string(*current), m_claim_revision);
  const Revision to_compact = m_last_seen;
  m_last_seen = *current;
  if (!claimed) {
    if (claimed.error().code != ErrorCode::exists && claimed.error().code != ErrorCode::conflict &&
        claimed.error().code != ErrorCode::not_found)
      return std::unexpected(claimed.error());
    auto seen = m_backend.get(m_key);
    m_claim_revision = seen ? seen->mod_revision : 0;
    return 0;
  }
  m_claim_revision = claimed->revision;
  if (to_compact <= 0) return 0;
  if (auto compacted = m_backend.compact(to_compact); !compacted) {
    if (compacted.error().code == ErrorCode::compacted) return 0;  // already done by someone
    return std::unexpected(compacted.error());
  }
  return to_compact;
}

}  // namespace kw::storage
