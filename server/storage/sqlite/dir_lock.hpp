#pragma once
// An exclusive, process-lifetime lock on a data dir (flock on <dir>/kw.lock).
#include <string>

#include "server/storage/backend.hpp"

namespace kw::storage::sqlite {

class DirLock {
 public:
  // Locks <dir>/kw.lock and records this process id in it.
  static Result<DirLock> acquire(const std::string& dir);
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

 private:
  explicit DirLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

}  // namespace kw::storage::sqlite
