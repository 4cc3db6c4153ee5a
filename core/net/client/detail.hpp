#pragma once
// Internal to core/net/client: the protocol runners that drive one request over a ByteStream
// (core/net/byte_stream.hpp), and the connector that makes one. Everything runs on the client's io_context thread.
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/net/byte_stream.hpp"
#include "core/net/client/client.hpp"

namespace kw::net::client::detail {

namespace asio = boost::asio;
using net::detail::ByteStreamImpl;
using net::detail::DoneCallback;
using net::detail::ErrorCode;
using net::detail::IoCallback;
using Executor = asio::io_context::executor_type;
using ByteStream = net::detail::BasicByteStream<Executor>;

// What one protocol run reports: the call's result, or that the peer does not speak the
// protocol tried (h2c prior knowledge answered by an HTTP/1.1-only server).
struct RunResult {
  Result<StreamEnd> result = StreamEnd::Complete;
  bool not_http2 = false;
  // The exchange ended cleanly with nothing of it left on the connection, which may carry the
  // next request (HTTP/1.1 keep-alive, or an HTTP/2 session with no GOAWAY).
  bool reusable = false;
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
  // Request::upgrade: run_http1 sets it (io thread) to take the bytes of Client::send() while
  // the exchange runs; it writes them once a 101 answer opened the tunnel. `sent` is called
  // with the size of each piece written or dropped.
  std::function<void(std::shared_ptr<const std::string>)> send_raw = {};
  std::function<void(std::size_t)> sent = {};
  // Request::upgrade: Client::pause_receiving()'s flag, read by the tunnel before each read,
  // and what run_http1 sets to read again once it is cleared (Client::resume_receiving()).
  const std::atomic<bool>* receive_paused = nullptr;
  std::function<void()> resume_raw = {};
};

using RunDone = std::move_only_function<void(RunResult)>;

// Each starts the exchange on `stream` and calls done exactly once (on the io thread). When
// the result is not reusable the caller closes the stream, which ends whatever is still pending.
void run_http1(ByteStream& stream, Exchange& exchange, RunDone done);
void run_websocket(ByteStream& stream, Exchange& exchange, RunDone done);

// An HTTP/2 connection's session, kept with its stream between exchanges. `cleartext`: h2c by
// prior knowledge, where an HTTP/1.1 answer to the preface means the peer does not speak HTTP/2.
// Null when nghttp2 cannot make one.
class Http2Session;
std::shared_ptr<Http2Session> open_http2(ByteStream& stream, const ClientConfig& config, bool cleartext);
void run_http2(Http2Session& session, Exchange& exchange, RunDone done);
// A new request may go over the session (no GOAWAY came, nothing failed).
bool http2_usable(const Http2Session& session);

// Connects (resolve, TCP, TLS with ALPN) and calls done with the stream or an error.
struct ConnectTarget {
  ParsedUrl url;
  std::vector<std::string> alpn;  // offered protocols, in preference order
};
class TlsContext;
Result<std::shared_ptr<TlsContext>> make_tls_context(const ClientConfig& config);
void connect(asio::io_context& io, const ClientConfig& config, std::shared_ptr<TlsContext> tls,
             const ConnectTarget& target, std::move_only_function<void(Result<std::unique_ptr<ByteStream>>)> done);

}  // namespace kw::net::client::detail
