#pragma once
// Internal to core/net/client: a type-erased byte stream (TCP or TLS) that satisfies Asio's
// AsyncReadStream/AsyncWriteStream, so Beast compiles once per protocol, and the protocol
// runners that drive one request over it. Everything runs on the client's io_context thread.
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/system/error_code.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/net/client/client.hpp"

namespace kw::net::client::detail {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;
using Executor = asio::io_context::executor_type;
using IoCallback = std::move_only_function<void(ErrorCode, std::size_t)>;

class ByteStreamImpl {
 public:
  virtual ~ByteStreamImpl() = default;
  virtual void read_some(asio::mutable_buffer buffer, IoCallback callback) = 0;
  virtual void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) = 0;
  virtual void close() = 0;  // pending operations complete with an error
  virtual std::string alpn() const = 0;  // negotiated protocol; "" without TLS/ALPN
};

class ByteStream {
 public:
  using executor_type = Executor;

  ByteStream(Executor executor, std::unique_ptr<ByteStreamImpl> impl)
      : m_executor(executor), m_impl(std::move(impl)) {}

  executor_type get_executor() const noexcept { return m_executor; }
  std::string alpn() const { return m_impl->alpn(); }
  void close() { m_impl->close(); }

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
      if (list.size() == 64) break;
    }
    return asio::async_initiate<Token, void(ErrorCode, std::size_t)>(
        [this](auto handler, std::vector<asio::const_buffer> list) {
          m_impl->write_some(std::move(list), IoCallback(std::move(handler)));
        },
        token, std::move(list));
  }

 private:
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
};

// What one protocol run reports: the call's result, or that the peer does not speak the
// protocol tried (h2c prior knowledge answered by an HTTP/1.1-only server).
struct RunResult {
  Result<StreamEnd> result = StreamEnd::Complete;
  bool not_http2 = false;
};

struct Exchange {
  const Request& request;
  StreamHandler& handler;
  const ClientConfig& config;
  std::string authority;  // Host / :authority
  std::string scheme;     // "http" / "https"
  std::string target;     // path prefix + request target
  ResponseHead head;
  bool head_seen = false;
};

using RunDone = std::move_only_function<void(RunResult)>;

// Each starts the exchange on `stream` and calls done exactly once (on the io thread).
void run_http1(ByteStream& stream, Exchange& exchange, RunDone done);
void run_http2(ByteStream& stream, Exchange& exchange, RunDone done);
void run_websocket(ByteStream& stream, Exchange& exchange, RunDone done);

// Connects (resolve, TCP, TLS with ALPN) and calls done with the stream or an error.
struct ConnectTarget {
  ParsedUrl url;
  std::vector<std::string> alpn;  // offered protocols, in preference order
};
class TlsContext;
Result<std::shared_ptr<TlsContext>> make_tls_context(const ClientConfig& config);
void connect(asio::io_context& io, const ClientConfig& config, std::shared_ptr<TlsContext> tls,
             const ConnectTarget& target, std::move_only_function<void(Result<std::unique_ptr<ByteStream>>)> done);

std::string to_lower(std::string_view text);

}  // namespace kw::net::client::detail
