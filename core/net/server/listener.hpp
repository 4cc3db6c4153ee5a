#pragma once
// Internal to core/net/server: the accept loop and the per-connection protocol choice.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>

#include "core/net/server/server_state.hpp"
#include "core/util/backoff.hpp"
#include "core/util/error.hpp"

namespace kw::net::detail {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  static Result<std::shared_ptr<Listener>> open(ServerState& state, asio::io_context& io);
  std::uint16_t port() const { return m_port; }
  void start();
  void close();  // thread-safe: posted to the acceptor's strand

 private:
  Listener(ServerState& state, asio::io_context& io);
  void accept_next();
  void on_accept(asio::ip::tcp::socket socket);
  // After a failed accept (EMFILE: out of file descriptors...), the next one waits: 5 ms,
  // doubling up to 1 s while they keep failing, as Go's server backs off, instead of spinning.
  void accept_later();

  ServerState& m_state;
  asio::io_context& m_io;
  Strand m_strand;
  asio::ip::tcp::acceptor m_acceptor;
  asio::steady_timer m_backoff_timer;
  util::Backoff m_backoff{std::chrono::milliseconds(5), std::chrono::seconds(1)};  // after a failed accept
  std::uint16_t m_port = 0;
};

// Wraps an accepted plain TCP socket (its executor must be a strand).
ByteStream make_tcp_stream(asio::ip::tcp::socket socket, Strand strand);

}  // namespace kw::net::detail
