#pragma once
// Internal to core/net/server: a movable, type-erased byte stream over a TCP socket or a TLS
// stream, bound to the connection's strand. It satisfies Asio's AsyncReadStream and
// AsyncWriteStream so Beast and asio::async_write can run on it, while Beast is compiled only
// once per protocol instead of once per socket type. Completions run on the strand.
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/system/error_code.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/net/server/http_server.hpp"

namespace kw::net::detail {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;
using Strand = asio::strand<asio::io_context::executor_type>;
using IoCallback = std::move_only_function<void(ErrorCode, std::size_t)>;
using DoneCallback = std::move_only_function<void(ErrorCode)>;

// What a transport knows about its peer once the connection is set up.
struct PeerInfo {
  std::string remote_address;  // "ip:port"
  bool tls = false;
  std::optional<PeerIdentity> identity;  // verified client certificate
};

// One concrete socket kind (plain TCP or TLS). All calls on the strand.
class ByteStreamImpl {
 public:
  virtual ~ByteStreamImpl() = default;
  virtual void read_some(asio::mutable_buffer buffer, IoCallback callback) = 0;
  virtual void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) = 0;
  // Graceful end: TLS close_notify (bounded in time) and TCP shutdown, then close.
  virtual void shutdown(DoneCallback callback) = 0;
  // Half-close: no more bytes will be sent (TCP FIN); reading stays possible.
  virtual void shutdown_send() = 0;
  // Immediate close; pending operations complete with operation_aborted.
  virtual void close() = 0;
  // The socket descriptor when bytes written to it reach the peer as they are (plain TCP),
  // else -1 (TLS). Only for non-blocking writes made while no asynchronous write runs.
  virtual int native_handle() { return -1; }
};

class ByteStream {
 public:
  using executor_type = Strand;

  ByteStream(Strand strand, std::unique_ptr<ByteStreamImpl> impl, PeerInfo peer)
      : m_strand(std::move(strand)), m_impl(std::move(impl)), m_peer(std::move(peer)) {}

  executor_type get_executor() const noexcept { return m_strand; }
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

  Strand m_strand;
  std::unique_ptr<ByteStreamImpl> m_impl;
  PeerInfo m_peer;
};

}  // namespace kw::net::detail
