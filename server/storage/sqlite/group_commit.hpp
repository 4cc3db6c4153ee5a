#pragma once
// Group commit for the embedded store (private to this folder).
//
// Writers submit() a WriteRequest and block; one committer thread takes everything queued
// (up to a batch limit), hands it to the apply function in queue order, and only when that
// function returns (after its single durable COMMIT) wakes each writer with its own result.
// The apply function runs on the committer thread only, so it needs no lock of its own
// against other batches.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "server/storage/backend.hpp"

namespace kw::storage::sqlite {

enum class WriteKind { create, update, remove };

struct WriteRequest {
  WriteKind kind = WriteKind::create;
  std::string key;
  std::string value;                 // create/update
  std::int64_t expires_at = 0;       // create: TTL deadline in unix ms, 0 = none
  std::optional<Revision> expected;  // update: required; remove: optional guard
};

// One queued write and, once its batch is applied, its outcome.
struct PendingWrite {
  WriteRequest request;
  std::optional<Result<WriteResult>> result;  // set by the apply function
  bool done = false;                          // guarded by the committer's mutex
};

struct GroupCommitLimits {
  std::size_t max_writes = 1024;             // writes per batch
  std::size_t max_bytes = 16 * 1024 * 1024;  // key+value bytes per batch (a larger single write still goes alone)
  // Longest wait for writers expected back before a batch starts (see GroupCommitter::run).
  std::chrono::microseconds max_linger{2000};
};

class GroupCommitter {
 public:
  // Applies a batch in order and sets every write's result. Runs on the committer thread.
  using ApplyFn = std::function<void(std::span<PendingWrite*> batch)>;

  explicit GroupCommitter(ApplyFn apply, GroupCommitLimits limits = {});
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;
  // Applies whatever is still queued, then stops the committer thread.
  ~GroupCommitter();

  // Queues one write and waits for the result of its batch.
  Result<WriteResult> submit(WriteRequest request);
  // Queues several writes back to back (in this order, possibly in one batch) and waits for all.
  std::vector<Result<WriteResult>> submit_all(std::vector<WriteRequest> requests);

  // Batches applied so far (for tests and metrics).
  std::uint64_t batches() const;

 private:
  void run();
  // Waits (bounded) until the writers of the last round are queued again.
  void linger_locked(std::unique_lock<std::mutex>& lock);
  std::vector<PendingWrite*> take_batch_locked();

  ApplyFn m_apply;
  GroupCommitLimits m_limits;
  // Guards the fields below. Never held while the apply function runs.
  mutable std::mutex m_mutex;
  std::condition_variable m_queued;  // the committer waits for writes here
  std::condition_variable m_done;    // writers wait for their results here
  std::deque<PendingWrite*> m_queue;
  std::uint64_t m_batches = 0;
  // Writers seen in the last round: its batch plus those that queued while it was applied.
  std::size_t m_active = 0;
  std::chrono::steady_clock::duration m_last_apply{};
  bool m_stopping = false;
  std::thread m_thread;  // last: starts once everything above is built
};

}  // namespace kw::storage::sqlite
