#pragma once
// A TCP proxy on 127.0.0.1 in front of one upstream port, for tests: it forwards bytes both
// ways until freeze(), after which it keeps every connection open and forwards nothing more
// (a peer that hangs or a path that silently drops packets). One thread, stopped and joined,
// with every socket closed, by the destructor.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace kw::testing {

class TcpProxy {
 public:
  explicit TcpProxy(int upstream_port);
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;
  ~TcpProxy();

  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  void freeze() { m_frozen.store(true); }
  // Bytes passed from the upstream to clients so far.
  std::uint64_t bytes_to_clients() const { return m_to_clients.load(); }

 private:
  struct Pair {
    int client = -1;
    int upstream = -1;
  };
  void run();
  bool forward(int from, int to, bool to_client);

  int m_upstream_port = 0;
  int m_listener = -1;
  int m_port = 0;
  int m_wake[2] = {-1, -1};   // a pipe that ends the thread's poll
  std::vector<Pair> m_pairs;  // the proxy thread's alone
  std::atomic<bool> m_frozen{false};
  std::atomic<std::uint64_t> m_to_clients{0};
  std::thread m_thread;  // last: starts once the sockets exist
};

}  // namespace kw::testing
