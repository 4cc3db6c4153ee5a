#pragma once
// An HTTP client transport with no Kubernetes knowledge: HTTP/1.1, HTTP/2 (TLS ALPN or
// cleartext prior knowledge) and WebSocket, over TCP or TLS. One request at a time per
// Client; the response body (or each WebSocket message) is handed to a callback as it
// arrives, so endless watch streams work the same as short requests. A connection whose
// exchange ended cleanly stays open for the Client's next request (HTTP/1.1 keep-alive, or
// the same HTTP/2 session); pool.hpp keeps Clients for reuse across callers.
//
// Threading: stream() and request() block the calling thread and run the client's own
// event loop there. cancel() may be called from any thread; the running call then returns
// an error and cancelled() is true.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

namespace kw::net::client {

enum class Transport { Auto, Http2, Http1, WebSocket };

// "auto", "h2", "http1", "websocket" (also "http2", "ws", "http1.1").
std::optional<Transport> parse_transport(std::string_view text);
std::string_view transport_name(Transport transport);

struct ClientConfig {
  std::string url;  // "https://host:6443" or "http://127.0.0.1:8080"; a path prefix is kept
  std::string ca_file;
  std::string ca_data;    // PEM
  std::string cert_file;  // client certificate (PEM)
  std::string cert_data;
  std::string key_file;
  std::string key_data;
  std::string tls_server_name;  // SNI / verification name; the URL host when empty
  // An http:// proxy to tunnel through with CONNECT (proxy.hpp); "" connects directly.
  std::string proxy_url = {};
  bool insecure_skip_tls_verify = false;
  Transport transport = Transport::Auto;
  std::chrono::milliseconds connect_timeout{10'000};
  // Whole-request bound for non-streaming requests (Request::streaming == false); 0 = none.
  std::chrono::milliseconds request_timeout{0};
  // TCP keepalive: probes after this much idle time, every keepalive/3, 3 probes.
  std::chrono::seconds keepalive{15};
  // HTTP/2 PING when idle this long; the connection is dead when the ack takes as long.
  std::chrono::seconds ping_interval{15};
  std::string user_agent = "kw";
  // Connection errors end with advice for a kubeconfig's user (is the server address right, pass
  // the cluster CA); off for the server's own calls (webhooks, aggregated APIs).
  bool kubeconfig_advice = true;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method = "GET";
  std::string target = {};  // path and query, e.g. "/api/v1/pods?watch=1"
  Headers headers = {};     // extra headers (Accept, Authorization, Content-Type...)
  std::string body = {};
  // A long-lived response: no request_timeout; with Transport::WebSocket it is sent as a
  // WebSocket upgrade and each message is one body callback.
  bool streaming = false;
  // An HTTP/1.1 Upgrade relayed as it is (a proxy's): sent over a new HTTP/1.1 connection with
  // `headers` as given (the caller's Connection, Upgrade and Sec-WebSocket-* fields), with no
  // request_timeout. A 101 answer makes the connection a byte tunnel: the bytes the server
  // sends after its head go to on_data as they come, and Client::send() writes to it.
  bool upgrade = false;
};

struct ResponseHead {
  int status = 0;
  Headers headers;       // names lowercase
  std::string protocol;  // "h2", "http/1.1" or "websocket"
  const std::string* header(std::string_view lowercase_name) const;
};

struct StreamHandler {
  // Called once when the status and headers are in; return false to stop.
  std::function<bool(const ResponseHead&)> on_head;
  // Body bytes in arrival order (over WebSocket: one whole message); return false to stop.
  std::function<bool(std::string_view)> on_data;
  // An upgrade's tunnel: bytes given to Client::send() were written (or dropped with the
  // tunnel), and `backlog` are still waiting (Client::send_backlog()).
  std::function<void(std::size_t backlog)> on_sent = {};
};

struct Response {
  ResponseHead head;
  std::string body;
};

// How a stream() call ended when it did not fail.
enum class StreamEnd { Complete, StoppedByHandler };

class Client {
 public:
  // Validates the config (URL, TLS files) without connecting.
  static Result<std::unique_ptr<Client>> create(ClientConfig config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Result<StreamEnd> stream(const Request& request, StreamHandler& handler);
  // Buffers the whole body (up to max_body bytes).
  Result<Response> request(const Request& request, std::size_t max_body = 256u << 20);

  // Thread-safe: aborts the running call and makes later calls fail at once.
  void cancel();
  bool cancelled() const { return m_cancelled.load(); }

  // Thread-safe, while stream() runs an `upgrade` request: bytes for the tunnel, written in order
  // once the server answered 101 (dropped if it does not). False when no upgrade is running.
  bool send(std::string bytes);
  // Bytes given to send() and not yet written: the caller's backpressure signal.
  std::size_t send_backlog() const;
  // Thread-safe, while stream() runs an `upgrade` request: the tunnel stops reading what the
  // server sends once the on_data call running (if any) returns, until resume_receiving(). The
  // server's bytes then wait in the kernel, and then in the server.
  void pause_receiving();
  void resume_receiving();

  // A connection is open from an earlier request and young enough to be reused.
  bool has_idle_connection() const;

  // The protocol the last response came over ("h2", "http/1.1", "websocket").
  const std::string& last_protocol() const { return m_last_protocol; }
  const ClientConfig& config() const { return m_config; }

  struct Impl;

 private:
  explicit Client(ClientConfig config);

  ClientConfig m_config;
  std::unique_ptr<Impl> m_impl;
  std::atomic<bool> m_cancelled{false};
  std::string m_last_protocol;
};

struct ParsedUrl {
  bool tls = false;
  std::string host;  // without brackets
  std::string port;
  std::string path_prefix;  // "" or "/prefix" (no trailing slash)
  std::string authority() const;  // host[:port] as written in Host / :authority
};
Result<ParsedUrl> parse_url(std::string_view url);

}  // namespace kw::net::client
