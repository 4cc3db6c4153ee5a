// h2c (HTTP/2 with prior knowledge) watch streams: many streams share one connection,
// driven through nghttp2's in-memory API (mem_recv / mem_send) on the loop's socket.
#include <fcntl.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "bench/fanout_client.hpp"

namespace kw::bench {
namespace {

constexpr std::int32_t k_stream_window = 1 << 20;       // per-stream receive window
constexpr std::int32_t k_connection_window = 64 << 20;  // connection receive window

class H2cWatchers : public LoopConnection {
 public:
  H2cWatchers(int fd, Receipts& receipts) : m_fd(fd), m_receipts(receipts) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &H2cWatchers::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &H2cWatchers::on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &H2cWatchers::on_close);
    nghttp2_session_client_new(&m_session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, k_stream_window},
                                               {NGHTTP2_SETTINGS_ENABLE_PUSH, 0}};
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0, k_connection_window);
  }
  ~H2cWatchers() override {
    nghttp2_session_del(m_session);
    ::close(m_fd);
  }
  int fd() const override { return m_fd; }

  bool submit(const Target& target, const std::string& path, std::string_view accept, int watcher) {
    m_watchers.push_back(watcher);
    const std::string authority = target.host + ":" + std::to_string(target.port);
    auto nv = [](std::string_view name, std::string_view value) {
      return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                        reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                        NGHTTP2_NV_FLAG_NONE};
    };
    const nghttp2_nv headers[] = {nv(":method", "GET"), nv(":scheme", "http"), nv(":authority", authority),
                                  nv(":path", path), nv("accept", accept)};
    return nghttp2_submit_request(m_session, nullptr, headers, 5, nullptr,
                                  reinterpret_cast<void*>(static_cast<std::intptr_t>(watcher))) > 0;
  }

  // Writes everything nghttp2 has queued (blocking for a bounded time when the socket is full).
  bool flush() {
    for (;;) {
      const std::uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(m_session, &data);
      if (n < 0) return false;
      if (n == 0) return true;
      std::size_t sent = 0;
      while (sent < static_cast<std::size_t>(n)) {
        const ssize_t w = ::send(m_fd, data + sent, static_cast<std::size_t>(n) - sent, MSG_NOSIGNAL);
        if (w > 0) {
          sent += static_cast<std::size_t>(w);
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
          pollfd p{m_fd, POLLOUT, 0};
          if (::poll(&p, 1, 5000) <= 0) return false;
        } else {
          return false;
        }
      }
    }
  }

  bool on_readable() override {
    std::uint8_t buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        if (nghttp2_session_mem_recv(m_session, buffer, static_cast<std::size_t>(n)) < 0 || !flush()) return fail();
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return true;
      } else {
        return fail();
      }
    }
  }

 private:
  static int watcher_of(nghttp2_session* session, std::int32_t stream_id) {
    return static_cast<int>(reinterpret_cast<std::intptr_t>(nghttp2_session_get_stream_user_data(session, stream_id)));
  }
  static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const std::uint8_t* name,
                       std::size_t name_length, const std::uint8_t* value, std::size_t value_length, std::uint8_t,
                       void* self) {
    if (frame->hd.type != NGHTTP2_HEADERS || std::string_view(reinterpret_cast<const char*>(name), name_length) != ":status")
      return 0;
    int status = 0;
    std::from_chars(reinterpret_cast<const char*>(value), reinterpret_cast<const char*>(value) + value_length, status);
    static_cast<H2cWatchers*>(self)->m_receipts.on_headers(watcher_of(session, frame->hd.stream_id), status);
    return 0;
  }
  static int on_data(nghttp2_session* session, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                     std::size_t length, void* self) {
    static_cast<H2cWatchers*>(self)->m_receipts.on_body(
        watcher_of(session, stream_id), std::string_view(reinterpret_cast<const char*>(data), length));
    return 0;
  }
  static int on_close(nghttp2_session* session, std::int32_t stream_id, std::uint32_t, void* self) {
    static_cast<H2cWatchers*>(self)->m_receipts.on_closed(watcher_of(session, stream_id));
    return 0;
  }
  bool fail() {
    for (int id : m_watchers) m_receipts.on_closed(id);
    return false;
  }

  int m_fd;
  Receipts& m_receipts;
  nghttp2_session* m_session = nullptr;
  std::vector<int> m_watchers;  // the watcher ids carried by this connection
};

}  // namespace

std::vector<std::unique_ptr<LoopConnection>> open_h2c_watchers(const Target& target, const std::string& path,
                                                                std::string_view accept, int count,
                                                                int streams_per_connection, Receipts& receipts) {
  std::vector<std::unique_ptr<LoopConnection>> out;
  for (int first = 0; first < count; first += streams_per_connection) {
    const int last = std::min(count, first + streams_per_connection);
    const int fd = connect_to(target);
    if (fd < 0) {
      for (int id = first; id < last; ++id) receipts.on_closed(id);
      continue;
    }
    auto connection = std::make_unique<H2cWatchers>(fd, receipts);
    for (int id = first; id < last; ++id)
      if (!connection->submit(target, path, accept, id)) receipts.on_closed(id);
    if (!connection->flush()) {
      for (int id = first; id < last; ++id) receipts.on_closed(id);
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    out.push_back(std::move(connection));
  }
  return out;
}

}  // namespace kw::bench
