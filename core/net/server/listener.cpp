#include "core/net/server/listener.hpp"

#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

#include "core/net/server/tls.hpp"

namespace kw::net::detail {

namespace {

using asio::ip::tcp;

constexpr std::string_view k_h2_preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr auto k_sniff_timeout = std::chrono::seconds(30);

std::string endpoint_text(const tcp::socket& socket) {
  ErrorCode ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

class TcpStreamImpl final : public ByteStreamImpl {
 public:
  explicit TcpStreamImpl(tcp::socket socket) : m_socket(std::move(socket)) {}

  void read_some(asio::mutable_buffer buffer, IoCallback callback) override {
    m_socket.async_read_some(buffer, [callback = std::move(callback)](ErrorCode ec, std::size_t n) mutable {
      callback(ec, n);
    });
  }

  void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) override {
    m_socket.async_write_some(buffers, [callback = std::move(callback)](ErrorCode ec, std::size_t n) mutable {
      callback(ec, n);
    });
  }

  void shutdown(DoneCallback callback) override {
    ErrorCode ec;
    m_socket.shutdown(tcp::socket::shutdown_send, ec);
    m_socket.close(ec);
    asio::post(m_socket.get_executor(), [callback = std::move(callback), ec]() mutable { callback(ec); });
  }

  void shutdown_send() override {
    ErrorCode ec;
    m_socket.shutdown(tcp::socket::shutdown_send, ec);
  }

  void close() override {
    ErrorCode ec;
    m_socket.close(ec);
  }

  int native_handle() override { return m_socket.is_open() ? m_socket.native_handle() : -1; }

 private:
  tcp::socket m_socket;
};

// Reads until the bytes either are the HTTP/2 client preface (h2c with prior knowledge) or
// cannot be; the bytes read are replayed to the chosen protocol.
class PrefaceSniffer : public std::enable_shared_from_this<PrefaceSniffer> {
 public:
  PrefaceSniffer(ServerState& state, ByteStream stream)
      : m_state(state), m_stream(std::move(stream)), m_timer(m_stream.get_executor()) {}

  void start() {
    m_timer.expires_after(k_sniff_timeout);
    m_timer.async_wait([self = shared_from_this()](ErrorCode ec) {
      if (!ec && !self->m_done) self->m_stream.close();
    });
    read_more();
  }

 private:
  void read_more() {
    m_stream.async_read_some(asio::buffer(m_chunk), [self = shared_from_this()](ErrorCode ec, std::size_t n) {
      self->on_read(ec, n);
    });
  }

  void on_read(ErrorCode ec, std::size_t n) {
    if (m_done) return;
    if (ec) {
      m_done = true;
      m_timer.cancel();
      return;  // the stream closes when the last owner goes
    }
    m_seen.append(m_chunk.data(), n);
    const std::size_t common = std::min(m_seen.size(), k_h2_preface.size());
    const bool prefix_matches = std::string_view(m_seen).substr(0, common) == k_h2_preface.substr(0, common);
    if (prefix_matches && m_seen.size() < k_h2_preface.size()) {
      read_more();
      return;
    }
    m_done = true;
    m_timer.cancel();
    if (prefix_matches) {
      start_http2(m_state, std::move(m_stream), std::move(m_seen));
    } else {
      start_http1(m_state, std::move(m_stream), std::move(m_seen));
    }
  }

  ServerState& m_state;
  ByteStream m_stream;
  asio::steady_timer m_timer;
  std::array<char, 4096> m_chunk{};
  std::string m_seen;
  bool m_done = false;
};

}  // namespace

ByteStream make_tcp_stream(tcp::socket socket, Strand strand) {
  PeerInfo peer{.remote_address = endpoint_text(socket), .tls = false, .identity = std::nullopt};
  return ByteStream(std::move(strand), std::make_unique<TcpStreamImpl>(std::move(socket)), std::move(peer));
}

Listener::Listener(ServerState& state, asio::io_context& io)
    : m_state(state), m_io(io), m_strand(asio::make_strand(io)), m_acceptor(m_strand), m_backoff_timer(m_strand) {}

Result<std::shared_ptr<Listener>> Listener::open(ServerState& state, asio::io_context& io) {
  std::shared_ptr<Listener> listener(new Listener(state, io));
  ErrorCode ec;
  const auto address = asio::ip::make_address(state.config.address, ec);
  if (ec) return fail("invalid listen address '" + state.config.address + "': " + ec.message());
  const tcp::endpoint endpoint(address, state.config.port);
  auto& acceptor = listener->m_acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail("cannot listen on " + state.config.address + ":" + std::to_string(state.config.port) + ": " +
                ec.message() + " (is another server using the port?)");
  }
  listener->m_port = acceptor.local_endpoint(ec).port();
  return listener;
}

void Listener::start() {
  asio::post(m_strand, [self = shared_from_this()] { self->accept_next(); });
}

void Listener::close() {
  asio::post(m_strand, [self = shared_from_this()] {
    ErrorCode ec;
    self->m_acceptor.close(ec);
    self->m_backoff_timer.cancel();
  });
}

void Listener::accept_next() {
  if (!m_acceptor.is_open()) return;
  m_acceptor.async_accept(asio::make_strand(m_io), [self = shared_from_this()](ErrorCode ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !self->m_acceptor.is_open()) return;
    if (ec) return self->accept_later();
    self->m_backoff.reset();
    self->on_accept(std::move(socket));
    self->accept_next();
  });
}

void Listener::accept_later() {
  m_backoff_timer.expires_after(m_backoff.next());
  m_backoff_timer.async_wait([self = shared_from_this()](ErrorCode ec) {
    if (!ec) self->accept_next();
  });
}

void Listener::on_accept(tcp::socket socket) {
  if (m_state.shutting_down.load()) return;
  ErrorCode ec;
  socket.set_option(tcp::no_delay(true), ec);
  auto strand = *socket.get_executor().target<Strand>();
  if (m_state.tls != nullptr) {
    start_tls(m_state, std::move(socket), std::move(strand));
    return;
  }
  auto stream = make_tcp_stream(std::move(socket), strand);
  std::make_shared<PrefaceSniffer>(m_state, std::move(stream))->start();
}

}  // namespace kw::net::detail
