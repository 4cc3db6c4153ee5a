#pragma once
// The server transport seam. The HTTP server accepts TCP connections, speaks TLS (ALPN
// "h2", "http/1.1") or cleartext (HTTP/1.1, or HTTP/2 with prior knowledge, detected by the
// client preface), and turns every request into a call of the Handler with a Request and
// a ResponseStream. Handlers never see sockets, Beast or nghttp2.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace kw::net {

struct Header {
  std::string name;  // lower case
  std::string value;
};
using Headers = std::vector<Header>;

enum class Protocol { http1, http2, websocket };

struct PeerIdentity {  // from a verified TLS client certificate
  std::string common_name;
  std::vector<std::string> organizations;
  // The trust anchor its chain ends at: TlsConfig's client CA (a user's own certificate) or
  // its request-header CA (an authenticating front proxy's); both when they share one.
  bool by_client_ca = false;
  bool by_request_header_ca = false;
};

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded path, no query
  std::string query;   // raw query string without '?'
  Headers headers;     // names lower case, in arrival order
  std::string body;
  Protocol protocol = Protocol::http1;  // websocket: an HTTP/1.1 Upgrade to RFC 6455 was asked
  bool tls = false;
  std::optional<PeerIdentity> peer;
  std::string remote_address;  // "ip:port"

  // First value of a header (name compared case-insensitively), or nullptr.
  const std::string* header(std::string_view name) const;
};

struct ResponseHead {
  int status = 200;
  // "content-type" etc. When "content-length" is present the body is exactly that long
  // (HTTP/1.1 sends it without chunking); otherwise HTTP/1.1 uses chunked encoding and
  // every flush() pushes the chunks written so far.
  Headers headers;
  // WebSocket only: messages are sent as binary frames (protobuf) instead of text (JSON/YAML).
  bool binary_messages = false;
};

// One response. Thread-safe: any thread may call it (the watch cache writes from its
// dispatch thread); calls are queued onto the connection and never block on the network.
// Sequence: begin() once, then write()* and flush(), then finish(). A response that is
// dropped without finish() is finished by the destructor (or reset when it never began).
// For a WebSocket request, begin() with status 200 completes the upgrade (101); any other
// status is sent as a plain HTTP response instead. Each write() is then one message.
// begin() with status 101 makes the connection a byte tunnel instead, for a proxy that relays
// the upgrade to another server: the head is sent as given (that server's 101 answer), every
// write() is sent as raw bytes, the bytes the client sends go to on_receive(), and finish()
// closes the connection once the bytes written are out.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // A header the response will carry, whatever head begin() is given: for a layer in front of
  // the handler (priority and fairness) to add its own without wrapping the stream. Before
  // begin() only.
  virtual void add_header(Header header) = 0;
  virtual void begin(ResponseHead head) = 0;
  // Queues bytes: an HTTP/1.1 chunk (or body part), HTTP/2 DATA, or one WebSocket message.
  // The shared buffer lets one encoded event go to many streams without copies. Bytes may
  // wait for the next flush() or finish() (HTTP/1.1 sends a round of writes in one go), so
  // a producer flushes at the end of each round.
  // Returns false when the stream is closed (peer gone, reset, server shutting down).
  virtual bool write(std::shared_ptr<const std::string> bytes) = 0;
  bool write(std::string bytes) { return write(std::make_shared<const std::string>(std::move(bytes))); }
  // Pushes queued bytes to the peer now (no batching wait).
  virtual void flush() = 0;
  // Ends the response cleanly: terminating chunk, END_STREAM, or a WebSocket close frame.
  virtual void finish() = 0;
  // Ends the response at once, dropping the bytes still queued for it: the HTTP/1.1
  // connection is closed, the HTTP/2 stream reset (CANCEL), the WebSocket connection closed.
  // For a response that fell too far behind to be worth finishing (a lagging watch).
  virtual void abort() = 0;
  // Bytes queued and not yet handed to the socket/HTTP/2 session: the backpressure signal.
  virtual std::size_t queued_bytes() const = 0;
  virtual bool closed() const = 0;
  // Called once (from a transport thread) when the peer goes away or the stream is reset
  // before finish(), and when shutdown() ends a response whose grace period ran out.
  // Set it right after begin(). Not called after finish().
  virtual void on_close(std::function<void()> callback) = 0;
  // Called on a transport thread (or, for HTTP/1.1 written directly, the writer's) each time
  // queued bytes were handed to the connection or dropped, with queued_bytes() after it. With
  // it a producer that outruns its client can wait for it rather than queue without bound.
  // Set before begin(); it must not block.
  virtual void on_sent(std::function<void(std::size_t queued)> callback) = 0;
  // A tunnel's (begin() with 101 on a WebSocket request) bytes from the client, in order, on a
  // transport thread; the callback must not block. Returning false stops reading from the client
  // (its bytes wait in the kernel, and then in the client) until resume_receive(). Set before
  // begin(). Other responses never call it.
  virtual void on_receive(std::function<bool(std::string_view)> callback) = 0;
  // A tunnel whose on_receive returned false reads from its client again. Thread-safe.
  virtual void resume_receive() = 0;
  virtual Protocol protocol() const = 0;
};

// Called on a worker thread (never on the network thread), so it may block on storage.
// Long-running responses (watches) keep the stream and return at once.
using Handler = std::function<void(Request, std::shared_ptr<ResponseStream>)>;

// How the in-flight limit sees a request (kube-apiserver's max-in-flight filter). `exempt` is
// a short request that is never limited either: kube-apiserver lets system:masters through so
// that an administrator can still act on an overloaded server.
enum class RequestClass { long_running, exempt, read_only, mutating };

