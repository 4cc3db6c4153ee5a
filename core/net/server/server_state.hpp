#pragma once
// Internal to core/net/server: what every connection shares with the server (configuration,
// handler, worker pool, the registry used by shutdown) and the entry points of each protocol.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/net/server/byte_stream.hpp"
#include "core/net/server/http_server.hpp"
#include "core/net/server/inflight.hpp"

namespace boost::asio::ssl {
class context;
}

namespace kw::net::detail {

// Outlives the server: response streams held by handlers post through it only while the
// server's io_context exists, and it counts the responses still in flight.
class ServerLink {
 public:
  template <class Fn>
  bool post(const Strand& strand, Fn&& fn) {
    std::shared_lock lock(m_open_mutex);
    if (!m_open) return false;
    asio::post(strand, std::forward<Fn>(fn));
    return true;
  }
  void close() {
    std::unique_lock lock(m_open_mutex);
    m_open = false;
  }
  void stream_started() { ++m_active_streams; }
  void stream_done() { --m_active_streams; }
  int active_streams() const { return m_active_streams.load(); }

 private:
  std::shared_mutex m_open_mutex;  // guards m_open; held while posting
  bool m_open = true;
  std::atomic<int> m_active_streams{0};
};

// Runs handlers off the network threads. Tasks queued at stop() still run. `threads` always
// run; when every one of them is busy (blocked on storage or an admission webhook) and tasks
// wait, more start, up to `max_threads` in all, and each extra one leaves after `linger`
// without work. So a slow dependency holds only the requests that wait on it.
class WorkerPool {
 public:
  explicit WorkerPool(int threads, int max_threads = 0, std::chrono::milliseconds linger = std::chrono::seconds(30));
  ~WorkerPool();
  void submit(std::move_only_function<void()> task);
  void stop_and_join();
  int threads() const;  // running now

 private:
  void run(bool extra);
  void spawn(bool extra);  // under m_tasks_mutex

  std::chrono::milliseconds m_linger;
  int m_max_threads;
  mutable std::mutex m_tasks_mutex;  // guards everything below
  std::condition_variable m_tasks_ready;
  std::deque<std::move_only_function<void()>> m_tasks;
  bool m_stopping = false;
  int m_running = 0;  // threads in run()
  int m_idle = 0;     // of those, waiting for a task
  std::vector<std::thread> m_threads;
  std::vector<std::thread::id> m_exited;  // extra threads that left, to join
};

// A live connection as seen by shutdown. Both calls are made on the connection's strand.
class Connection {
 public:
  virtual ~Connection() = default;
  // Stop taking new requests: close when idle, GOAWAY on HTTP/2, "connection: close" on h1.
  virtual void begin_shutdown() = 0;
  // Grace is over: finish every open response now and close once written.
  virtual void force_close() = 0;
};

class ConnectionRegistry {
 public:
  void add(const std::shared_ptr<Connection>& connection, const Strand& strand);
  void remove(const Connection* connection);
  std::size_t size() const;
  // Posts fn(connection) onto each live connection's strand.
  void post_to_all(std::function<void(Connection&)> fn);

 private:
  struct Entry {
    std::weak_ptr<Connection> connection;
    Strand strand;
  };
  mutable std::mutex m_entries_mutex;  // guards m_entries
  std::unordered_map<const Connection*, Entry> m_entries;
};

// The DER bytes of every certificate in TlsConfig's client CA file and request-header CA file:
// a verified chain ending at one of them tells PeerIdentity which CA signed it.
struct TlsAnchors {
  std::vector<std::string> client;
  std::vector<std::string> request_header;
};

struct ServerState {
  ServerState(ServerConfig config_in, Handler handler_in)
      : config(std::move(config_in)),
        handler(std::move(handler_in)),
        link(std::make_shared<ServerLink>()),
        inflight(config.admission.max_read_only_inflight, config.admission.max_mutating_inflight),
        workers(config.worker_threads, config.max_worker_threads) {}

  // Hands a complete request to a worker thread, or answers 429 at once (on the calling
  // network thread) when its class is at its in-flight limit.
  // With an admission gate, the gate decides when the request starts (StartRequest).
  void dispatch(Request request, std::shared_ptr<ResponseStream> stream);
  // Queues an admitted request for a worker; the seat is held until its handler returns.
  void submit(Request request, std::shared_ptr<ResponseStream> stream, Seat seat);
  void run_handler(Request request, std::shared_ptr<ResponseStream> stream);

  ServerConfig config;
  Handler handler;
  std::shared_ptr<ServerLink> link;
  InflightLimiter inflight;
  WorkerPool workers;
  ConnectionRegistry connections;
  std::atomic<bool> shutting_down{false};
  asio::ssl::context* tls = nullptr;  // set when ServerConfig::tls is given
  TlsAnchors tls_anchors;             // with it
};

// Protocol entry points; each takes ownership of the stream. `initial` holds bytes already
// read from the connection (the preface sniffing).
void start_http1(ServerState& state, ByteStream stream, std::string initial);
void start_http2(ServerState& state, ByteStream stream, std::string initial);

}  // namespace kw::net::detail
