// The client benchmark's floor: a static program that does nothing but what the harness
// times, opening a TCP connection to HOST:PORT and sending one request. Its start-up figure
// is the part of every client's figure that belongs to the harness (spawning a process, the
// kernel's exec, the proxy's accept), so `kw` minus this is kw's own start-up.
//
//   connect_floor HOST PORT    (HOST is a numeric IPv4 address)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

// Owns one socket descriptor.
class Socket {
 public:
  Socket() : m_fd(::socket(AF_INET, SOCK_STREAM, 0)) {}
  ~Socket() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return m_fd; }

 private:
  int m_fd;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: connect_floor HOST PORT\n");
    return 2;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(std::atoi(argv[2])));
  if (::inet_pton(AF_INET, argv[1], &address.sin_addr) != 1) {
    std::fprintf(stderr, "connect_floor: '%s' is not an IPv4 address\n", argv[1]);
    return 2;
  }
  Socket socket;
  if (socket.fd() < 0 || ::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    std::perror("connect_floor: connect");
    return 1;
  }
  constexpr std::string_view request = "GET /version HTTP/1.1\r\nHost: floor\r\nConnection: close\r\n\r\n";
  if (::send(socket.fd(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    std::perror("connect_floor: send");
    return 1;
  }
  char buffer[4096];
  while (::recv(socket.fd(), buffer, sizeof buffer, 0) > 0) {
  }
  return 0;
}