// What a request holds while its handler runs under an admission gate: given back (destroyed)
// when the handler returns.
using Seat = std::shared_ptr<void>;
// Runs an admitted request on a worker thread, answering on `stream` and holding `seat` until
// its handler returns. May be called from any thread, once; never blocks.
using StartRequest = std::move_only_function<void(std::shared_ptr<ResponseStream> stream, Seat seat)>;

// Admission happens on the network thread when a request is complete, before it is queued
// for a worker: a request whose class is at its limit is answered at once (429) and never
// waits behind the busy workers. A request counts from that moment until its handler returns.
struct AdmissionConfig {
  std::size_t max_read_only_inflight = 0;  // 0 = no limit
  std::size_t max_mutating_inflight = 0;   // 0 = no limit
  // Classifies a request; long-running (watches) and exempt ones are never limited. Runs on a network
  // thread: must be cheap and never block. Unset: GET/HEAD/OPTIONS read, other methods
  // mutate, WebSocket upgrades are long-running.
  std::function<RequestClass(const Request&)> classify;
  // Answers a refused request (429 with Retry-After). Runs on a network thread: must not
  // block. Unset: a plain-text 429 with "retry-after: 1".
  std::function<void(const Request&, RequestClass, ResponseStream&)> refuse;
  // When set, replaces the in-flight limits above (kube-apiserver's priority and fairness filter
  // instead of its max-in-flight one): called on a network thread with each complete request,
  // it must not block. It either calls `start` (at once, or later from another thread when a
  // seat frees) or answers the stream itself (429) and drops `start`.
  std::function<void(const Request&, std::shared_ptr<ResponseStream>, StartRequest)> gate;
};

struct TlsConfig {
  std::string cert_file;       // PEM serving certificate (chain)
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // optional: verify client certificates against it (not required)
  // Optional: front proxies' client certificates are verified against it too; PeerIdentity
  // says which of the two CAs signed a certificate.
  std::string request_header_ca_file = {};
};

struct ServerConfig {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;            // 0 = pick a free port (see HttpServer::port())
  std::optional<TlsConfig> tls;      // none = cleartext (HTTP/1.1 + h2c prior knowledge)
  int io_threads = 2;
  int worker_threads = 8;
  // When every worker is busy (a slow webhook, a slow store) and requests wait, more threads
  // start, up to this many in all; each extra one leaves after 30 s without work.
  int max_worker_threads = 256;
  std::size_t max_body_bytes = 3 * 1024 * 1024;  // 413 above
  // The whole request head (request line and header fields; on HTTP/2 the decoded header
  // list, 32 bytes per field extra as RFC 9113 counts it): 431 above, and on HTTP/1.1 the
  // connection is closed. 1 MiB as Go's http.DefaultMaxHeaderBytes, which kube-apiserver uses.
  std::size_t max_header_bytes = 1024 * 1024;
  std::size_t max_url_bytes = 1024 * 1024;  // request target (path and query): 414 above
  // A connection with no request in flight for this long is closed (HTTP/2: GOAWAY first).
  // 90 s as kube-apiserver's http.Server IdleTimeout (and client-go's idle keep-alive).
  std::chrono::seconds idle_timeout{90};
  // HTTP/1.1: a request head must be complete this long after its first byte arrived, or the
  // connection is closed (a client trickling header bytes cannot hold it open). 32 s as
  // kube-apiserver's http.Server ReadHeaderTimeout.
  std::chrono::milliseconds read_header_timeout{std::chrono::seconds(32)};
  // A connection whose peer has taken none of the bytes being written to it for this long is
  // closed (HTTP/1.1 and HTTP/2): a client that stops reading, even once its watch was ended
  // for being too slow, cannot hold the connection and its buffers. A slow reader that keeps
  // taking bytes is not cut.
  std::chrono::milliseconds write_stall_timeout{std::chrono::seconds(60)};
  // A request body must be complete this long after its head (a client trickling body bytes
  // cannot hold the connection and its buffer): HTTP/1.1 closes the connection, HTTP/2 answers
  // that stream 408. An HTTP/2 header block must be complete within read_header_timeout.
  std::chrono::milliseconds read_body_timeout{std::chrono::seconds(60)};
  // Asked once a request's head is in, before its body is read: false sends the request on at
  // once without its body, and the connection (HTTP/1.1) or stream (HTTP/2) ends with the
  // answer. The handler then refuses it (401 for credentials that are missing or wrong), and a
  // client the server will refuse cannot make it buffer a body. Runs on an I/O thread: it must
  // be quick. Null: every body is read.
  std::function<bool(const Request& head)> admit_body = {};
  std::uint32_t max_concurrent_streams = 1000;  // HTTP/2 SETTINGS
  AdmissionConfig admission;                    // in-flight limits (none by default)
};

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  virtual std::uint16_t port() const = 0;
  // Stops accepting, sends GOAWAY / closes idle connections, waits up to `grace` for
  // in-flight responses to finish, then ends the rest cleanly (last chunk, END_STREAM, close
  // frame; their streams report closed() and fire on_close), closes every connection and
  // joins the I/O and worker threads. Idempotent; the destructor calls shutdown(0).
  virtual void shutdown(std::chrono::milliseconds grace) = 0;
};

// Binds and starts serving at once (threads owned by the returned object).
Result<std::unique_ptr<HttpServer>> start_http_server(ServerConfig config, Handler handler);

}  // namespace kw::net
