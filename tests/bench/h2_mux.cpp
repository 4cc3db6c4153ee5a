// The multiplexed HTTP/2 client connection: one nghttp2 client session per connection, fed
// through mem_recv / mem_send over the byte stream core/net/client connected.
#include "bench/h2_mux.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <nghttp2/nghttp2.h>

#include <array>
#include <cstring>
#include <unordered_map>

#include "core/net/client/detail.hpp"

namespace kw::bench {

namespace asio = boost::asio;
using net::client::detail::ByteStream;
using net::client::detail::ErrorCode;

Result<H2Endpoint> H2Endpoint::create(net::client::ClientConfig config, std::string bearer_token) {
  H2Endpoint endpoint;
  auto url = net::client::parse_url(config.url);
  if (!url) return std::unexpected(url.error());
  endpoint.url = std::move(*url);
  if (endpoint.url.tls) {
    auto tls = net::client::detail::make_tls_context(config);
    if (!tls) return std::unexpected(tls.error());
    endpoint.tls = std::move(*tls);
  }
  endpoint.config = std::move(config);
  endpoint.bearer_token = std::move(bearer_token);
  return endpoint;
}

namespace {

struct StreamState {
  H2Request request;
  H2Handler handler;
  std::size_t body_sent = 0;
  int status = 0;
  bool head_seen = false;
};

nghttp2_nv make_nv(std::string_view name, std::string_view value) {
  return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                    NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

struct H2Connection::Impl {
  std::unique_ptr<ByteStream> stream;
  nghttp2_session* session = nullptr;
  std::string scheme;
  std::string authority;
  std::string authorization;
  std::string path_prefix;
  std::unordered_map<std::int32_t, std::unique_ptr<StreamState>> streams;
  std::string out;
  std::array<char, 16 * 1024> buffer{};

  ~Impl() {
    if (session) nghttp2_session_del(session);
  }

  static StreamState* state_of(void* user, std::int32_t stream_id) {
    auto& streams = static_cast<Impl*>(user)->streams;
    const auto it = streams.find(stream_id);
    return it == streams.end() ? nullptr : it->second.get();
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    StreamState* state = state_of(user, frame->hd.stream_id);
    if (state == nullptr || std::string_view(reinterpret_cast<const char*>(name), name_length) != ":status") return 0;
    int status = 0;
    for (std::size_t i = 0; i < value_length; ++i) status = status * 10 + (value[i] - '0');
    state->status = status;
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    StreamState* state = state_of(user, frame->hd.stream_id);
    if (state == nullptr || state->head_seen || state->status < 200) return 0;
    state->head_seen = true;
    if (state->handler.on_head) state->handler.on_head(state->status);
    return 0;
  }

  static int on_data(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                     std::size_t length, void* user) {
    StreamState* state = state_of(user, stream_id);
    if (state != nullptr && state->handler.on_data)
      state->handler.on_data(std::string_view(reinterpret_cast<const char*>(data), length));
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t error_code, void* user) {
    auto& streams = static_cast<Impl*>(user)->streams;
    const auto it = streams.find(stream_id);
    if (it == streams.end()) return 0;
    std::unique_ptr<StreamState> state = std::move(it->second);
    streams.erase(it);
    if (state->handler.on_close) state->handler.on_close(state->head_seen ? state->status : 0, error_code == NGHTTP2_NO_ERROR);
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length, std::uint32_t* flags,
                           nghttp2_data_source* source, void*) {
    auto* state = static_cast<StreamState*>(source->ptr);
    const std::string& body = state->request.body;
    const std::size_t n = std::min(length, body.size() - state->body_sent);
    std::memcpy(buf, body.data() + state->body_sent, n);
    state->body_sent += n;
    if (state->body_sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  bool create_session() {
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    const int rv = nghttp2_session_client_new(&session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0) return false;
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                               {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, 16 << 20);
    return true;
  }
};

void H2Connection::open(asio::io_context& io, const H2Endpoint& endpoint, OpenDone done) {
  net::client::detail::ConnectTarget target{endpoint.url, {}};
  if (endpoint.url.tls) target.alpn = {"h2"};
  net::client::detail::connect(
      io, endpoint.config, endpoint.tls, target,
      [&endpoint, done = std::move(done)](Result<std::unique_ptr<ByteStream>> stream) {
        if (!stream) return done(std::unexpected(stream.error()));
        if (endpoint.url.tls && (*stream)->alpn() != "h2") return done(kw::fail("the server did not agree to HTTP/2"));
        auto impl = std::make_unique<Impl>();
        impl->stream = std::move(*stream);
        impl->scheme = endpoint.url.tls ? "https" : "http";
        impl->authority = endpoint.url.authority();
        impl->path_prefix = endpoint.url.path_prefix;
        if (!endpoint.bearer_token.empty()) impl->authorization = "Bearer " + endpoint.bearer_token;
        if (!impl->create_session()) return done(kw::fail("cannot create an HTTP/2 session"));
        std::shared_ptr<H2Connection> connection(new H2Connection(std::move(impl)));
        connection->send();
        connection->read();
        done(std::move(connection));
      });
}

H2Connection::H2Connection(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {
  nghttp2_session_set_user_data(m_impl->session, m_impl.get());
}

H2Connection::~H2Connection() = default;

bool H2Connection::submit(H2Request request, H2Handler handler) {
  if (!m_alive) return false;
  auto state = std::make_unique<StreamState>();
  state->request = std::move(request);
  state->handler = std::move(handler);
  const H2Request& r = state->request;
  const std::string path = m_impl->path_prefix + r.path;
  const std::string length = std::to_string(r.body.size());
  std::vector<nghttp2_nv> headers = {make_nv(":method", r.method), make_nv(":scheme", m_impl->scheme),
                                     make_nv(":authority", m_impl->authority), make_nv(":path", path),
                                     make_nv("user-agent", "kw-cluster-load")};
  if (!r.accept.empty()) headers.push_back(make_nv("accept", r.accept));
  if (!r.content_type.empty()) headers.push_back(make_nv("content-type", r.content_type));
  if (!r.body.empty()) headers.push_back(make_nv("content-length", length));
  if (!m_impl->authorization.empty()) headers.push_back(make_nv("authorization", m_impl->authorization));
  nghttp2_data_provider provider{};
  provider.source.ptr = state.get();
  provider.read_callback = Impl::read_body;
  const std::int32_t id = nghttp2_submit_request(m_impl->session, nullptr, headers.data(), headers.size(),
                                                 r.body.empty() ? nullptr : &provider, nullptr);
  if (id < 0) return false;
  m_impl->streams.emplace(id, std::move(state));
  send();
  return true;
}

void H2Connection::read() {
  auto self = shared_from_this();
  m_impl->stream->async_read_some(asio::buffer(m_impl->buffer), [self](ErrorCode ec, std::size_t n) {
    if (!self->m_alive) return;
    if (ec) return self->fail_all();
    // Callbacks may submit requests; what they queue is sent after mem_recv returns (nghttp2
    // must not be asked to send from inside its own callbacks).
    self->m_receiving = true;
    const auto rv = nghttp2_session_mem_recv(self->m_impl->session,
                                             reinterpret_cast<const std::uint8_t*>(self->m_impl->buffer.data()), n);
    self->m_receiving = false;
    if (rv < 0 || !self->m_alive) return self->fail_all();
    self->send();
    self->read();
  });
}

void H2Connection::send() {
  if (m_writing || m_receiving || !m_alive) return;
  std::string& out = m_impl->out;
  out.clear();
  for (;;) {
    const std::uint8_t* data = nullptr;
    const auto n = nghttp2_session_mem_send(m_impl->session, &data);
    if (n < 0) return fail_all();
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    if (out.size() > 256 * 1024) break;
  }
  if (out.empty()) return;
  m_writing = true;
  auto self = shared_from_this();
  asio::async_write(*m_impl->stream, asio::buffer(out), [self](ErrorCode ec, std::size_t) {
    self->m_writing = false;
    if (ec) return self->fail_all();
    self->send();
  });
}

void H2Connection::fail_all() {
  if (!m_alive) return;
  m_alive = false;
  m_impl->stream->close();
  auto streams = std::move(m_impl->streams);
  m_impl->streams.clear();
  for (auto& [id, state] : streams)
    if (state->handler.on_close) state->handler.on_close(state->head_seen ? state->status : 0, false);
}

void H2Connection::close() {
  // Deferred: close() may be called from inside one of this session's callbacks.
  auto self = shared_from_this();
  asio::post(m_impl->stream->get_executor(), [self] { self->fail_all(); });
}

bool h2_call(H2Connection& connection, H2Request request, std::function<void(int status, std::string body)> done) {
  auto body = std::make_shared<std::string>();
  H2Handler handler;
  handler.on_data = [body](std::string_view bytes) { body->append(bytes); };
  handler.on_close = [body, done = std::move(done)](int status, bool clean) {
    done(clean ? status : 0, std::move(*body));
  };
  return connection.submit(std::move(request), std::move(handler));
}

}  // namespace kw::bench
