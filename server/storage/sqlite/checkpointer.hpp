#pragma once
// Moves WAL frames into the database file on a thread of its own (private to this folder).
//
// The writer connection runs with SQLite's checkpoint-on-commit off, so a commit costs one
// WAL append and one sync, never a checkpoint's copy and database-file sync. The
// checkpointer copies frames with a PASSIVE checkpoint on its own connection, which blocks
// neither readers nor the writer, every interval or sooner when nudged.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/storage/sqlite/database.hpp"

namespace kw::storage::sqlite {

class Checkpointer {
 public:
  // Opens its connection to the database at path on its own thread (retried each round).
  Checkpointer(std::string path, std::chrono::milliseconds busy_timeout, std::chrono::milliseconds interval);
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  ~Checkpointer();

  // Asks for a checkpoint now (the writer calls it when the WAL has grown).
  void nudge();
  // Checkpoints run so far (for tests).
  std::uint64_t rounds() const;

 private:
  void run();

  std::string m_path;
  std::chrono::milliseconds m_busy_timeout;
  std::chrono::milliseconds m_interval;
  mutable std::mutex m_mutex;  // guards the fields below
  std::condition_variable m_wake;
  bool m_nudged = false;
  bool m_stopping = false;
  std::uint64_t m_rounds = 0;
  std::thread m_thread;  // last: starts once everything above is built
};

}  // namespace kw::storage::sqlite
