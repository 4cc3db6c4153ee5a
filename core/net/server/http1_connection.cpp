// HTTP/1.1: Beast parses requests from bytes the connection reads itself; responses are
// written as raw bytes (fixed length or chunked), so each flush reaches the client at once.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>

#include <array>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <ranges>
#include <stdexcept>

#include "core/net/server/http_text.hpp"
#include "core/net/beast_text.hpp"
#include "core/net/server/response_stream.hpp"
#include "core/net/server/websocket_session.hpp"
#include "core/util/text.hpp"

namespace kw::net::detail {

namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using Parser = http::request_parser<http::string_body>;


constexpr std::size_t k_read_chunk = 16 * 1024;
// While a response streams (a watch), reads only notice the peer leaving or its next request:
// a small buffer keeps thousands of idle watch connections cheap.
constexpr std::size_t k_read_chunk_active = 512;
constexpr auto k_linger = std::chrono::seconds(2);
constexpr std::size_t k_kept_pieces = 16;

bool has_token(std::string_view list, std::string_view token) {
  const std::string lower = util::to_lower(list);
  std::size_t start = 0;
  while (start <= lower.size()) {
    auto end = lower.find(',', start);
    if (end == std::string::npos) end = lower.size();
    std::string_view item(lower.data() + start, end - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item == token) return true;
    start = end + 1;
  }
  return false;
}

bool is_websocket_upgrade(const Request& request) {
  const std::string* upgrade = request.header("upgrade");
  const std::string* connection = request.header("connection");
  return request.method == "GET" && upgrade != nullptr && connection != nullptr &&
         util::to_lower(*upgrade) == "websocket" && has_token(*connection, "upgrade");
}

class Http1Connection final : public Connection,
                              public StreamSink,
                              public std::enable_shared_from_this<Http1Connection> {
 public:
  Http1Connection(ServerState& state, ByteStream stream)
      : m_state(state), m_stream(std::move(stream)), m_timer(m_stream.get_executor()) {}

  ~Http1Connection() override {
    if (m_outbox) m_outbox->stop_direct();  // before the socket closes with m_stream
    m_state.connections.remove(this);
  }

  void start(std::string initial) {
    m_state.connections.add(shared_from_this(), m_stream.get_executor());
    if (m_state.shutting_down.load()) {
      close_now();
      return;
    }
    if (!initial.empty()) {
      auto area = m_input.prepare(initial.size());
      std::memcpy(area.data(), initial.data(), initial.size());
      m_input.commit(initial.size());
    }
    touch();
    arm_idle_timer(m_state.config.idle_timeout);
    process_input();
    read_next();
  }

  // Connection
  void begin_shutdown() override {
    m_close_after = true;
    if (!m_active) close_now();
  }

  void force_close() override {
    m_close_after = true;
    if (!m_active || m_closing) {
      close_now();
      return;
    }
    if (m_core) m_core->peer_gone();
    if (!m_head_sent) {
      close_now();
      return;
    }
    if (!m_finish_requested) sink_finish(m_request_id);
  }

  // StreamSink
  void sink_begin(std::int64_t id, ResponseHead head) override {
    if (!current(id) || m_head_sent) return;
    m_fd = m_stream.native_handle();
    m_head_sent = true;
    const bool has_length = has_header(head.headers, "content-length");
    m_no_body = m_head_request || head.status < 200 || head.status == 204 || head.status == 304;
    m_chunked = !m_no_body && !has_length;
    if (m_chunked) head.headers.push_back({"transfer-encoding", "chunked"});
    if (m_close_after || m_state.shutting_down.load()) {
      m_close_after = true;
      head.headers.push_back({"connection", "close"});
    }
    enqueue(std::make_shared<const std::string>(serialize_http1_head(head.status, head.headers)), 0);
    pump();
  }

  void sink_write(std::int64_t id, std::shared_ptr<const std::string> bytes) override {
    if (!current(id) || m_finish_requested || m_closing) {
      if (m_core && id == m_request_id) m_core->sent(bytes->size());
      return;
    }
    if (!m_head_sent) sink_begin(id, ResponseHead{});
    const std::size_t size = bytes->size();
    if (m_no_body || size == 0) {
      m_core->sent(size);
      return;
    }
    if (!leave_direct()) return;
    // A chunk's size line and closing CRLF travel with its bytes: no allocation per event.
    m_queue.push_back(m_chunked ? WirePiece::chunk(std::move(bytes)) : WirePiece::raw(std::move(bytes), size));
    pump();
  }

  void sink_flush(std::int64_t id) override {
    if (current(id)) pump();
  }

  void sink_takeover(std::int64_t id) override {
    if (current(id) && leave_direct()) pump();
  }

  void sink_finish(std::int64_t id) override {
    if (!current(id) || m_finish_requested) return;
    if (!leave_direct()) return;
    if (!m_head_sent) sink_begin(id, ResponseHead{});
    if (m_chunked) enqueue(k_last_chunk, 0);
    m_finish_requested = true;
    pump();
  }

  // HTTP/1.1 cannot end a response early but by closing the connection.
  void sink_abort(std::int64_t id) override {
    if (current(id)) close_now();
  }

  Strand sink_strand() override { return m_stream.get_executor(); }

 private:
  static inline const auto k_last_chunk = std::make_shared<const std::string>("0\r\n\r\n");

  bool current(std::int64_t id) const { return m_active && id == m_request_id && !m_closing; }
  void touch() { m_last_activity = Clock::now(); }

  void arm_idle_timer(Clock::duration after) {
    m_timer.expires_after(after);
    m_timer.async_wait([self = shared_from_this()](ErrorCode ec) {
      if (!ec) self->on_idle_check();
    });
  }

  void on_idle_check() {
    if (m_closing) return;
    const auto now = Clock::now();
    const auto idle_for = now - m_last_activity;
    const auto limit = std::chrono::duration_cast<Clock::duration>(m_state.config.idle_timeout);
    if (!m_active && idle_for >= limit) {
      close_now();
      return;
    }
    auto next = m_active ? limit : limit - idle_for;
    if (m_writing) {
      const auto stall = std::chrono::duration_cast<Clock::duration>(m_state.config.write_stall_timeout);
      const auto stalled_for = now - m_write_progress;
      if (stalled_for >= stall) {
        close_now();
        return;
      }
      next = std::min(next, stall - stalled_for);
    }
    if (reading_request()) {
      const auto head_left = m_head_deadline - now;
      if (head_left <= Clock::duration::zero()) {
        close_now();
        return;
      }
      next = std::min(next, head_left);
    }
    arm_idle_timer(next);
  }

  // A request has started to arrive and is not complete yet (its head, then its body).
  bool reading_request() const { return !m_active && m_parser.has_value(); }

  // Called when the first bytes of a request arrive: its head must be complete in time.
  void start_body_deadline() {
    m_head_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(m_state.config.read_body_timeout);
    if (m_timer.expiry() > m_head_deadline) arm_idle_timer(m_head_deadline - Clock::now());
  }

  void start_head_deadline() {
    m_head_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(m_state.config.read_header_timeout);
    if (m_timer.expiry() > m_head_deadline) arm_idle_timer(m_head_deadline - Clock::now());
  }

  void read_next() {
    if (m_reading || m_closing || m_handed_off) return;
    // While a response is in flight only a small backlog is kept (no pipelining).
    if (m_active && !m_discard_input && m_input.size() > m_state.config.max_header_bytes) return;
    if (m_active && m_input.size() == 0) m_input.shrink_to_fit();  // a long response: hold no buffer
    m_reading = true;
    // Reads land in their own buffer: m_input is parsed (and consumed) while a read is
    // outstanding, which would move the area a read into m_input.prepare() writes to.
    m_stream.async_read_some(read_area(), [self = shared_from_this()](ErrorCode ec, std::size_t n) {
      self->on_read(ec, n);
    });
  }

  void on_read(ErrorCode ec, std::size_t n) {
    m_reading = false;
    if (m_closing) {
      if (ec || m_lingering_done) close_now();
      else read_next_discarding();
      return;
    }
    if (ec) {
      close_now();
      return;
    }
    if (m_discard_input) {  // an unwanted body: dropped as it comes
      read_next();
      return;
    }
    const auto area = m_input.prepare(n);
    std::memcpy(area.data(), m_read_buffer.get(), n);
    m_input.commit(n);
    touch();
    process_input();
    read_next();
  }

  void process_input() {
    while (!m_active && !m_closing && !m_handed_off && m_input.size() > 0) {
      if (!m_parser) {
        m_parser.emplace();
        m_parser->eager(true);
        m_parser->header_limit(static_cast<std::uint32_t>(m_state.config.max_header_bytes));
        m_parser->body_limit(m_state.config.max_body_bytes);
        m_continue_sent = false;
        m_body_admitted = false;
        start_head_deadline();
      }
      if (!m_parser->is_header_done() && target_too_long()) {
        reject(414);
        return;
      }
      ErrorCode ec;
      std::size_t used = 0;
      try {
        used = m_parser->put(m_input.data(), ec);
      } catch (const std::length_error&) {
        // Beast keeps a field's name and value in 16-bit lengths: one header field (or chunked
        // trailer) of 64 KiB or more cannot be held, and is refused like an oversized head.
        reject(431);
        return;
      }
      m_input.consume(used);
      if (ec == http::error::need_more) {
        send_continue_if_asked();
        return;
      }
      if (ec) {
        reject(ec == http::error::body_limit ? 413 : ec == http::error::header_limit ? 431 : 400);
        return;
      }
      if (m_parser->is_header_done() && !transfer_coding_supported()) {
        // The body would otherwise be read as the next request (request smuggling).
        reject(501);
        return;
      }
      if (m_parser->is_header_done() && !expectation_met()) {
        reject(417);
        return;
      }
      if (m_parser->is_header_done() && !m_parser->is_done() && !m_body_admitted) {
        m_body_admitted = true;
        if (m_state.config.admit_body && !m_state.config.admit_body(request_of(m_parser->get()))) {
          on_request_without_body();
          return;
        }
        start_body_deadline();
      }
      if (m_parser->is_done()) {
        on_request();
      } else {
        send_continue_if_asked();
        if (used == 0) return;
      }
    }
  }

  // Transfer-Encoding as Go's server (kube-apiserver's) accepts it: absent, or one field that
  // says "chunked". Any other coding is 501 and the connection is closed.
  bool transfer_coding_supported() const {
    const auto& fields = m_parser->get();
    const auto [first, last] = fields.equal_range(http::field::transfer_encoding);
    if (first == last) return true;
    if (std::next(first) != last) return false;
    std::string_view value = view(first->value());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    return util::iequals(value, "chunked");
  }

  // Go's server (kube-apiserver's) meets one expectation, 100-continue: a token of the Expect
  // field, in any case. Any other Expect is answered 417 and the connection closed.
  bool expects_continue() const {
    const auto it = m_parser->get().find(http::field::expect);
    if (it == m_parser->get().end()) return false;
    for (auto token : std::views::split(view(it->value()), ','))
      if (util::iequals(util::trim(std::string_view(token.begin(), token.end())), "100-continue")) return true;
    return false;
  }
  bool expectation_met() const {
    const auto it = m_parser->get().find(http::field::expect);
    return it == m_parser->get().end() || it->value().empty() || expects_continue();
  }

  // The request line's target is longer than max_url_bytes (checked before the parser, whose
  // header limit covers the request line too and would answer 431).
  bool target_too_long() const {
    const auto data = m_input.data();
    const std::string_view head(static_cast<const char*>(data.data()), data.size());
    const std::size_t limit = m_state.config.max_url_bytes;
    const std::size_t line_end = head.find('\n');
    const std::string_view line = head.substr(0, line_end);
    const std::size_t first_space = line.find(' ');
    if (first_space == std::string_view::npos) return false;  // no target yet, or the parser refuses it
    // Incomplete line: the target is at least what arrived after the method.
    if (line_end == std::string_view::npos) return line.size() - first_space - 1 > limit;
    const std::size_t last_space = line.rfind(' ');
    if (last_space <= first_space) return false;
    return last_space - first_space - 1 > limit;
  }

  void send_continue_if_asked() {
    if (!m_parser || m_continue_sent || !m_parser->is_header_done()) return;
    if (!expects_continue()) return;
    m_continue_sent = true;
    enqueue(std::make_shared<const std::string>("HTTP/1.1 100 Continue\r\n\r\n"), 0);
    pump();
  }

  void reject(int status) {
    m_parser.reset();
    m_active = true;
    m_close_after = true;
    m_head_sent = true;
    m_finish_requested = true;
    const auto answer = refusal(status, m_state.config.max_body_bytes);
    Headers headers{{"content-type", answer.content_type},
                    {"content-length", std::to_string(answer.body.size())},
                    {"connection", "close"}};
    enqueue(std::make_shared<const std::string>(serialize_http1_head(status, headers) + answer.body), 0);
    pump();
  }

  // A request's head (its body, if any, left out) with the connection's peer.
  Request request_of(const http::request<http::string_body>& message) const {
    Request request;
    request.method = std::string(view(message.method_string()));
    split_target(view(message.target()), request);
    for (const auto& field : message) {
      request.headers.push_back({util::to_lower(view(field.name_string())), std::string(view(field.value()))});
    }
    request.protocol = Protocol::http1;
    request.tls = m_stream.peer().tls;
    request.peer = m_stream.peer().identity;
    request.remote_address = m_stream.peer().remote_address;
    return request;
  }

  // admit_body said no: the request goes on without its body, the connection ends with its
  // answer, and what the client still sends of the body is read and dropped meanwhile.
  void on_request_without_body() {
    Request request = request_of(m_parser->get());
    m_parser.reset();
    m_input.consume(m_input.size());
    m_discard_input = true;
    start_request(std::move(request), /*keep_alive=*/false);
  }

  void on_request() {
    auto message = m_parser->release();
    m_parser.reset();
    Request request = request_of(message);
    request.body = std::move(message.body());

    if (is_websocket_upgrade(request) && message.version() == 11) {
      m_handed_off = true;
      m_timer.cancel();
      m_state.connections.remove(this);
      request.protocol = Protocol::websocket;
      start_websocket(m_state, std::move(m_stream), std::move(message), std::move(request));
      return;
    }
    start_request(std::move(request), message.keep_alive());
  }

  void start_request(Request request, bool keep_alive) {
    m_active = true;
    m_head_sent = m_finish_requested = m_chunked = m_no_body = false;
    m_head_request = request.method == "HEAD";
    if (!keep_alive) m_close_after = true;
    ++m_request_id;
    m_outbox = std::make_shared<Outbox>();
    m_core = std::make_shared<StreamCore>(m_state.link, weak_from_this(), m_request_id, m_outbox);
    m_state.dispatch(std::move(request), make_response_stream(m_core, Protocol::http1));
  }

  void enqueue(std::shared_ptr<const std::string> bytes, std::size_t payload) {
    m_queue.push_back(WirePiece::raw(std::move(bytes), payload));
  }

  // While a chunked body streams and nothing waits to be written, the producer writes its
  // chunks to the socket itself (Outbox direct writing); plain TCP only.
  void enter_direct() {
    if (m_direct || !m_active || !m_chunked || !m_head_sent || m_finish_requested || m_closing || m_fd < 0 ||
        !m_outbox)
      return;
    m_direct = m_outbox->start_direct(m_request_id, socket_sender(m_fd));
  }

  // Takes the writing back from the producer: its backlog goes first. False when a direct
  // write found the connection broken (it is closed then).
  bool leave_direct() {
    if (!m_direct) return true;
    m_direct = false;
    auto stopped = m_outbox->stop_direct();
    if (stopped.failed) {
      close_now();
      return false;
    }
    m_queue.insert(m_queue.begin(), std::make_move_iterator(stopped.backlog.begin()),
                   std::make_move_iterator(stopped.backlog.end()));
    return true;
  }

  void pump() {
    if (m_writing || m_closing) return;
    if (m_queue.empty()) {
      if (m_active && m_finish_requested) on_response_complete();
      else enter_direct();
      return;
    }
    m_writing = true;
    // Everything queued since the last write goes out in one gathered write; the vectors are
    // kept (cleared, not freed) between writes while a response streams.
    m_in_flight.swap(m_queue);
    m_buffers.clear();
    for (const auto& piece : m_in_flight)
      piece.for_each_unwritten([this](const char* data, std::size_t size) { m_buffers.emplace_back(data, size); });
    m_write_progress = Clock::now();
    arm_stall_check();
    asio::async_write(
        m_stream, m_buffers,
        [this](const ErrorCode& ec, std::size_t written) {  // each partial write is progress
          m_write_progress = Clock::now();
          return asio::transfer_all()(ec, written);
        },
        [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_written(ec); });
  }

  // The idle timer must look at a write before the write stall timeout could pass.
  void arm_stall_check() {
    const auto stall = std::chrono::duration_cast<Clock::duration>(m_state.config.write_stall_timeout);
    if (m_timer.expiry() > Clock::now() + stall) arm_idle_timer(stall);
  }

  void on_written(ErrorCode ec) {
    m_writing = false;
    std::size_t payload = 0;
    for (const auto& piece : m_in_flight) payload += piece.payload;
    m_in_flight.clear();
    trim_write_buffers();
    if (m_core) m_core->sent(payload);
    if (ec) {
      close_now();
      return;
    }
    touch();
    pump();
  }

  // A burst (a watch's backlog, a large LIST) may grow the write vectors; an idle connection
  // keeps only a small capacity.
  void trim_write_buffers() {
    if (m_in_flight.capacity() > k_kept_pieces) std::vector<WirePiece>().swap(m_in_flight);
    if (m_buffers.capacity() > 3 * k_kept_pieces) std::vector<asio::const_buffer>().swap(m_buffers);
  }

  void on_response_complete() {
    if (m_core) {
      m_core->transport_done();
      m_core.reset();
    }
    m_active = false;
    if (m_close_after || m_state.shutting_down.load()) {
      close_gracefully();
      return;
    }
    touch();
    process_input();
    read_next();
  }

  // Half-close, then read and drop what the client still sends (an unread request body
  // would otherwise turn the close into a reset that can destroy the response).
  void close_gracefully() {
    leave_direct();
    m_closing = true;
    m_stream.shutdown_send();
    m_timer.cancel();
    m_timer.expires_after(k_linger);
    m_timer.async_wait([self = shared_from_this()](ErrorCode ec) {
      if (!ec) {
        self->m_lingering_done = true;
        self->m_stream.close();
      }
    });
    if (!m_reading) read_next_discarding();
  }

  void read_next_discarding() {
    m_reading = true;
    m_input.clear();
    m_stream.async_read_some(read_area(), [self = shared_from_this()](ErrorCode ec, std::size_t n) {
      self->on_read(ec, n);
    });
  }

  asio::mutable_buffer read_area() {
    const std::size_t want = m_active ? k_read_chunk_active : k_read_chunk;
    if (m_read_size != want) {
      m_read_buffer = std::make_unique_for_overwrite<char[]>(want);
      m_read_size = want;
    }
    return asio::buffer(m_read_buffer.get(), m_read_size);
  }

  void close_now() {
    if (m_handed_off) return;
    const bool first = !m_closed;
    if (m_direct) {
      m_direct = false;
      m_outbox->stop_direct();  // no other thread writes to the socket from here on
    }
    m_closing = true;
    m_closed = true;
    m_lingering_done = true;
    if (m_core) {
      m_core->peer_gone();
      m_core->transport_done();
      m_core.reset();
    }
    m_active = false;
    if (first) {
      m_timer.cancel();
      m_stream.close();
      m_state.connections.remove(this);
    }
  }

  ServerState& m_state;
  ByteStream m_stream;
  asio::steady_timer m_timer;
  Clock::time_point m_head_deadline{};  // see start_head_deadline
  boost::beast::flat_buffer m_input;  // bytes read and not yet parsed
  // The target of the outstanding read: k_read_chunk bytes, k_read_chunk_active while a
  // response is in flight. Only replaced while no read is outstanding.
  std::unique_ptr<char[]> m_read_buffer;
  std::size_t m_read_size = 0;
  std::optional<Parser> m_parser;
  Clock::time_point m_last_activity;
  Clock::time_point m_write_progress{};  // when the peer last took bytes of the write in flight

  std::int64_t m_request_id = 0;
  std::shared_ptr<StreamCore> m_core;  // the response in flight
  std::shared_ptr<Outbox> m_outbox;  // the response in flight's calls; lends it the socket
  std::vector<WirePiece> m_queue;
  std::vector<WirePiece> m_in_flight;
  std::vector<asio::const_buffer> m_buffers;  // the gathered write in flight

  bool m_active = false;  // a request is being answered
  bool m_head_sent = false;
  bool m_chunked = false;
  bool m_no_body = false;
  bool m_head_request = false;
  bool m_finish_requested = false;
  bool m_continue_sent = false;
  bool m_body_admitted = false;  // admit_body was asked about the request being read
  bool m_discard_input = false;  // the rest of the input is an unwanted body: dropped
  bool m_close_after = false;
  bool m_reading = false;
  bool m_writing = false;
  bool m_closing = false;
  bool m_closed = false;
  bool m_lingering_done = false;
  bool m_handed_off = false;
  bool m_direct = false;  // the outbox writes the body's chunks (see enter_direct)
  int m_fd = -1;          // the socket for direct writes; -1 when not plain TCP
};

}  // namespace

void start_http1(ServerState& state, ByteStream stream, std::string initial) {
  std::make_shared<Http1Connection>(state, std::move(stream))->start(std::move(initial));
}

}  // namespace kw::net::detail
