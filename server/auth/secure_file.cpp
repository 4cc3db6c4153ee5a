#include "server/auth/secure_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/base64.hpp"

#include <openssl/evp.h>

namespace kw::auth {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Closes the descriptor and removes the temporary file unless released.
class TempFile {
 public:
  TempFile(std::string path, int fd) : m_path(std::move(path)), m_fd(fd) {}
  ~TempFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_kept) ::unlink(m_path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return m_fd; }
  Result<void> close() {
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) return fail("cannot write " + m_path + ": " + errno_text());
    return {};
  }
  void keep() { m_kept = true; }

 private:
  std::string m_path;
  int m_fd = -1;
  bool m_kept = false;
};

Result<void> write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write " + path + ": " + errno_text());
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("cannot write " + path + ": " + errno_text());
  return {};
}

}  // namespace

Result<void> write_file_atomic(const std::string& path, const std::string& content, mode_t mode) {
  const std::string temp_path = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return fail("cannot create " + temp_path + ": " + errno_text());
  TempFile temp(temp_path, fd);
  // open() applies the umask; set the bits exactly.
  if (::fchmod(fd, mode) != 0) return fail("cannot set the mode of " + temp_path + ": " + errno_text());
  if (auto written = write_all(fd, content, temp_path); !written) return written;
  if (auto closed = temp.close(); !closed) return closed;
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    return fail("cannot replace " + path + ": " + errno_text());
  }
  temp.keep();
  return {};
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path + ": " + errno_text());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail("cannot read " + path);
  return text.str();
}

Result<void> ensure_private_dir(const std::string& dir, mode_t mode) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return fail("cannot create the directory " + dir + ": " + error.message());
  if (::chmod(dir.c_str(), mode) != 0) return fail("cannot set the mode of " + dir + ": " + errno_text());
  return {};
}

std::string base64_encode(const std::string& bytes) { return util::base64_encode(bytes); }

}  // namespace kw::auth
