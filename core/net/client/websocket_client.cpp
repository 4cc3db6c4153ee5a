// WebSocket client exchange (Beast): an HTTP/1.1 upgrade carrying the request headers and an
// Origin, then one body callback per message until the server closes.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket.hpp>

#include "core/net/client/detail.hpp"
#include "core/net/beast_text.hpp"
#include "core/util/text.hpp"

namespace kw::net::client::detail {

namespace {

namespace websocket = boost::beast::websocket;
namespace http = boost::beast::http;


class WebSocketExchange : public std::enable_shared_from_this<WebSocketExchange> {
 public:
  WebSocketExchange(ByteStream& stream, Exchange& exchange, RunDone done)
      : m_ws(stream), m_exchange(exchange), m_done(std::move(done)) {}

  void start() {
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(30);
    const auto ping = m_exchange.config.ping_interval;
    timeouts.idle_timeout = ping.count() > 0 ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(ping * 2)
                                             : websocket::stream_base::none();
    timeouts.keep_alive_pings = ping.count() > 0;
    m_ws.set_option(timeouts);
    m_ws.read_message_max(64u << 20);
    const Exchange& exchange = m_exchange;
    m_ws.set_option(websocket::stream_base::decorator([&exchange](websocket::request_type& request) {
      bool has_origin = false;
      request.set(http::field::user_agent, exchange.config.user_agent);
      for (const auto& [name, value] : exchange.request.headers) {
        if (util::to_lower(name) == "origin") has_origin = true;
        request.set(name, value);
      }
      if (!has_origin) request.set(http::field::origin, exchange.scheme + "://" + exchange.authority);
    }));
    auto self = shared_from_this();
    m_ws.async_handshake(m_response, m_exchange.authority, m_exchange.target, [self](ErrorCode ec) {
      self->on_handshake(ec);
    });
  }

 private:
  void on_handshake(const ErrorCode& ec) {
    if (m_response.result_int() != 0) {
      m_exchange.head.status = m_response.result_int();
      m_exchange.head.protocol = "websocket";
      for (const auto& field : m_response)
        m_exchange.head.headers.emplace_back(util::to_lower(view(field.name_string())), std::string(view(field.value())));
      m_exchange.head_seen = true;
      auto& handler = m_exchange.handler;
      if (handler.on_head && !handler.on_head(m_exchange.head)) return finish(StreamEnd::StoppedByHandler);
      if (ec) {  // declined upgrade: the response (an error Status, typically) is the body
        if (!m_response.body().empty() && handler.on_data) handler.on_data(m_response.body());
        return finish(StreamEnd::Complete);
      }
    } else if (ec) {
      return finish(fail("WebSocket handshake failed: " + ec.message()));
    }
    read();
  }

  void read() {
    auto self = shared_from_this();
    m_ws.async_read(m_buffer, [self](ErrorCode ec, std::size_t) {
      if (ec == websocket::error::closed) return self->finish(StreamEnd::Complete);
      if (ec) return self->finish(fail("WebSocket connection lost: " + ec.message()));
      const auto data = self->m_buffer.cdata();
      std::string_view message(static_cast<const char*>(data.data()), data.size());
      auto& handler = self->m_exchange.handler;
      const bool more = !handler.on_data || handler.on_data(message);
      self->m_buffer.consume(self->m_buffer.size());
      if (!more) return self->finish(StreamEnd::StoppedByHandler);
      self->read();
    });
  }

  void finish(Result<StreamEnd> result) {
    if (!m_done) return;
    auto done = std::move(m_done);
    m_done = nullptr;
    done(RunResult{std::move(result), false});
  }

  websocket::stream<ByteStream&> m_ws;
  Exchange& m_exchange;
  RunDone m_done;
  websocket::response_type m_response;
  boost::beast::flat_buffer m_buffer;
};

}  // namespace

void run_websocket(ByteStream& stream, Exchange& exchange, RunDone done) {
  std::make_shared<WebSocketExchange>(stream, exchange, std::move(done))->start();
}

}  // namespace kw::net::client::detail
