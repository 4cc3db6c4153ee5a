// Flow control: a stream whose client stops reading must not hold up another stream on the
// same connection. Driven by an nghttp2 client session that withholds WINDOW_UPDATE for one
// stream while consuming the connection window.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

class RawH2Client {
 public:
  explicit RawH2Client(std::uint16_t port) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_send_callback(callbacks, on_send);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_session_client_new2(&m_session, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, nullptr, 0);
  }

  ~RawH2Client() {
    nghttp2_session_del(m_session);
    ::close(m_fd);
  }

  bool connected() const { return m_connected; }

  std::int32_t get(const std::string& path, bool read_body) {
    const std::string authority = "127.0.0.1";
    auto nv = [](const std::string& name, const std::string& value) {
      return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                        reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                        NGHTTP2_NV_FLAG_NONE};
    };
    const std::string names[] = {":method", ":scheme", ":authority", ":path"};
    const std::string values[] = {"GET", "http", authority, path};
    nghttp2_nv headers[] = {nv(names[0], values[0]), nv(names[1], values[1]), nv(names[2], values[2]),
                            nv(names[3], values[3])};
    const std::int32_t id = nghttp2_submit_request(m_session, nullptr, headers, 4, nullptr, nullptr);
    if (!read_body) m_unread.insert(id);
    return id;
  }

  // Exchanges frames until `done()` or the deadline; false on timeout or error.
  template <class Done>
  bool run_until(Done done, std::chrono::seconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (nghttp2_session_send(m_session) != 0) return false;
      pollfd poll_fd{m_fd, POLLIN, 0};
      if (::poll(&poll_fd, 1, 50) > 0) {
        std::uint8_t buffer[16384];
        const auto n = ::recv(m_fd, buffer, sizeof buffer, 0);
        if (n <= 0) return false;
        if (nghttp2_session_mem_recv(m_session, buffer, static_cast<std::size_t>(n)) < 0) return false;
      }
    }
    return true;
  }

  std::map<std::int32_t, std::string> bodies;
  std::set<std::int32_t> closed;

 private:
  static ssize_t on_send(nghttp2_session*, const std::uint8_t* data, std::size_t length, int, void* user) {
    const auto n = ::send(static_cast<RawH2Client*>(user)->m_fd, data, length, MSG_NOSIGNAL);
    return n < 0 ? static_cast<ssize_t>(NGHTTP2_ERR_CALLBACK_FAILURE) : n;
  }

  static int on_data(nghttp2_session* session, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                     std::size_t length, void* user) {
    auto& self = *static_cast<RawH2Client*>(user);
    self.bodies[id].append(reinterpret_cast<const char*>(data), length);
    if (self.m_unread.contains(id)) {
      nghttp2_session_consume_connection(session, length);  // the stream window stays used up
    } else {
      nghttp2_session_consume(session, id, length);
    }
    return 0;
  }

  static int on_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user) {
    static_cast<RawH2Client*>(user)->closed.insert(id);
    return 0;
  }

  int m_fd = -1;
  bool m_connected = false;
  nghttp2_session* m_session = nullptr;
  std::set<std::int32_t> m_unread;
};

}  // namespace

TEST_CASE("h2: a stream the client does not read does not block the others") {
  auto server = start_test_server();
  RawH2Client client(server->port);
  REQUIRE(client.connected());
  const int total = 4 << 20;
  const auto stalled = client.get("/big?bytes=" + std::to_string(total), false);
  // The stalled stream receives exactly its initial window (65535 bytes), then stops.
  REQUIRE(client.run_until([&] { return client.bodies[stalled].size() >= 65535; }));
  const auto quick = client.get("/hello", true);
  const auto ticks = client.get("/ticks?n=3", true);
  REQUIRE(client.run_until([&] { return client.closed.contains(quick) && client.closed.contains(ticks); }));
  CHECK(client.bodies[quick] == "hello world");
  CHECK(client.bodies[ticks] == "tick 0\ntick 1\ntick 2\n");
  CHECK_FALSE(client.closed.contains(stalled));
  CHECK(client.bodies[stalled].size() == 65535);
  // The server holds the rest and reports it as queued (the backpressure signal).
  REQUIRE(server->app->big_finished.load());
  CHECK(server->app->big->queued_bytes() == static_cast<std::size_t>(total - 65535));
  CHECK(server->app->big->closed());  // finish() was called by the handler
}

}  // namespace kw::net::test
