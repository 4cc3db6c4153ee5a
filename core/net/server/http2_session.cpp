// HTTP/2 on nghttp2: the session only sees bytes (mem_recv / mem_send); this file moves them
// between the session and the connection's ByteStream. Each response body is a deferred data
// provider resumed when the handler writes, so flow control stalls only its own stream.
#include <nghttp2/nghttp2.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <vector>
#include <unordered_map>

#include "core/net/server/http_text.hpp"
#include "core/net/server/response_stream.hpp"
#include "core/util/text.hpp"

namespace kw::net::detail {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto k_ping_interval = std::chrono::seconds(30);
// Bytes taken from the session per socket write: one event for a few hundred streams.
constexpr std::size_t k_output_batch = 256 * 1024;
constexpr std::size_t k_kept_output = 64 * 1024;

struct H2Stream {
  std::int32_t id = 0;
  Request request;
  std::size_t header_bytes = 0;
  bool headers_too_large = false;
  bool target_too_long = false;
  bool body_too_large = false;
  bool dispatched = false;  // the handler (or an error response) owns the answer
  bool headers_done = false;
  // Until dispatched: the request's headers, then its body, must be complete by then.
  std::chrono::steady_clock::time_point deadline{};
  bool responded = false;   // response HEADERS submitted
  bool finish_requested = false;
  bool eof_sent = false;
  bool aborted = false;     // reset by the handler (RST_STREAM CANCEL): nothing more is sent
  std::shared_ptr<StreamCore> core;
  // Body bytes not yet handed to nghttp2: queue[queue_head..], the first from front_offset.
  // A vector, not a deque: an idle watch stream then costs no buffer at all.
  std::vector<std::shared_ptr<const std::string>> queue;
  std::size_t queue_head = 0;
  std::size_t front_offset = 0;
  bool queue_empty() const { return queue_head == queue.size(); }
};

bool connection_specific(std::string_view name) {
  return name == "connection" || name == "keep-alive" || name == "proxy-connection" ||
         name == "transfer-encoding" || name == "upgrade";
}

class Http2Session final : public Connection, public StreamSink, public std::enable_shared_from_this<Http2Session> {
 public:
  Http2Session(ServerState& state, ByteStream stream)
      : m_state(state), m_stream(std::move(stream)), m_timer(m_stream.get_executor()) {}

  ~Http2Session() override {
    m_state.connections.remove(this);
    if (m_session != nullptr) nghttp2_session_del(m_session);
  }

