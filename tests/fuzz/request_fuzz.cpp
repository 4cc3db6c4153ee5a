// Fuzz target for the API request path: method, URL, headers and body go through
// ApiServer::handle against a real registry on the embedded store (a temp dir), as a
// transport would hand them over. Every request must get an answer with a valid status,
// whatever the input; the sanitizers catch the rest.
//
// Input: byte 0 picks the method and transport; then "PATH[?QUERY]\n", header lines
// "name: value\n" up to an empty line, and the body (the rest).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "server/http/api_server.hpp"
#include "server/registry/registry.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "support/temp_dir.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace {

using namespace kw;

// Collects one response; a watch is closed by the harness once handle() returned.
class RecordingStream final : public net::ResponseStream {
 public:
  explicit RecordingStream(net::Protocol protocol) : m_protocol(protocol) {}

  void add_header(net::Header) override {
    std::lock_guard lock(m_mutex);
    if (m_began) fail("add_header() after begin()");
  }
  void begin(net::ResponseHead head) override {
    std::lock_guard lock(m_mutex);
    if (m_began) fail("begin() called twice");
    m_began = true;
    m_status = head.status;
  }
  bool write(std::shared_ptr<const std::string> bytes) override {
    std::lock_guard lock(m_mutex);
    if (!m_began) fail("write() before begin()");
    m_bytes += bytes ? bytes->size() : 0;
    return !m_closed;
  }
  void flush() override {}
  void finish() override {
    std::lock_guard lock(m_mutex);
    if (!m_began) fail("finish() before begin()");
    m_finished = true;
  }
  void abort() override {
    std::lock_guard lock(m_mutex);
    m_finished = true;
  }
  std::size_t queued_bytes() const override { return 0; }
  bool closed() const override {
    std::lock_guard lock(m_mutex);
    return m_closed || m_finished;
  }
  void on_close(std::function<void()> callback) override {
    std::lock_guard lock(m_mutex);
    m_on_close = std::move(callback);
  }
  void on_sent(std::function<void(std::size_t)>) override {}
  void on_receive(std::function<bool(std::string_view)>) override {}
  void resume_receive() override {}
  net::Protocol protocol() const override { return m_protocol; }

  // After handle(): the response must have begun with a valid status; an unfinished
  // (long-running) one is closed as a peer going away would close it.
  void check_and_close() {
    std::function<void()> callback;
    {
      std::lock_guard lock(m_mutex);
      if (!m_began) fail("a request got no response");
      if (m_status < 100 || m_status > 599) fail("invalid status " + std::to_string(m_status));
      if (!m_finished) {
        m_closed = true;
        callback = std::move(m_on_close);
      }
    }
    if (callback) callback();
  }

 private:
  [[noreturn]] static void fail(const std::string& what) {
    std::fprintf(stderr, "request_fuzz: %s\n", what.c_str());
    std::abort();
  }

  mutable std::mutex m_mutex;
  net::Protocol m_protocol;
  bool m_began = false;
  bool m_finished = false;
  bool m_closed = false;
  int m_status = 0;
  std::size_t m_bytes = 0;
  std::function<void()> m_on_close;
};

// The server under test: one embedded store, registry and ApiServer for the process.
struct Harness {
  testing::TempDir dir{"kw-request-fuzz"};
  std::unique_ptr<storage::Backend> backend;
  std::unique_ptr<registry::Registry> registry;
  std::unique_ptr<http::ApiServer> api;

  Harness() {
    storage::SqliteOptions options;
    options.data_dir = dir.path();
    auto opened = storage::open_sqlite_backend(options);
    if (!opened) {
      std::fprintf(stderr, "request_fuzz: %s\n", opened.error().message.c_str());
      std::abort();
    }
    backend = std::move(*opened);
    registry = std::make_unique<registry::Registry>(*backend, kinds::builtin_table(), registry::RegistryOptions{});
    if (auto started = registry->start(); !started) {
      std::fprintf(stderr, "request_fuzz: %s\n", started.error().message.c_str());
      std::abort();
    }
    if (auto written = registry->bootstrap(); !written) {
      std::fprintf(stderr, "request_fuzz: %s\n", written.error().message.c_str());
      std::abort();
    }
    http::ApiServerOptions server;
    server.min_request_timeout = std::chrono::seconds(1);
    api = std::make_unique<http::ApiServer>(*registry, server);
  }
};

Harness& harness() {
  static Harness instance;
  return instance;
}

constexpr std::string_view k_methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "BREW"};

net::Request request_from(std::string_view input) {
  net::Request request;
  const auto selector = static_cast<unsigned char>(input.front());
  input.remove_prefix(1);
  request.method = std::string(k_methods[selector % std::size(k_methods)]);
  request.protocol = (selector / 8) % 3 == 0 ? net::Protocol::http1
                     : (selector / 8) % 3 == 1 ? net::Protocol::http2
                                                : net::Protocol::websocket;
  auto line = [&input]() {
    const auto end = input.find('\n');
    std::string_view text = input.substr(0, end);
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
    return text;
  };
  const std::string_view target = line();
  const auto question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) request.query = std::string(target.substr(question + 1));
  for (std::string_view header = line(); !header.empty(); header = line()) {
    const auto colon = header.find(':');
    std::string name(header.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = colon == std::string_view::npos ? std::string_view() : header.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    request.headers.push_back({std::move(name), std::string(value)});
  }
  request.body = std::string(input);
  request.remote_address = "127.0.0.1:1";
  return request;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  net::Request request = request_from(std::string_view(reinterpret_cast<const char*>(data), size));
  auto stream = std::make_shared<RecordingStream>(request.protocol);
  harness().api->handle(std::move(request), stream);
  stream->check_and_close();
  return 0;
}
