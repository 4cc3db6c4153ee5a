#pragma once
// A multiplexed HTTP/2 client connection for load generators: many concurrent requests and
// watch streams on one connection, driven by nghttp2's in-memory API on an Asio io_context
// (one thread). Connecting, TLS and ALPN are core/net/client's (detail::connect); this adds
// what its one-request-at-a-time Client does not do: any number of streams in flight.
//
// Threading: every call, and every callback, on the io_context's thread.
#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/net/client/client.hpp"
#include "core/util/error.hpp"

namespace kw::net::client::detail {
class TlsContext;
}

namespace kw::bench {

// Where and how to connect: built once (TLS context included), shared by every connection.
struct H2Endpoint {
  net::client::ClientConfig config;
  net::client::ParsedUrl url;
  std::shared_ptr<net::client::detail::TlsContext> tls;  // null for cleartext h2c
  std::string bearer_token;                              // sent as Authorization when set
  static Result<H2Endpoint> create(net::client::ClientConfig config, std::string bearer_token);
};

struct H2Request {
  std::string method = "GET";
  std::string path;  // path and query
  std::string accept;
  std::string content_type;
  std::string body;
};

// Per-stream callbacks. on_close runs exactly once per submitted request: with the status
// (0 when no response head came) and whether the stream ended cleanly.
struct H2Handler {
  std::function<void(int status)> on_head;
  std::function<void(std::string_view bytes)> on_data;
  std::function<void(int status, bool clean)> on_close;
};

class H2Connection : public std::enable_shared_from_this<H2Connection> {
 public:
  using OpenDone = std::function<void(Result<std::shared_ptr<H2Connection>>)>;
  // Connects (TCP, TLS + ALPN h2 or cleartext prior knowledge) and sends the preface.
  static void open(boost::asio::io_context& io, const H2Endpoint& endpoint, OpenDone done);

  ~H2Connection();
  H2Connection(const H2Connection&) = delete;
  H2Connection& operator=(const H2Connection&) = delete;

  // Starts a request; false when the connection is gone (on_close is then not called).
  bool submit(H2Request request, H2Handler handler);
  bool alive() const { return m_alive; }
  // Ends every stream (their on_close runs) and closes the socket.
  void close();

  struct Impl;

 private:
  explicit H2Connection(std::unique_ptr<Impl> impl);
  void read();
  void send();
  void fail_all();

  std::unique_ptr<Impl> m_impl;
  bool m_alive = true;
  bool m_writing = false;
  bool m_receiving = false;  // inside nghttp2_session_mem_recv
};

// A request whose whole body is wanted: done(status, body); status 0 on a connection failure.
bool h2_call(H2Connection& connection, H2Request request, std::function<void(int status, std::string body)> done);

}  // namespace kw::bench
