// HTTP/2 client exchange: an nghttp2 client session fed through mem_recv/mem_send over the
// byte stream, one request stream, PINGs while idle to notice a dead peer.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <nghttp2/nghttp2.h>

#include <array>
#include <cstring>

#include "core/net/client/detail.hpp"
#include "core/util/text.hpp"

namespace kw::net::client::detail {

namespace {

class Http2Exchange : public std::enable_shared_from_this<Http2Exchange> {
 public:
  Http2Exchange(ByteStream& stream, Exchange& exchange, RunDone done)
      : m_stream(stream), m_exchange(exchange), m_done(std::move(done)), m_ping_timer(stream.get_executor()) {}

  ~Http2Exchange() {
    if (m_session) nghttp2_session_del(m_session);
  }

  void start() {
    if (!create_session()) return finish(fail("cannot create an HTTP/2 session"));
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 24}};
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0, 1 << 26);
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
    auto* self = static_cast<Http2Exchange*>(user);
    const std::string& body = self->m_exchange.request.body;
    const std::size_t n = std::min(length, body.size() - self->m_body_sent);
    std::memcpy(buf, body.data() + self->m_body_sent, n);
    self->m_body_sent += n;
    if (self->m_body_sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  bool submit_request() {
    const Request& request = m_exchange.request;
    m_header_storage = {{":method", request.method},
                        {":scheme", m_exchange.scheme},
                        {":authority", m_exchange.authority},
                        {":path", m_exchange.target}};
    bool has_agent = false;
    for (const auto& [name, value] : request.headers) {
      std::string lower = util::to_lower(name);
      if (lower == "connection" || lower == "host" || lower == "transfer-encoding" || lower == "upgrade") continue;
      if (lower == "user-agent") has_agent = true;
      m_header_storage.emplace_back(std::move(lower), value);
    }
    if (!has_agent) m_header_storage.emplace_back("user-agent", m_exchange.config.user_agent);
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
    auto* self = static_cast<Http2Exchange*>(user);
    if (frame->hd.stream_id != self->m_stream_id || frame->hd.type != NGHTTP2_HEADERS) return 0;
    std::string_view key(reinterpret_cast<const char*>(name), namelen);
    std::string_view val(reinterpret_cast<const char*>(value), valuelen);
    if (key == ":status") {
      self->m_status = 0;
      for (char c : val) self->m_status = self->m_status * 10 + (c - '0');
    } else if (!self->m_exchange.head_seen) {
      self->m_exchange.head.headers.emplace_back(std::string(key), std::string(val));
    }
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto* self = static_cast<Http2Exchange*>(user);
    self->m_got_frame = true;
    if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK)) self->m_ping_outstanding = false;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->hd.stream_id == self->m_stream_id &&
        !self->m_exchange.head_seen && self->m_status >= 200) {
      self->m_exchange.head.status = self->m_status;
      self->m_exchange.head.protocol = "h2";
      self->m_exchange.head_seen = true;
      auto& handler = self->m_exchange.handler;
      if (handler.on_head && !handler.on_head(self->m_exchange.head)) self->stop();
    } else if (frame->hd.type == NGHTTP2_HEADERS && !self->m_exchange.head_seen) {
      self->m_exchange.head.headers.clear();  // an interim 1xx response
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                           void* user) {
    auto* self = static_cast<Http2Exchange*>(user);
    if (stream_id != self->m_stream_id || self->m_stopped) return 0;
    auto& handler = self->m_exchange.handler;
    if (handler.on_data && !handler.on_data(std::string_view(reinterpret_cast<const char*>(data), len)))
      self->stop();
    return 0;
  }

  static int on_stream_close(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
    auto* self = static_cast<Http2Exchange*>(user);
    if (stream_id != self->m_stream_id || self->m_stopped) return 0;
    if (error_code == NGHTTP2_NO_ERROR && self->m_exchange.head_seen) {
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
        if (!self->m_got_frame && self->m_exchange.scheme == "http") return self->finish_not_http2();
        return self->finish(fail("connection lost: " + ec.message()));
      }
      if (!self->m_got_frame && self->m_exchange.scheme == "http" && n >= 5 &&
          std::string_view(self->m_buffer.data(), 5) == "HTTP/")
        return self->finish_not_http2();
      const auto rv = nghttp2_session_mem_recv(self->m_session, reinterpret_cast<const uint8_t*>(self->m_buffer.data()), n);
      if (rv < 0) {
        if (!self->m_got_frame && self->m_exchange.scheme == "http") return self->finish_not_http2();
        return self->finish(fail(std::string("HTTP/2 protocol error: ") + nghttp2_strerror(static_cast<int>(rv))));
      }
      if (self->m_stopped) return self->finish(StreamEnd::StoppedByHandler);
      if (self->m_closed) return self->finish(std::move(self->m_result));
      self->send();
      self->read();
    });
  }

  void send() {
    if (m_writing || !m_done) return;
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
      if (ec) return self->finish(fail("connection lost while sending: " + ec.message()));
      self->send();
    });
  }

  void arm_ping() {
    if (m_exchange.config.ping_interval.count() <= 0) return;
    auto self = shared_from_this();
    m_ping_timer.expires_after(m_exchange.config.ping_interval);
    m_ping_timer.async_wait([self](ErrorCode ec) {
      if (ec || !self->m_done) return;
      if (self->m_ping_outstanding)
        return self->finish(fail("server stopped answering HTTP/2 PINGs for " +
                                 std::to_string(self->m_exchange.config.ping_interval.count()) + " s"));
      self->m_ping_outstanding = true;
      nghttp2_submit_ping(self->m_session, NGHTTP2_FLAG_NONE, nullptr);
      self->send();
      self->arm_ping();
    });
  }

  void finish_not_http2() {
    if (!m_done) return;
    m_ping_timer.cancel();
    auto done = std::move(m_done);
    m_done = nullptr;
    done(RunResult{fail("not HTTP/2"), true});
  }

  void finish(Result<StreamEnd> result) {
    if (!m_done) return;
    m_ping_timer.cancel();
    auto done = std::move(m_done);
    m_done = nullptr;
    done(RunResult{std::move(result), false});
  }

  ByteStream& m_stream;
  Exchange& m_exchange;
  RunDone m_done;
  asio::steady_timer m_ping_timer;
  nghttp2_session* m_session = nullptr;
  int32_t m_stream_id = -1;
  int m_status = 0;
  bool m_got_frame = false;
  bool m_stopped = false;
  bool m_closed = false;
  bool m_writing = false;
  bool m_ping_outstanding = false;
  std::size_t m_body_sent = 0;
  Result<StreamEnd> m_result = StreamEnd::Complete;
  std::vector<std::pair<std::string, std::string>> m_header_storage;
  std::string m_out;
  std::array<char, 16 * 1024> m_buffer{};
};

}  // namespace

void run_http2(ByteStream& stream, Exchange& exchange, RunDone done) {
  std::make_shared<Http2Exchange>(stream, exchange, std::move(done))->start();
}

}  // namespace kw::net::client::detail
