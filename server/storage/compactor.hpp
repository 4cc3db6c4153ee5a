#pragma once
// Periodic compaction of storage history, as kube-apiserver does it: every interval, the
// revision seen one interval ago is compacted. Several servers on one etcd coordinate
// through a compare-and-swap on one key, so only one of them compacts per interval.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/storage/backend.hpp"

namespace kw::storage {

class Compactor {
 public:
  // Starts the compaction thread; interval 0 starts nothing.
  Compactor(Backend& backend, std::chrono::seconds interval, std::string key = "compact_rev_key");
  ~Compactor();  // stops the thread
  Compactor(const Compactor&) = delete;
  Compactor& operator=(const Compactor&) = delete;

  // One round: claims the interval and compacts the revision remembered from the last
  // round. Returns the revision compacted (0 when none: first round, or another server won).
  Result<Revision> tick();

 private:
  Backend& m_backend;
  std::string m_key;
  Revision m_last_seen = 0;       // current revision at the previous round
  Revision m_claim_revision = 0;  // mod revision of m_key when we last read it
  std::mutex m_mutex;             // guards m_stop
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace kw::storage
