#include "server/storage/sqlite/group_commit.hpp"

#include <algorithm>

namespace kw::storage::sqlite {

GroupCommitter::GroupCommitter(ApplyFn apply, GroupCommitLimits limits)
    : m_apply(std::move(apply)), m_limits(limits), m_thread([this] { run(); }) {}

GroupCommitter::~GroupCommitter() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_queued.notify_one();
  }
  m_thread.join();
}

Result<WriteResult> GroupCommitter::submit(WriteRequest request) {
  PendingWrite pending{std::move(request), std::nullopt};
  std::unique_lock lock(m_mutex);
  m_queue.push_back(&pending);
  m_queued.notify_one();
  m_done.wait(lock, [&] { return pending.done; });
  return std::move(*pending.result);
}

std::vector<Result<WriteResult>> GroupCommitter::submit_all(std::vector<WriteRequest> requests) {
  std::vector<PendingWrite> pending;
  pending.reserve(requests.size());
  for (auto& request : requests) pending.push_back(PendingWrite{std::move(request), std::nullopt});
  std::unique_lock lock(m_mutex);
  for (auto& write : pending) m_queue.push_back(&write);
  m_queued.notify_one();
  m_done.wait(lock, [&] { return std::all_of(pending.begin(), pending.end(), [](auto& w) { return w.done; }); });
  std::vector<Result<WriteResult>> results;
  results.reserve(pending.size());
  for (auto& write : pending) results.push_back(std::move(*write.result));
  return results;
}

std::uint64_t GroupCommitter::batches() const {
  std::lock_guard lock(m_mutex);
  return m_batches;
}

std::vector<PendingWrite*> GroupCommitter::take_batch_locked() {
  std::vector<PendingWrite*> batch;
  std::size_t bytes = 0;
  while (!m_queue.empty() && batch.size() < m_limits.max_writes) {
    const WriteRequest& next = m_queue.front()->request;
    const std::size_t size = next.key.size() + next.value.size();
    if (!batch.empty() && bytes + size > m_limits.max_bytes) break;
    bytes += size;
    batch.push_back(m_queue.front());
    m_queue.pop_front();
  }
  return batch;
}

// Closed-loop writers (each waits for its ack, then writes again) split into two groups
// taking turns: one is being applied while the other queues. Each group then gets a commit
// of its own. Waiting a short while for the writers of the round just acknowledged puts
// them all in one commit, which halves the syncs per write. A single writer never waits:
// its round has one writer, already queued.
void GroupCommitter::linger_locked(std::unique_lock<std::mutex>& lock) {
  const std::size_t target = std::min(m_active, m_limits.max_writes);
  if (m_queue.size() >= target) return;
  const auto linger = std::min<std::chrono::steady_clock::duration>(m_limits.max_linger, m_last_apply / 4);
  m_queued.wait_for(lock, linger, [&] { return m_stopping || m_queue.size() >= target; });
}

void GroupCommitter::run() {
  std::unique_lock lock(m_mutex);
  for (;;) {
    m_queued.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
    if (m_queue.empty()) break;  // stopping with nothing left to apply
    linger_locked(lock);
    std::vector<PendingWrite*> batch = take_batch_locked();
    lock.unlock();
    const auto started = std::chrono::steady_clock::now();
    m_apply(std::span<PendingWrite*>(batch));
    const auto applied = std::chrono::steady_clock::now() - started;
    lock.lock();
    m_last_apply = applied;
    m_active = batch.size() + m_queue.size();
    for (PendingWrite* write : batch) {
      if (!write->result) {
        write->result = std::unexpected(
            Error{ErrorCode::unavailable, write->request.key, 0, "the write was not applied; retry it"});
      }
      write->done = true;
    }
    ++m_batches;
    m_done.notify_all();
  }
}

}  // namespace kw::storage::sqlite