  void start(std::string initial) {
    m_state.connections.add(shared_from_this(), m_stream.get_executor());
    if (!create_session()) {
      close_now();
      return;
    }
    m_last_read = m_last_activity = Clock::now();
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, m_state.config.max_concurrent_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, header_list_limit()},
    };
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    if (m_state.shutting_down.load()) begin_shutdown();
    if (!initial.empty() && !feed(initial.data(), initial.size())) return;
    flush_output();
    arm_timer();
    read_next();
  }

  // Connection
  void begin_shutdown() override {
    if (m_closed || m_goaway_sent) return;
    m_goaway_sent = true;
    nghttp2_submit_goaway(m_session, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(m_session),
                          NGHTTP2_NO_ERROR, nullptr, 0);
    flush_output();
  }

  void force_close() override {
    if (m_closed) return;
    begin_shutdown();
    for (auto& [id, stream] : m_streams) {
      if (stream->core) stream->core->peer_gone();
      if (stream->responded) {
        stream->finish_requested = true;
        nghttp2_session_resume_data(m_session, id);
      } else {
        nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
      }
    }
    flush_output();
  }

  // StreamSink
  void sink_begin(std::int64_t id, ResponseHead head) override {
    H2Stream* stream = find(id);
    if (stream == nullptr || stream->responded) return;
    submit_response(*stream, head);
    flush_output();
  }

  void sink_write(std::int64_t id, std::shared_ptr<const std::string> bytes) override {
    H2Stream* stream = find(id);
    if (stream == nullptr || stream->finish_requested || stream->eof_sent) {
      if (stream != nullptr && stream->core) stream->core->sent(bytes->size());
      return;
    }
    if (!stream->responded) submit_response(*stream, ResponseHead{});
    if (bytes->empty()) return;
    stream->queue.push_back(std::move(bytes));
    nghttp2_session_resume_data(m_session, stream->id);
  }

  // Writes of one batch (many streams, one event each) leave together in sink_drained().
  void sink_flush(std::int64_t) override {}
  void sink_drained() override { flush_output(); }

  void sink_finish(std::int64_t id) override {
    H2Stream* stream = find(id);
    if (stream == nullptr || stream->finish_requested) return;
    if (!stream->responded) submit_response(*stream, ResponseHead{});
    stream->finish_requested = true;
    nghttp2_session_resume_data(m_session, stream->id);
    flush_output();
  }

  void sink_abort(std::int64_t id) override {
    H2Stream* stream = find(id);
    if (stream == nullptr || stream->eof_sent || stream->aborted) return;
    stream->aborted = true;
    std::size_t dropped = 0;
    for (std::size_t i = stream->queue_head; i < stream->queue.size(); ++i) dropped += stream->queue[i]->size();
    dropped -= stream->front_offset;
    stream->queue.clear();
    stream->queue_head = 0;
    stream->front_offset = 0;
    if (stream->core) stream->core->sent(dropped);
    nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, stream->id, NGHTTP2_CANCEL);
    flush_output();
  }

  Strand sink_strand() override { return m_stream.get_executor(); }

 private:
  static Http2Session& self(void* user_data) { return *static_cast<Http2Session*>(user_data); }

  bool create_session() {
    nghttp2_session_callbacks* callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return false;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    nghttp2_session_callbacks_set_send_data_callback(callbacks, send_body);
    const int rv = nghttp2_session_server_new(&m_session, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    return rv == 0;
  }

  std::uint32_t header_list_limit() const {
    const std::size_t limit = m_state.config.max_header_bytes;
    return static_cast<std::uint32_t>(std::min<std::size_t>(limit, std::numeric_limits<std::uint32_t>::max()));
  }

  H2Stream* find(std::int64_t id) {
    auto it = m_streams.find(static_cast<std::int32_t>(id));
    return it == m_streams.end() ? nullptr : it->second.get();
  }

  // nghttp2 callbacks (run inside mem_recv / mem_send, on the strand).
  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    auto stream = std::make_unique<H2Stream>();
    stream->id = frame->hd.stream_id;
    stream->deadline = Clock::now() + self(user_data).m_state.config.read_header_timeout;
    self(user_data).m_streams[stream->id] = std::move(stream);
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* user_data) {
    H2Stream* stream = self(user_data).find(frame->hd.stream_id);
    if (stream == nullptr || stream->dispatched) return 0;
    const std::string_view key(reinterpret_cast<const char*>(name), name_length);
    if (key == ":path" && value_length > self(user_data).m_state.config.max_url_bytes) {
      stream->target_too_long = true;
      return 0;
    }
    stream->header_bytes += name_length + value_length + 32;
    if (stream->header_bytes > self(user_data).m_state.config.max_header_bytes) {
      stream->headers_too_large = true;
      return 0;
    }
    std::string text(reinterpret_cast<const char*>(value), value_length);
    Request& request = stream->request;
    if (key == ":method") {
      request.method = std::move(text);
    } else if (key == ":path") {
      split_target(text, request);
    } else if (key == ":authority") {
      if (!request.header("host")) request.headers.push_back({"host", std::move(text)});
    } else if (!key.empty() && key.front() != ':') {
      request.headers.push_back({std::string(key), std::move(text)});
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                           std::size_t length, void* user_data) {
    Http2Session& session = self(user_data);
    H2Stream* stream = session.find(stream_id);
    if (stream == nullptr || stream->dispatched) return 0;
    if (stream->request.body.size() + length > session.m_state.config.max_body_bytes) {
      stream->body_too_large = true;
      session.reject(*stream, 413);
      return 0;
    }
    stream->request.body.append(reinterpret_cast<const char*>(data), length);
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    Http2Session& session = self(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    H2Stream* stream = session.find(frame->hd.stream_id);
    if (stream == nullptr || stream->dispatched) return 0;
    if (frame->hd.type == NGHTTP2_HEADERS) {
      stream->headers_done = true;
      stream->deadline = Clock::now() + session.m_state.config.read_body_timeout;
      if (stream->target_too_long) {
        session.reject(*stream, 414);
        return 0;
      }
      if (stream->headers_too_large) {
        session.reject(*stream, 431);
        return 0;
      }
      if (session.declared_too_large(stream->request)) {
        session.reject(*stream, 413);
        return 0;
      }
      if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM) && session.m_state.config.admit_body) {
        session.fill_peer(stream->request);
        if (!session.m_state.config.admit_body(stream->request)) {
          // Answered without its body, whose DATA frames are then dropped (the stream counts as
          // dispatched).
          session.dispatch(*stream);
          return 0;
        }
      }
    }
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) session.dispatch(*stream);
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t, void* user_data) {
    Http2Session& session = self(user_data);
    auto it = session.m_streams.find(stream_id);
    if (it == session.m_streams.end()) return 0;
    session.m_last_activity = Clock::now();  // the idle timeout counts from the last response
    if (auto& core = it->second->core) {
      if (!it->second->eof_sent) core->peer_gone();
      core->transport_done();
    }
    session.m_streams.erase(it);
    return 0;
  }

  // Sizes the next DATA frame of a response; its bytes are copied once, straight from the
  // shared event buffers into the output, by send_body (NGHTTP2_DATA_FLAG_NO_COPY).
  // The data source carries the stream itself (it outlives every call: nghttp2 closes the
  // stream before on_stream_close frees it), so no lookup per frame.
  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t*, std::size_t length,
                           std::uint32_t* data_flags, nghttp2_data_source* source, void*) {
    auto* stream = static_cast<H2Stream*>(source->ptr);
    if (stream->aborted) return NGHTTP2_ERR_DEFERRED;  // its RST_STREAM is on its way
    // Counts past `length` by one buffer at most: enough to know whether this frame empties the queue.
    std::size_t available = 0;
    std::size_t next = stream->queue_head;
    for (; next < stream->queue.size() && available <= length; ++next)
      available += stream->queue[next]->size() - (next == stream->queue_head ? stream->front_offset : 0);
    const std::size_t n = std::min(length, available);
    const bool last = n == available && next == stream->queue.size() && stream->finish_requested;
    if (n == 0 && !last) return NGHTTP2_ERR_DEFERRED;
    if (n > 0) *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    if (last) {
      *data_flags |= NGHTTP2_DATA_FLAG_EOF;
      stream->eof_sent = true;
      if (stream->core) stream->core->transport_done();
    }
    return static_cast<ssize_t>(n);
  }

  // Appends one DATA frame: nghttp2's 9-byte header, then `length` queued body bytes.
  // The bytes are copied into one contiguous batch: one large send per batch costs less, on
  // both ends of the connection, than gathering hundreds of small buffers (Asio sends at most
  // 64 of them per call).
  static int send_body(nghttp2_session*, nghttp2_frame*, const std::uint8_t* frame_head, std::size_t length,
                       nghttp2_data_source* source, void* user_data) {
    Http2Session& session = self(user_data);
    auto* stream = static_cast<H2Stream*>(source->ptr);
    session.m_output.append(reinterpret_cast<const char*>(frame_head), 9);
    std::size_t copied = 0;
    while (copied < length && !stream->queue_empty()) {
      const std::string& front = *stream->queue[stream->queue_head];
      const std::size_t n = std::min(length - copied, front.size() - stream->front_offset);
      session.m_output.append(front.data() + stream->front_offset, n);
      copied += n;
      stream->front_offset += n;
      if (stream->front_offset == front.size()) {
        stream->queue[stream->queue_head++].reset();
        stream->front_offset = 0;
      }
    }
    if (stream->queue_empty()) {
      stream->queue.clear();
      stream->queue_head = 0;
    }
    if (stream->core) stream->core->sent(copied);
    // A full batch goes to the socket before more frames are packed.
    return session.m_output.size() >= k_output_batch ? NGHTTP2_ERR_PAUSE : 0;
  }

  bool declared_too_large(const Request& request) const {
    const std::string* length = request.header("content-length");
    if (length == nullptr) return false;
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), value);
    return ec == std::errc() && value > m_state.config.max_body_bytes;
  }

  void fill_peer(Request& request) const {
    request.protocol = Protocol::http2;
    request.tls = m_stream.peer().tls;
    request.peer = m_stream.peer().identity;
    request.remote_address = m_stream.peer().remote_address;
  }

  void dispatch(H2Stream& stream) {
    stream.dispatched = true;
    fill_peer(stream.request);
    stream.core = std::make_shared<StreamCore>(m_state.link, weak_from_this(), stream.id, m_outbox);
    m_state.dispatch(std::move(stream.request), make_response_stream(stream.core, Protocol::http2));
  }

  void reject(H2Stream& stream, int status) {
    stream.dispatched = true;
    auto answer = refusal(status, m_state.config.max_body_bytes);
    ResponseHead head{
        .status = status,
        .headers = {{"content-type", answer.content_type}, {"content-length", std::to_string(answer.body.size())}},
        .binary_messages = false};
    submit_response(stream, head);
    stream.queue.push_back(std::make_shared<const std::string>(std::move(answer.body)));
    stream.finish_requested = true;
  }

  void submit_response(H2Stream& stream, const ResponseHead& head) {
    stream.responded = true;
    const std::string status = std::to_string(head.status);
    std::vector<nghttp2_nv> headers;
    auto add = [&headers](const std::string& name, const std::string& value) {
      headers.push_back(nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                                   reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                                   value.size(), NGHTTP2_NV_FLAG_NONE});
    };
    static const std::string k_status = ":status";
    add(k_status, status);
    std::vector<std::string> lowered;
    lowered.reserve(head.headers.size());
    for (const auto& h : head.headers) {
      lowered.push_back(util::to_lower(h.name));
      if (!connection_specific(lowered.back())) add(lowered.back(), h.value);
    }
    const bool no_body = stream.request.method == "HEAD" || head.status == 204 || head.status == 304;
    nghttp2_data_provider provider{};
    provider.source.ptr = &stream;
    provider.read_callback = read_body;
    if (no_body) {
      stream.finish_requested = stream.eof_sent = true;
      if (stream.core) stream.core->transport_done();
    }
    nghttp2_submit_response(m_session, stream.id, headers.data(), headers.size(), no_body ? nullptr : &provider);
  }

  bool feed(const char* data, std::size_t size) {
    const auto rv = nghttp2_session_mem_recv(m_session, reinterpret_cast<const std::uint8_t*>(data), size);
    if (rv < 0) {
      // A protocol error (bad HPACK, too many CONTINUATION frames, ...): nghttp2 queued a
      // GOAWAY for most of them; make sure one goes out, then close once it is written.
      m_fatal = true;
      if (!nghttp2_is_fatal(static_cast<int>(rv)) && !nghttp2_session_want_write(m_session))
        nghttp2_session_terminate_session(m_session, NGHTTP2_PROTOCOL_ERROR);
      flush_output();
      return false;
    }
    return true;
  }

  void read_next() {
    if (m_closed || m_fatal) return;
    m_stream.async_read_some(asio::buffer(m_input), [self = shared_from_this()](ErrorCode ec, std::size_t n) {
      if (ec) {
        self->close_now();
        return;
      }
      self->m_last_read = self->m_last_activity = Clock::now();
      if (!self->feed(self->m_input.data(), n)) return;
      self->flush_output();
      self->read_next();
    });
  }

  void flush_output() {
    if (m_writing || m_closed) return;
    m_output.clear();
    while (m_output.size() < k_output_batch) {
      const std::uint8_t* data = nullptr;
      const auto n = nghttp2_session_mem_send(m_session, &data);
      if (n < 0) {
        close_now();
        return;
      }
      if (n == 0) break;
      m_output.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    if (m_output.empty()) {
      if (m_fatal || (!nghttp2_session_want_read(m_session) && !nghttp2_session_want_write(m_session))) close_now();
      return;
    }
    m_writing = true;
    m_write_progress = Clock::now();
    asio::async_write(
        m_stream, asio::buffer(m_output),
        [this](const ErrorCode& error, std::size_t written) {  // each partial write is progress
          m_write_progress = Clock::now();
          return asio::transfer_all()(error, written);
        },
        [self = shared_from_this()](ErrorCode ec, std::size_t) {
      self->m_writing = false;
      if (ec) {
        self->close_now();
        return;
      }
      // An idle connection keeps a small buffer only.
      if (self->m_output.capacity() > k_kept_output) std::string().swap(self->m_output);
      self->flush_output();
    });
  }

  void arm_timer() {
    const auto period = std::min<Clock::duration>(
        {k_ping_interval, m_state.config.idle_timeout,
         std::chrono::duration_cast<Clock::duration>(m_state.config.write_stall_timeout) / 2,
         std::chrono::duration_cast<Clock::duration>(m_state.config.read_header_timeout) / 2,
         std::chrono::duration_cast<Clock::duration>(m_state.config.read_body_timeout) / 2});
    m_timer.expires_after(period);
    m_timer.async_wait([self = shared_from_this()](ErrorCode ec) {
      if (!ec) self->on_timer();
    });
  }

  // Keeps idle connections alive through NATs and closes those idle past the timeout.
  void on_timer() {
    if (m_closed) return;
    const auto now = Clock::now();
    if (m_writing && now - m_write_progress >= m_state.config.write_stall_timeout) {
      close_now();  // the peer has stopped reading
      return;
    }
    if (!expire_incomplete_requests(now)) return;
    if (m_streams.empty() && now - m_last_activity >= m_state.config.idle_timeout) {
      begin_shutdown();
    } else if (now - m_last_read >= k_ping_interval) {
      nghttp2_submit_ping(m_session, NGHTTP2_FLAG_NONE, nullptr);
      flush_output();
    }
    arm_timer();
  }

  // Requests still arriving past their deadline (read_header_timeout from their first frame,
  // then read_body_timeout from their headers): a trickled body is answered 408 and no longer
  // buffered; a header block left incomplete holds the whole connection (nothing else may
  // come between its frames), so the connection is closed. False when it was.
  bool expire_incomplete_requests(Clock::time_point now) {
    std::vector<H2Stream*> late;
    for (auto& [id, stream] : m_streams) {
      if (stream->dispatched || now < stream->deadline) continue;
      if (!stream->headers_done) {
        close_now();
        return false;
      }
      late.push_back(stream.get());
    }
    for (H2Stream* stream : late) {
      stream->request.body = {};
      reject(*stream, 408);
    }
    return true;
  }

  void close_now() {
    if (m_closed) return;
    m_closed = true;
    m_timer.cancel();
    for (auto& [id, stream] : m_streams) {
      if (stream->core) {
        stream->core->peer_gone();
        stream->core->transport_done();
      }
    }
    m_streams.clear();
    m_stream.close();
    m_state.connections.remove(this);
  }

  ServerState& m_state;
  ByteStream m_stream;
  asio::steady_timer m_timer;
  nghttp2_session* m_session = nullptr;
  std::shared_ptr<Outbox> m_outbox = std::make_shared<Outbox>();  // shared by this connection's streams
  std::unordered_map<std::int32_t, std::unique_ptr<H2Stream>> m_streams;
  std::array<char, 16 * 1024> m_input{};
  std::string m_output;
  Clock::time_point m_last_read;
  Clock::time_point m_last_activity;
  Clock::time_point m_write_progress{};  // when the peer last took bytes of the write in flight
  bool m_writing = false;
  bool m_goaway_sent = false;
  bool m_fatal = false;
  bool m_closed = false;
};

}  // namespace

void start_http2(ServerState& state, ByteStream stream, std::string initial) {
  std::make_shared<Http2Session>(state, std::move(stream))->start(std::move(initial));
}

}  // namespace kw::net::detail
