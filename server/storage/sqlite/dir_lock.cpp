#include "server/storage/sqlite/dir_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace kw::storage::sqlite {
namespace {

std::string read_small_file(int fd) {
  std::string text(64, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

void write_pid(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
}

}  // namespace

Result<DirLock> DirLock::acquire(const std::string& dir) {
  const std::string path = dir + "/kw.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return std::unexpected(Error{ErrorCode::unavailable, "", 0,
                                 "cannot open lock file " + path + ": " + std::strerror(errno) +
                                     "; check the permissions of the data dir"});
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder = read_small_file(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return std::unexpected(Error{ErrorCode::unavailable, "", 0,
                                   "data dir " + dir + " is in use by another kw serve (pid " +
                                       (holder.empty() ? std::string("unknown") : holder) +
                                       "); stop it or pass a different data dir"});
    }
    return std::unexpected(Error{ErrorCode::unavailable, "", 0,
                                 "cannot lock " + path + ": " + std::strerror(err)});
  }
  write_pid(fd);
  return DirLock(fd);
}

DirLock::DirLock(DirLock&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = other.m_fd;
    other.m_fd = -1;
  }
  return *this;
}

DirLock::~DirLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the descriptor releases the flock
}

}  // namespace kw::storage::sqlite
