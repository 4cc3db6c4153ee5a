#pragma once
// Shared by the server transport tests: a test server with a small routing handler, child
// processes bounded in time, and throwaway TLS material.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <string>
#include <vector>

#include "core/net/server/http_server.hpp"

namespace kw::net::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs `command` through the shell (callers prefix `timeout 20`), capturing stdout.
CommandResult run_command(const std::string& command);

// A child process whose stdout is read line by line while it runs.
class LineReader {
 public:
  explicit LineReader(const std::string& command);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // Next line without its newline; false at end of output.
  bool next(std::string& line);
  // Waits for the child and returns its exit code.
  int wait();

 private:
  FILE* m_pipe = nullptr;
  int m_exit_code = -1;
};

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

// A CA, a serving certificate for 127.0.0.1 and a client certificate (CN=alice,
// O=system:masters, O=devs), all signed by the CA, written into a temporary folder.
struct TestPki {
  TempDir dir;
  std::string ca_cert, server_cert, server_key, client_cert, client_key;
};
std::unique_ptr<TestPki> make_test_pki();

// What the routing handler of the test server shares with the test body.
struct TestApp {
  // /gated: each event waits for one release before the next is written.
  std::counting_semaphore<1000> gate{0};
  std::atomic<int> gate_timeouts{0};
  // /hold: responses kept open by the test.
  std::mutex held_mutex;
  std::vector<std::shared_ptr<ResponseStream>> held;
  std::atomic<int> closed_callbacks{0};
  // Last request seen by /whoami.
  std::mutex seen_mutex;
  Request last_request;
  // /big: the stream, to read its backpressure signal.
  std::shared_ptr<ResponseStream> big;
  std::atomic<bool> big_finished{false};

  void handle(Request request, std::shared_ptr<ResponseStream> stream);
};

struct TestServer {
  std::shared_ptr<TestApp> app = std::make_shared<TestApp>();
  std::unique_ptr<HttpServer> server;
  std::uint16_t port = 0;
  std::string base() const { return "127.0.0.1:" + std::to_string(port); }
};
std::unique_ptr<TestServer> start_test_server(ServerConfig config = {});

std::string query_value(const std::string& query, const std::string& key);
// The body of event `index` of /flood?n=..&size=..: `size` bytes ending in a newline.
std::string flood_event(int index, int size);

}  // namespace kw::net::test
