// HTTP/2 client: an nghttp2 client session fed through mem_recv/mem_send over the byte stream.
// The session lives as long as its connection; each exchange is one request stream, with
// PINGs while it waits to notice a dead peer.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <nghttp2/nghttp2.h>

#include <array>
#include <cstring>

#include "core/net/client/detail.hpp"
#include "core/util/text.hpp"

namespace kw::net::client::detail {

namespace {

// ":status" as a number (0 when it is not one).
int status_code(std::string_view text) {
  int code = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    code = code * 10 + (c - '0');
  }
  return code;
}

}  // namespace

// One HTTP/2 connection's session. It outlives each exchange: the client keeps the connection
// (and this session, with its HPACK tables and stream numbering) for the next request.
class Http2Session : public std::enable_shared_from_this<Http2Session> {
 public:
  Http2Session(ByteStream& stream, const ClientConfig& config, bool cleartext)
      : m_stream(stream), m_config(config), m_cleartext(cleartext), m_ping_timer(stream.get_executor()) {}

  ~Http2Session() {
    if (m_session) nghttp2_session_del(m_session);
  }

  bool open() {
    if (!create_session()) return false;
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 24}};
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0, 1 << 26);
    return true;
  }

  // A new stream may be opened: no GOAWAY came and the session saw no error.
  bool usable() const { return m_session != nullptr && !m_goaway && !m_broken; }

  void run(Exchange& exchange, RunDone done) {
    m_exchange = &exchange;
    m_done = std::move(done);
    m_stream_id = -1;
    m_status = 0;
    m_stopped = false;
    m_closed = false;
    m_ping_outstanding = false;
    m_body_sent = 0;
    m_result = StreamEnd::Complete;
    if (!submit_request()) return finish(fail("cannot submit the HTTP/2 request"));
    send();
    read();
    arm_ping();
  }

 private:
  bool create_session() {
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    const int rv = nghttp2_session_client_new(&m_session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    return rv == 0;
  }

  static nghttp2_nv make_nv(const std::string& name, const std::string& value) {
    return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                      reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                      NGHTTP2_NV_FLAG_NONE};
  }

  static ssize_t read_body(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                           nghttp2_data_source*, void* user) {
    auto* self = static_cast<Http2Session*>(user);
    const std::string& body = self->m_exchange->request.body;
    const std::size_t n = std::min(length, body.size() - self->m_body_sent);
    std::memcpy(buf, body.data() + self->m_body_sent, n);
    self->m_body_sent += n;
    if (self->m_body_sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  bool submit_request() {
    const Request& request = m_exchange->request;
    m_header_storage = {{":method", request.method},
                        {":scheme", m_exchange->scheme},
                        {":authority", m_exchange->authority},
                        {":path", m_exchange->target}};
    bool has_agent = false;
    for (const auto& [name, value] : request.headers) {
      std::string lower = util::to_lower(name);
      if (lower == "connection" || lower == "host" || lower == "transfer-encoding" || lower == "upgrade") continue;
      if (lower == "user-agent") has_agent = true;
      m_header_storage.emplace_back(std::move(lower), value);
    }
    if (!has_agent) m_header_storage.emplace_back("user-agent", m_config.user_agent);
    std::vector<nghttp2_nv> nva;
    for (const auto& [name, value] : m_header_storage) nva.push_back(make_nv(name, value));
    nghttp2_data_provider provider{};
    provider.read_callback = read_body;
    m_stream_id = nghttp2_submit_request(m_session, nullptr, nva.data(), nva.size(),
                                         request.body.empty() ? nullptr : &provider, this);
    return m_stream_id > 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                       const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    auto* self = static_cast<Http2Session*>(user);
    if (self->m_exchange == nullptr || frame->hd.stream_id != self->m_stream_id || frame->hd.type != NGHTTP2_HEADERS)
      return 0;
    std::string_view key(reinterpret_cast<const char*>(name), namelen);
    std::string_view val(reinterpret_cast<const char*>(value), valuelen);
    if (key == ":status") self->m_status = status_code(val);
    else if (!self->m_exchange->head_seen) self->m_exchange->head.headers.emplace_back(std::string(key), std::string(val));
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto* self = static_cast<Http2Session*>(user);
    self->m_got_frame = true;
    if (frame->hd.type == NGHTTP2_GOAWAY) self->m_goaway = true;
    if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK)) self->m_ping_outstanding = false;
    Exchange* exchange = self->m_exchange;
    if (exchange == nullptr || frame->hd.type != NGHTTP2_HEADERS || frame->hd.stream_id != self->m_stream_id ||
        exchange->head_seen)
      return 0;
    if (self->m_status >= 200) {
      exchange->head.status = self->m_status;
      exchange->head.protocol = "h2";
      exchange->head_seen = true;
      if (exchange->handler.on_head && !exchange->handler.on_head(exchange->head)) self->stop();
    } else {
      exchange->head.headers.clear();  // an interim 1xx response
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                           void* user) {
    auto* self = static_cast<Http2Session*>(user);
    if (self->m_exchange == nullptr || stream_id != self->m_stream_id || self->m_stopped) return 0;
    auto& handler = self->m_exchange->handler;
    if (handler.on_data && !handler.on_data(std::string_view(reinterpret_cast<const char*>(data), len)))
      self->stop();
    return 0;
  }

  static int on_stream_close(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
    auto* self = static_cast<Http2Session*>(user);
    if (self->m_exchange == nullptr || stream_id != self->m_stream_id || self->m_stopped) return 0;
    if (error_code == NGHTTP2_NO_ERROR && self->m_exchange->head_seen) {
      self->m_result = StreamEnd::Complete;
    } else {
      self->m_result = fail(std::string("HTTP/2 stream closed by the server: ") +
                            nghttp2_http2_strerror(error_code));
    }
    self->m_closed = true;
    return 0;
  }

  void stop() {
    m_stopped = true;
    nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, m_stream_id, NGHTTP2_CANCEL);
  }

  void read() {
    auto self = shared_from_this();
    m_stream.async_read_some(asio::buffer(m_buffer), [self](ErrorCode ec, std::size_t n) {
      if (!self->m_done) return;
      if (ec) {
        if (!self->m_got_frame && self->m_cleartext) return self->finish_not_http2();
        return self->finish(fail("connection lost: " + ec.message()));
      }
      if (!self->m_got_frame && self->m_cleartext && n >= 5 && std::string_view(self->m_buffer.data(), 5) == "HTTP/")
        return self->finish_not_http2();
      const auto rv = nghttp2_session_mem_recv(self->m_session, reinterpret_cast<const uint8_t*>(self->m_buffer.data()), n);
      if (rv < 0) {
        if (!self->m_got_frame && self->m_cleartext) return self->finish_not_http2();
        return self->finish(fail(std::string("HTTP/2 protocol error: ") + nghttp2_strerror(static_cast<int>(rv))));
      }
      if (self->m_stopped) return self->finish(StreamEnd::StoppedByHandler);
      if (self->m_closed) {
        self->send();  // window updates and acks owed, before the connection goes idle
        return self->finish(std::move(self->m_result));
      }
      self->send();
      self->read();
    });
  }

  void send() {
    if (m_writing || m_broken) return;
    m_out.clear();
    for (;;) {
      const uint8_t* data = nullptr;
      const auto n = nghttp2_session_mem_send(m_session, &data);
      if (n < 0) return finish(fail(std::string("HTTP/2 error: ") + nghttp2_strerror(static_cast<int>(n))));
      if (n == 0) break;
      m_out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
      if (m_out.size() > 64 * 1024) break;
    }
    if (m_out.empty()) return;
    m_writing = true;
    auto self = shared_from_this();
    asio::async_write(m_stream, asio::buffer(m_out), [self](ErrorCode ec, std::size_t) {
      self->m_writing = false;
      if (ec) {
        self->m_broken = true;
        return self->finish(fail("connection lost while sending: " + ec.message()));
      }
      self->send();
    });
  }

  void arm_ping() {
    if (m_config.ping_interval.count() <= 0) return;
    auto self = shared_from_this();
    m_ping_timer.expires_after(m_config.ping_interval);
    m_ping_timer.async_wait([self](ErrorCode ec) {
      if (ec || !self->m_done) return;
      if (self->m_ping_outstanding)
        return self->finish(fail("server stopped answering HTTP/2 PINGs for " +
                                 std::to_string(self->m_config.ping_interval.count()) + " s"));
      self->m_ping_outstanding = true;
      nghttp2_submit_ping(self->m_session, NGHTTP2_FLAG_NONE, nullptr);
      self->send();
      self->arm_ping();
    });
  }

  void finish_not_http2() {
    if (!m_done) return;
    m_ping_timer.cancel();
    m_broken = true;
    m_exchange = nullptr;
    auto done = std::move(m_done);
    m_done = nullptr;
    done(RunResult{fail("not HTTP/2"), true, false});
  }

  void finish(Result<StreamEnd> result) {
    if (!m_done) return;
    m_ping_timer.cancel();
    // Only a stream that ended by itself leaves the connection with nothing outstanding but writes.
    const bool clean = m_closed && !m_stopped && result.has_value();
    if (!clean) m_broken = true;
    m_exchange = nullptr;
    auto done = std::move(m_done);
    m_done = nullptr;
    done(RunResult{std::move(result), false, clean && usable()});
  }

  ByteStream& m_stream;
  const ClientConfig& m_config;
  const bool m_cleartext;
  asio::steady_timer m_ping_timer;
  nghttp2_session* m_session = nullptr;
  bool m_got_frame = false;  // connection-wide: the peer spoke HTTP/2
  bool m_goaway = false;
  bool m_broken = false;
  bool m_writing = false;
  std::string m_out;
  std::array<char, 16 * 1024> m_buffer{};
  // The exchange running now (null between exchanges).
  Exchange* m_exchange = nullptr;
  RunDone m_done;
  int32_t m_stream_id = -1;
  int m_status = 0;
  bool m_stopped = false;
  bool m_closed = false;
  bool m_ping_outstanding = false;
  std::size_t m_body_sent = 0;
  Result<StreamEnd> m_result = StreamEnd::Complete;
  std::vector<std::pair<std::string, std::string>> m_header_storage;
};

std::shared_ptr<Http2Session> open_http2(ByteStream& stream, const ClientConfig& config, bool cleartext) {
  auto session = std::make_shared<Http2Session>(stream, config, cleartext);
  if (!session->open()) return nullptr;
  return session;
}

void run_http2(Http2Session& session, Exchange& exchange, RunDone done) { session.run(exchange, std::move(done)); }

bool http2_usable(const Http2Session& session) { return session.usable(); }

}  // namespace kw::net::client::detail
