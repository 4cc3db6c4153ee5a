// WebSocket (RFC 6455) on Beast: one message per write(), pings answered by Beast, client
// messages read and dropped, finish() sends a normal-closure close frame. Or, when the handler
// begins with 101 (a proxy relaying the upgrade), a byte tunnel: the head and writes go out raw
// and the client's bytes go to the response's on_receive callback, which may pause the reading.
#include "core/net/server/websocket_session.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include <deque>
#include <vector>

#include "core/net/server/http_text.hpp"
#include "core/net/server/response_stream.hpp"

namespace kw::net::detail {

namespace {

namespace websocket = boost::beast::websocket;
namespace http = boost::beast::http;

constexpr auto k_upgrade_timeout = std::chrono::seconds(30);
// What a client may send in one message: a watch reads nothing from its client but control
// frames, so a larger message ends the connection (close code 1009) instead of being held.
constexpr std::size_t k_max_client_message = 64 * 1024;

class WebSocketSession final : public Connection,
                               public StreamSink,
                               public std::enable_shared_from_this<WebSocketSession> {
 public:
  WebSocketSession(ServerState& state, ByteStream stream, UpgradeRequest upgrade)
      : m_state(state), m_ws(std::move(stream)), m_upgrade(std::move(upgrade)) {}

  ~WebSocketSession() override {
    m_state.connections.remove(this);
    if (m_core) m_core->transport_done();
  }

  void start(Request request) {
    m_state.connections.add(shared_from_this(), m_ws.get_executor());
    // Nothing is read before the handler answers, so the session keeps itself alive until done.
    m_self = shared_from_this();
    m_core = std::make_shared<StreamCore>(m_state.link, weak_from_this(), 1);
    m_state.dispatch(std::move(request), make_response_stream(m_core, Protocol::websocket));
  }

  // Connection
  void begin_shutdown() override {}  // a WebSocket is always an in-flight response

  void force_close() override {
    if (m_done) return;
    m_core->peer_gone();
    if (!m_began) {
      close_now();
      return;
    }
    sink_finish(1);
  }

  // StreamSink
  void sink_begin(std::int64_t, ResponseHead head) override {
    if (m_began || m_done) return;
    m_began = true;
    if (head.status == 101) {
      start_tunnel(head);
      return;
    }
    if (head.status != 200) {
      m_plain = true;
      m_plain_head = std::move(head);
      return;
    }
    m_ws.binary(head.binary_messages);
    m_ws.read_message_max(k_max_client_message);
    m_ws.set_option(websocket::stream_base::timeout{
        k_upgrade_timeout, std::chrono::duration_cast<std::chrono::steady_clock::duration>(m_state.config.idle_timeout),
        true});
    std::string protocol = offered_single_protocol();
    m_ws.set_option(websocket::stream_base::decorator([protocol](websocket::response_type& response) {
      response.set(http::field::server, "kw");
      if (!protocol.empty()) response.set(http::field::sec_websocket_protocol, protocol);
    }));
    m_ws.async_accept(m_upgrade, [self = shared_from_this()](ErrorCode ec) { self->on_accepted(ec); });
  }

  void sink_write(std::int64_t, std::shared_ptr<const std::string> bytes) override {
    if (m_done || m_finish_requested) {
      m_core->sent(bytes->size());
      return;
    }
    if (!m_began) sink_begin(1, ResponseHead{});
    if (m_plain) {
      m_plain_body += *bytes;
      m_core->sent(bytes->size());
      return;
    }
    m_queue.push_back(std::move(bytes));
    pump();
  }

  void sink_flush(std::int64_t) override { pump(); }

  void sink_finish(std::int64_t) override {
    if (m_done || m_finish_requested) return;
    if (!m_began) sink_begin(1, ResponseHead{});
    m_finish_requested = true;
    if (m_plain) {
      send_plain_response();
      return;
    }
    pump();
  }

  void sink_abort(std::int64_t) override { close_now(); }

  void sink_resume_receive(std::int64_t) override {
    if (!m_receive_paused || m_done) return;
    m_receive_paused = false;
    read_raw();
  }

  Strand sink_strand() override { return m_ws.get_executor(); }

 private:
  std::string offered_single_protocol() const {
    auto it = m_upgrade.find(http::field::sec_websocket_protocol);
    if (it == m_upgrade.end()) return {};
    std::string value(it->value());
    if (value.find(',') != std::string::npos) return {};
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    while (!value.empty() && value.back() == ' ') value.pop_back();
    return value;
  }

  void start_tunnel(const ResponseHead& head) {
    m_tunnel = true;
    m_accepted = true;
    m_on_receive = m_core->take_on_receive();
    m_tunnel_head = serialize_http1_head(101, head.headers);
    m_raw_buffer.resize(16 * 1024);
    pump();
    read_raw();
  }

  void read_raw() {
    m_ws.next_layer().async_read_some(asio::buffer(m_raw_buffer), [self = shared_from_this()](ErrorCode ec, std::size_t n) {
      if (ec) {
        self->on_read_error();
        return;
      }
      if (self->m_done) return;
      if (self->m_on_receive && !self->m_on_receive(std::string_view(self->m_raw_buffer.data(), n))) {
        self->m_receive_paused = true;  // until sink_resume_receive()
        return;
      }
      self->read_raw();
    });
  }

  // The tunnel's next write: its head first, then the queued bytes as they are.
  void pump_tunnel() {
    if (!m_tunnel_head.empty()) {
      auto head = std::make_shared<std::string>(std::move(m_tunnel_head));
      m_tunnel_head.clear();
      m_writing = true;
      asio::async_write(m_ws.next_layer(), asio::buffer(*head), [self = shared_from_this(), head](ErrorCode ec, std::size_t) {
        self->m_writing = false;
        if (ec) return self->close_now();
        self->pump();
      });
      return;
    }
    if (m_queue.empty()) {
      if (m_finish_requested) end_connection();
      return;
    }
    m_writing = true;
    asio::async_write(m_ws.next_layer(), asio::buffer(*m_queue.front()),
                      [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_written(ec); });
  }

  // After the last byte: FIN to the client, then the socket closed.
  void end_connection() {
    m_ws.next_layer().shutdown_send();
    finish_done();
    m_ws.next_layer().close();
  }

  void on_accepted(ErrorCode ec) {
    if (ec) {
      close_now();
      return;
    }
    m_accepted = true;
    read_next();
    pump();
  }

  void read_next() {
    m_ws.async_read(m_read_buffer, [self = shared_from_this()](ErrorCode ec, std::size_t) {
      if (ec) {
        self->on_read_error();
        return;
      }
      self->m_read_buffer.clear();
      self->m_read_buffer.shrink_to_fit();  // between messages a connection holds no read buffer
      self->read_next();
    });
  }

  void on_read_error() {
    m_reading_stopped = true;
    if (!m_closing) {
      close_now();
    } else if (!m_writing) {
      finish_done();
    }
  }

  void pump() {
    if (!m_accepted || m_writing || m_done || m_closing) return;
    if (m_tunnel) return pump_tunnel();
    if (m_queue.empty()) {
      if (m_finish_requested) start_close();
      return;
    }
    m_writing = true;
    m_ws.async_write(asio::buffer(*m_queue.front()), [self = shared_from_this()](ErrorCode ec, std::size_t) {
      self->on_written(ec);
    });
  }

  void on_written(ErrorCode ec) {
    m_writing = false;
    m_core->sent(m_queue.front()->size());
    m_queue.pop_front();
    if (ec) {
      close_now();
      return;
    }
    pump();
  }

  void start_close() {
    m_closing = true;
    m_writing = true;
    m_ws.async_close(websocket::close_code::normal, [self = shared_from_this()](ErrorCode) {
      self->m_writing = false;
      self->finish_done();
    });
  }

  void finish_done() {
    if (m_done) return;
    m_done = true;
    m_core->transport_done();
    m_state.connections.remove(this);
    release_self();
  }

  void release_self() {
    auto self = std::move(m_self);
    if (self) asio::post(m_ws.get_executor(), [self] {});  // destroyed after this call returns
  }

  void send_plain_response() {
    Headers headers = m_plain_head.headers;
    if (!has_header(headers, "content-length")) {
      headers.push_back({"content-length", std::to_string(m_plain_body.size())});
    }
    headers.push_back({"connection", "close"});
    auto bytes = std::make_shared<std::string>(serialize_http1_head(m_plain_head.status, headers) + m_plain_body);
    m_writing = true;
    asio::async_write(m_ws.next_layer(), asio::buffer(*bytes), [self = shared_from_this(), bytes](ErrorCode, std::size_t) {
      self->m_writing = false;
      self->end_connection();
    });
  }

  void close_now() {
    if (m_done) return;
    m_core->peer_gone();
    m_done = true;
    m_core->transport_done();
    m_ws.next_layer().close();
    m_state.connections.remove(this);
    release_self();
  }

  ServerState& m_state;
  websocket::stream<ByteStream> m_ws;
  UpgradeRequest m_upgrade;
  std::shared_ptr<StreamCore> m_core;
  std::shared_ptr<WebSocketSession> m_self;
  boost::beast::flat_buffer m_read_buffer;
  std::deque<std::shared_ptr<const std::string>> m_queue;
  ResponseHead m_plain_head;
  std::string m_plain_body;
  bool m_began = false;
  bool m_plain = false;  // the handler refused the upgrade: a plain HTTP response
  bool m_accepted = false;
  bool m_writing = false;
  bool m_finish_requested = false;
  bool m_closing = false;
  bool m_reading_stopped = false;
  bool m_done = false;
  // The byte tunnel (begin() with 101).
  bool m_tunnel = false;
  std::string m_tunnel_head;  // until written
  std::function<bool(std::string_view)> m_on_receive;
  bool m_receive_paused = false;
  std::vector<char> m_raw_buffer;  // sized when the tunnel opens: a WebSocket watch holds none
};

}  // namespace

void start_websocket(ServerState& state, ByteStream stream, UpgradeRequest upgrade, Request request) {
  std::make_shared<WebSocketSession>(state, std::move(stream), std::move(upgrade))->start(std::move(request));
}

}  // namespace kw::net::detail
