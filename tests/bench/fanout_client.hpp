#pragma once
// The client side of the watch fan-out benchmark: many watch streams on one epoll thread
// (HTTP/1.1 chunked, one connection each; or h2c, many streams per connection) and a
// blocking HTTP/1.1 writer. Each received watch event is matched to the write that made it
// by the marker "fanev-NNNNNN" in the pod name, which both JSON and protobuf carry verbatim.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_util.hpp"

namespace kw::bench {

inline constexpr std::string_view k_event_marker = "fanev-";

enum class Encoding { json, protobuf };

// Receipt times, one slot per (watcher, event); written by the epoll thread only.
class Receipts {
 public:
  Receipts(int watchers, int events);
  // Splits decoded body bytes of `watcher` into frames and records the events in them.
  void on_body(int watcher, std::string_view bytes);
  void on_headers(int watcher, int status);
  void on_closed(int watcher);

  Encoding encoding = Encoding::json;
  std::atomic<long> delivered{0};
  std::atomic<long> duplicated{0};  // an event a watcher already had, seen again
  std::atomic<int> ready{0};   // watchers that got a 200
  std::atomic<int> failed{0};  // watchers that got another status or were closed early
  int watchers() const { return m_watchers; }
  int events() const { return m_events; }
  // Clock::time_point of (watcher, event), or the epoch when it never came.
  Clock::time_point at(int watcher, int event) const {
    return m_at[static_cast<std::size_t>(watcher) * static_cast<std::size_t>(m_events) + static_cast<std::size_t>(event)];
  }

 private:
  // Records the whole frames at the start of `bytes`; returns the bytes they took.
  std::size_t split_frames(int watcher, std::string_view bytes);
  void on_frame(int watcher, std::string_view frame);
  int m_watchers;
  int m_events;
  std::vector<Clock::time_point> m_at;
  std::vector<std::string> m_pending;  // partial frame bytes per watcher
  std::vector<bool> m_closed;
};

// One non-blocking client connection driven by the loop.
class LoopConnection {
 public:
  virtual ~LoopConnection() = default;
  virtual int fd() const = 0;
  // Reads what is available; false when the connection is finished (closed or failed).
  virtual bool on_readable() = 0;
};

// epoll over the connections on its own thread; stopped and joined on destruction.
class WatchLoop {
 public:
  explicit WatchLoop(std::vector<std::unique_ptr<LoopConnection>> connections);
  WatchLoop(const WatchLoop&) = delete;
  WatchLoop& operator=(const WatchLoop&) = delete;
  ~WatchLoop();

 private:
  void run();
  struct State;
  std::unique_ptr<State> m_state;
};

struct Target {
  std::string host = "127.0.0.1";
  int port = 0;
};

// A connected TCP socket (blocking), or -1.
int connect_to(const Target& target);

// W watches of `path` over HTTP/1.1, one connection each; watcher ids from `first_id`.
std::vector<std::unique_ptr<LoopConnection>> open_h1_watchers(const Target& target, const std::string& path,
                                                               std::string_view accept, int count, Receipts& receipts);
// W watches of `path` as h2c streams, up to `streams_per_connection` per connection.
std::vector<std::unique_ptr<LoopConnection>> open_h2c_watchers(const Target& target, const std::string& path,
                                                                std::string_view accept, int count,
                                                                int streams_per_connection, Receipts& receipts);

// A keep-alive HTTP/1.1 connection for requests one at a time.
class HttpWriter {
 public:
  explicit HttpWriter(const Target& target);
  HttpWriter(const HttpWriter&) = delete;
  HttpWriter& operator=(const HttpWriter&) = delete;
  ~HttpWriter();
  // Sends the request and reads the whole response; the status code, or -1 on I/O failure.
  int request(std::string_view method, const std::string& path, std::string_view json_body);

 private:
  Target m_target;
  int m_fd = -1;
  std::string m_buffer;
};

}  // namespace kw::bench
