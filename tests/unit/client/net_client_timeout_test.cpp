// The HTTP client's bounds against a peer that accepts TCP connections and never answers: the
// TLS handshake is bounded by connect_timeout like the TCP connect.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "core/net/client/client.hpp"

namespace kw::net::client {

namespace {

// A listening socket on 127.0.0.1 that nothing accepts on: the kernel completes the TCP
// handshake, then no byte ever comes back. Closed when it goes.
class SilentListener {
 public:
  SilentListener() : m_fd(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(m_fd, 16) == 0);
    socklen_t length = sizeof address;
    REQUIRE(::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    m_port = ntohs(address.sin_port);
  }
  ~SilentListener() { ::close(m_fd); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  int port() const { return m_port; }

 private:
  int m_fd;
  int m_port = 0;
};

}  // namespace

TEST_CASE("net client: a TLS peer that never answers the handshake times out at connect_timeout") {
  SilentListener silent;
  ClientConfig config;
  config.url = "https://127.0.0.1:" + std::to_string(silent.port());
  config.insecure_skip_tls_verify = true;
  config.connect_timeout = std::chrono::milliseconds(300);
  config.request_timeout = std::chrono::milliseconds(300);
  auto client = Client::create(config);
  REQUIRE(client);
  const auto started = std::chrono::steady_clock::now();
  auto answer = (*client)->request({.method = "GET", .target = "/"});
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(answer);
  CHECK(answer.error().message.find("timed out") != std::string::npos);
  CHECK(took < std::chrono::seconds(5));  // (before the fix: as long as the peer kept the socket)
}

}  // namespace kw::net::client
