#pragma once
// Internal to core/net: a movable, type-erased byte stream over a TCP socket or a TLS stream,
// shared by the server and the client transports. It satisfies Asio's AsyncReadStream and
// AsyncWriteStream (and Beast's teardown points), so Beast and asio::async_write run on it
// while Beast is compiled once per protocol instead of once per socket type. Completions run
// on the stream's executor.
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/system/error_code.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kw::net::detail {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;
using IoCallback = std::move_only_function<void(ErrorCode, std::size_t)>;
using DoneCallback = std::move_only_function<void(ErrorCode)>;

// One concrete socket kind (plain TCP or TLS). All calls on the stream's executor.
class ByteStreamImpl {
 public:
  virtual ~ByteStreamImpl() = default;
  virtual void read_some(asio::mutable_buffer buffer, IoCallback callback) = 0;
  virtual void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) = 0;
  // Graceful end (TLS close_notify where the side sends one, TCP shutdown, then close);
  // the callback runs later, never inside the call.
  virtual void shutdown(DoneCallback callback) = 0;
  // Immediate close; pending operations complete with operation_aborted.
  virtual void close() = 0;
  // Half-close: no more bytes will be sent (TCP FIN); reading stays possible.
  virtual void shutdown_send() {}
  // The socket descriptor when bytes written to it reach the peer as they are (plain TCP),
  // else -1 (TLS). Only for non-blocking writes made while no asynchronous write runs.
  virtual int native_handle() { return -1; }
  // The protocol ALPN settled on; "" without TLS or ALPN.
  virtual std::string alpn() const { return {}; }
};

// What a side knows about its peer; the client keeps nothing.
struct NoPeerInfo {};

template <class Executor, class PeerInfo = NoPeerInfo>
class BasicByteStream {
 public:
  using executor_type = Executor;

  BasicByteStream(Executor executor, std::unique_ptr<ByteStreamImpl> impl, PeerInfo peer = {})
      : m_executor(std::move(executor)), m_impl(std::move(impl)), m_peer(std::move(peer)) {}

  executor_type get_executor() const noexcept { return m_executor; }
  const PeerInfo& peer() const { return m_peer; }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    return asio::async_initiate<Token, void(ErrorCode, std::size_t)>(
        [this](auto handler, asio::mutable_buffer buffer) {
          m_impl->read_some(buffer, IoCallback(std::move(handler)));
        },
        token, first_buffer(buffers));
  }

  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    std::vector<asio::const_buffer> list;
    for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
      asio::const_buffer b(*it);
      if (b.size() > 0) list.push_back(b);
      if (list.size() == k_max_gather) break;
    }
    return asio::async_initiate<Token, void(ErrorCode, std::size_t)>(
        [this](auto handler, std::vector<asio::const_buffer> list) {
          m_impl->write_some(std::move(list), IoCallback(std::move(handler)));
        },
        token, std::move(list));
  }

  template <class Token>
  auto async_shutdown(Token&& token) {
    return asio::async_initiate<Token, void(ErrorCode)>(
        [this](auto handler) { m_impl->shutdown(DoneCallback(std::move(handler))); }, token);
  }

  void shutdown_send() { m_impl->shutdown_send(); }
  void close() { m_impl->close(); }
  int native_handle() { return m_impl->native_handle(); }
  std::string alpn() const { return m_impl->alpn(); }

 private:
  static constexpr std::size_t k_max_gather = 64;

  template <class MutableBuffers>
  static asio::mutable_buffer first_buffer(const MutableBuffers& buffers) {
    for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
      asio::mutable_buffer b(*it);
      if (b.size() > 0) return b;
    }
    return {};
  }

  Executor m_executor;
  std::unique_ptr<ByteStreamImpl> m_impl;
  [[no_unique_address]] PeerInfo m_peer;
};

// Teardown customisation points Beast's WebSocket stream looks up for its next layer.
template <class Executor, class PeerInfo>
void teardown(boost::beast::role_type, BasicByteStream<Executor, PeerInfo>& stream, ErrorCode& ec) {
  stream.close();
  ec = {};
}

template <class Executor, class PeerInfo, class Handler>
void async_teardown(boost::beast::role_type, BasicByteStream<Executor, PeerInfo>& stream, Handler&& handler) {
  stream.async_shutdown(std::forward<Handler>(handler));
}

template <class Executor, class PeerInfo>
void beast_close_socket(BasicByteStream<Executor, PeerInfo>& stream) {
  stream.close();
}

}  // namespace kw::net::detail
