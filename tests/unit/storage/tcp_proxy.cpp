#include "unit/storage/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace kw::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::send(fd, data, size, MSG_NOSIGNAL);
    if (written <= 0) return false;
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

}  // namespace

TcpProxy::TcpProxy(int upstream_port) : m_upstream_port(upstream_port) {
  m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof(address);
  if (m_listener < 0 || ::bind(m_listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(m_listener, 64) != 0 || ::getsockname(m_listener, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::pipe(m_wake) != 0) {
    if (m_listener >= 0) ::close(m_listener);
    throw std::runtime_error("cannot set up the test TCP proxy");
  }
  m_port = ntohs(address.sin_port);
  m_thread = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy() {
  const char stop = 1;
  (void)!::write(m_wake[1], &stop, 1);
  m_thread.join();
  for (const Pair& pair : m_pairs) {
    ::close(pair.client);
    ::close(pair.upstream);
  }
  ::close(m_listener);
  ::close(m_wake[0]);
  ::close(m_wake[1]);
}

bool TcpProxy::forward(int from, int to, bool to_client) {
  char buffer[65536];
  const ssize_t got = ::recv(from, buffer, sizeof(buffer), 0);
  if (got <= 0) return false;
  if (to_client) m_to_clients += static_cast<std::uint64_t>(got);
  return write_all(to, buffer, static_cast<std::size_t>(got));
}

void TcpProxy::run() {
  for (;;) {
    const bool frozen = m_frozen.load();
    std::vector<pollfd> fds = {{m_wake[0], POLLIN, 0}, {m_listener, POLLIN, 0}};
    if (!frozen) {
      for (const Pair& pair : m_pairs) {
        fds.push_back({pair.client, POLLIN, 0});
        fds.push_back({pair.upstream, POLLIN, 0});
      }
    }
    // Frozen: wake up now and then only to notice the stop request.
    if (::poll(fds.data(), fds.size(), frozen ? 50 : 20) < 0) continue;
    if (fds[0].revents != 0) return;
    const std::size_t polled = frozen ? 0 : m_pairs.size();  // the pairs fds[2...] belong to
    if (fds[1].revents & POLLIN) {
      const int client = ::accept(m_listener, nullptr, nullptr);
      if (client >= 0) {
        const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
        const sockaddr_in address = loopback(m_upstream_port);
        if (upstream >= 0 && ::connect(upstream, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
          m_pairs.push_back({client, upstream});
        } else {
          if (upstream >= 0) ::close(upstream);
          ::close(client);
        }
      }
    }
    if (frozen || m_frozen.load()) continue;
    std::vector<Pair> alive;
    for (std::size_t i = polled; i < m_pairs.size(); ++i) alive.push_back(m_pairs[i]);  // just accepted
    for (std::size_t i = 0; i < polled; ++i) {
      const Pair& pair = m_pairs[i];
      const short client_events = fds[2 + 2 * i].revents;
      const short upstream_events = fds[3 + 2 * i].revents;
      bool open = true;
      if (client_events & (POLLIN | POLLHUP | POLLERR)) open = forward(pair.client, pair.upstream, false);
      if (open && (upstream_events & (POLLIN | POLLHUP | POLLERR))) open = forward(pair.upstream, pair.client, true);
      if (open) {
        alive.push_back(pair);
      } else {
        ::close(pair.client);
        ::close(pair.upstream);
      }
    }
    m_pairs = std::move(alive);
  }
}

}  // namespace kw::testing
