// The server transport (core/net/server) on arbitrary bytes from a TCP peer: HTTP/1.1 request
// parsing under kw's limits, keep-alive, chunked bodies, the WebSocket upgrade and the frames
// that follow it, and HTTP/2 with prior knowledge when the input opens with its preface. The
// input is one connection's bytes; the harness sends them, half-closes and reads until the
// server closes. Nothing may crash; the sanitizers watch the server's threads.
//
// kw's HTTP/1.1 parser (Beast's, with kw's limits and checks around it) and its WebSocket
// session have no entry point without a connection, so the whole transport is the unit.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "core/net/server/http_server.hpp"

namespace {

using namespace std::chrono_literals;
namespace net = kw::net;

// Echoes what it was asked as the transports would carry a real answer: a sized body, a
// chunked stream of two writes, or two WebSocket messages.
void handle(net::Request request, std::shared_ptr<net::ResponseStream> stream) {
  const std::string summary = request.method + " " + request.path + "?" + request.query + " " +
                              std::to_string(request.headers.size()) + " " + std::to_string(request.body.size());
  if (request.protocol == net::Protocol::websocket) {
    stream->begin({.status = request.path == "/refuse" ? 403 : 200, .headers = {}, .binary_messages = !request.query.empty()});
    stream->write(summary);
    stream->write(std::string(200, 'x'));
    stream->finish();
    return;
  }
  if (request.path.starts_with("/stream")) {
    stream->begin({.status = 200, .headers = {{"content-type", "text/plain"}}});
    stream->write(summary);
    stream->flush();
    stream->write(std::string(100, 'y'));
    stream->finish();
    return;
  }
  stream->begin({.status = 200, .headers = {{"content-type", "text/plain"}, {"content-length", std::to_string(summary.size())}}});
  stream->write(summary);
  stream->finish();
}

std::uint16_t server_port() {
  static const std::unique_ptr<net::HttpServer> server = [] {
    net::ServerConfig config;
    config.io_threads = 1;
    config.worker_threads = 1;
    config.max_worker_threads = 4;
    // Limits small enough for the fuzzer's inputs to cross them.
    config.max_body_bytes = 4096;
    config.max_header_bytes = 8192;
    config.max_url_bytes = 2048;
    config.idle_timeout = 5s;
    config.read_header_timeout = 2s;
    config.read_body_timeout = 2s;
    config.write_stall_timeout = 2s;
    auto started = net::start_http_server(config, handle);
    if (!started) std::abort();
    return std::move(*started);
  }();
  return server->port();
}

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) std::abort();
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 && errno != EINPROGRESS)
    std::abort();
  return fd;
}

// Sends `input`, half-closes, and reads until the server closes the connection; a server
// that keeps it open longer than `patience` is left (its idle timeout closes it later).
void exchange(int fd, std::string_view input, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  bool sent = false;
  char buffer[16384];
  while (std::chrono::steady_clock::now() < deadline) {
    if (!sent && input.empty()) {
      ::shutdown(fd, SHUT_WR);
      sent = true;
    }
    pollfd events{.fd = fd, .events = static_cast<short>(POLLIN | (sent ? 0 : POLLOUT)), .revents = 0};
    if (::poll(&events, 1, 50) < 0) return;
    if (events.revents & POLLIN) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return;
    } else if (events.revents & (POLLERR | POLLHUP)) {
      return;
    }
    if (!sent && (events.revents & POLLOUT)) {
      const ssize_t n = ::send(fd, input.data(), input.size(), MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return;
      if (n > 0) input.remove_prefix(static_cast<std::size_t>(n));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = connect_to(server_port());
  exchange(fd, std::string_view(reinterpret_cast<const char*>(data), size), 3s);
  ::close(fd);
  return 0;
}
