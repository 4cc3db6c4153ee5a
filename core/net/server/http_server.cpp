#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ssl/context.hpp>

#include <sys/resource.h>

#include <iostream>
#include <mutex>
#include <thread>

#include "core/net/server/listener.hpp"
#include "core/net/server/server_state.hpp"
#include "core/net/server/tls.hpp"

namespace kw::net {

namespace {

using detail::asio::io_context;
using Clock = std::chrono::steady_clock;

constexpr auto k_poll_interval = std::chrono::milliseconds(5);
constexpr auto k_close_wait = std::chrono::seconds(2);

class HttpServerImpl final : public HttpServer {
 public:
  HttpServerImpl(ServerConfig config, Handler handler)
      : m_state(std::make_unique<detail::ServerState>(std::move(config), std::move(handler))),
        m_work(m_io.get_executor()) {}

  ~HttpServerImpl() override { shutdown(std::chrono::milliseconds(0)); }

  Result<void> start() {
    if (m_state->config.tls) {
      auto context = detail::make_tls_context(*m_state->config.tls, m_state->tls_anchors);
      if (!context) return std::unexpected(context.error());
      m_tls = std::move(*context);
      m_state->tls = m_tls.get();
    }
    auto listener = detail::Listener::open(*m_state, m_io);
    if (!listener) return std::unexpected(listener.error());
    m_listener = std::move(*listener);
    m_listener->start();
    const int threads = m_state->config.io_threads > 0 ? m_state->config.io_threads : 1;
    for (int i = 0; i < threads; ++i) m_threads.emplace_back([this] { run_io(); });
    return {};
  }

  // An exception out of a connection's handler (memory exhausted under a ulimit, say) ends that
  // connection, whose last owner was the handler, not the process: the loop goes on.
  void run_io() {
    for (;;) {
      try {
        m_io.run();
        return;
      } catch (const std::exception& error) {
        std::cerr << "kw: a connection failed: " << error.what() << "\n";
      }
    }
  }

  std::uint16_t port() const override { return m_listener ? m_listener->port() : 0; }

  void shutdown(std::chrono::milliseconds grace) override {
    std::lock_guard lock(m_shutdown_mutex);
    if (m_stopped) return;
    m_stopped = true;
    auto& state = *m_state;
    // Stop accepting and ask every connection to wind down (GOAWAY, close idle ones).
    state.shutting_down = true;
    if (m_listener) m_listener->close();
    state.connections.post_to_all([](detail::Connection& c) { c.begin_shutdown(); });
    // Let in-flight responses finish within the grace period.
    const auto deadline = Clock::now() + grace;
    while (Clock::now() < deadline && (state.link->active_streams() > 0 || state.connections.size() > 0)) {
      std::this_thread::sleep_for(k_poll_interval);
    }
    // Then end the rest cleanly (last chunk, END_STREAM, close frame) and close.
    state.connections.post_to_all([](detail::Connection& c) { c.force_close(); });
    const auto close_deadline = Clock::now() + k_close_wait;
    while (Clock::now() < close_deadline && state.connections.size() > 0) {
      std::this_thread::sleep_for(k_poll_interval);
    }
    state.link->close();
    m_work.reset();
    m_io.stop();
    for (auto& thread : m_threads) {
      if (thread.joinable()) thread.join();
    }
    m_threads.clear();
    state.workers.stop_and_join();
  }

 private:
  std::unique_ptr<detail::ServerState> m_state;
  std::shared_ptr<detail::asio::ssl::context> m_tls;
  // Declared after the state: destroyed first, with the connections its handlers still own.
  io_context m_io;
  detail::asio::executor_work_guard<io_context::executor_type> m_work;
  std::shared_ptr<detail::Listener> m_listener;
  std::vector<std::thread> m_threads;
  std::mutex m_shutdown_mutex;  // serialises shutdown()
  bool m_stopped = false;
};

// Every HTTP/1.1 watch holds a socket: let the process open as many as its hard limit allows.
void raise_open_files_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

Result<std::unique_ptr<HttpServer>> start_http_server(ServerConfig config, Handler handler) {
  if (!handler) return fail("start_http_server needs a request handler");
  raise_open_files_limit();
  auto server = std::make_unique<HttpServerImpl>(std::move(config), std::move(handler));
  if (auto started = server->start(); !started) return std::unexpected(started.error());
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace kw::net
