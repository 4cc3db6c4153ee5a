// HTTP/1.1 client exchange: the request is written as text, the response is parsed by a
// Beast basic_parser fed with the bytes read, handing body bytes (chunked or not) out as
// they arrive. A relayed Upgrade answered 101 turns into a byte tunnel both ways.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/error.hpp>

#include <deque>
#include <limits>
#include <optional>

#include "core/net/client/detail.hpp"
#include "core/net/beast_text.hpp"
#include "core/util/text.hpp"

namespace kw::net::client::detail {

namespace {

namespace http = boost::beast::http;
using boost::beast::string_view;


class ResponseParser final : public http::basic_parser<false> {
 public:
  explicit ResponseParser(Exchange& exchange) : m_exchange(exchange) {
    body_limit(std::numeric_limits<std::uint64_t>::max());  // none compares wrongly in Boost 1.74
    header_limit(256 * 1024);
    eager(true);
  }
  bool stopped() const { return m_stopped; }

 private:
  void on_request_impl(http::verb, string_view, string_view, int, ErrorCode&) override {}
  void on_response_impl(int code, string_view, int, ErrorCode&) override { m_exchange.head.status = code; }
  void on_field_impl(http::field, string_view name, string_view value, ErrorCode&) override {
    m_exchange.head.headers.emplace_back(util::to_lower(view(name)), std::string(view(value)));
  }
  void on_header_impl(ErrorCode& ec) override {
    m_exchange.head.protocol = "http/1.1";
    m_exchange.head_seen = true;
    if (m_exchange.handler.on_head && !m_exchange.handler.on_head(m_exchange.head)) stop(ec);
  }
  void on_body_init_impl(const boost::optional<std::uint64_t>&, ErrorCode&) override {}
  std::size_t on_body_impl(string_view body, ErrorCode& ec) override {
    deliver(body, ec);
    return body.size();
  }
  void on_chunk_header_impl(std::uint64_t, string_view, ErrorCode&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, ErrorCode& ec) override {
    deliver(body, ec);
    return body.size();
  }
  void on_finish_impl(ErrorCode&) override {}

  void deliver(string_view body, ErrorCode& ec) {
    if (body.empty() || !m_exchange.handler.on_data) return;
    if (!m_exchange.handler.on_data(view(body))) stop(ec);
  }
  void stop(ErrorCode& ec) {
    m_stopped = true;
    ec = http::error::end_of_stream;
  }

  Exchange& m_exchange;
  bool m_stopped = false;
};

class Http1Exchange : public std::enable_shared_from_this<Http1Exchange> {
 public:
  Http1Exchange(ByteStream& stream, Exchange& exchange, RunDone done)
      : m_stream(stream), m_exchange(exchange), m_parser(exchange), m_done(std::move(done)) {}

  void start() {
    if (m_exchange.request.upgrade) {
      std::weak_ptr<Http1Exchange> weak = shared_from_this();
      m_exchange.send_raw = [weak](std::shared_ptr<const std::string> bytes) {
        if (auto self = weak.lock()) self->send_raw(std::move(bytes));
      };
      m_exchange.resume_raw = [weak] {
        if (auto self = weak.lock()) self->resume_raw();
      };
    }
    m_request = request_text();
    auto self = shared_from_this();
    asio::async_write(m_stream, asio::buffer(m_request), [self](ErrorCode ec, std::size_t) {
      if (ec) return self->finish(fail("cannot send request: " + ec.message()));
      self->read();
    });
  }

 private:
  std::string request_text() const {
    const Request& request = m_exchange.request;
    std::string text = request.method + " " + m_exchange.target + " HTTP/1.1\r\nHost: " + m_exchange.authority + "\r\n";
    bool has_agent = false;
    for (const auto& [name, value] : request.headers) {
      if (util::to_lower(name) == "user-agent") has_agent = true;
      text += name + ": " + value + "\r\n";
    }
    if (!has_agent) text += "User-Agent: " + m_exchange.config.user_agent + "\r\n";
    if (!request.upgrade && (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
                             request.method == "PATCH"))
      text += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
    text += "\r\n";
    text += request.body;
    return text;
  }

  void read() {
    auto self = shared_from_this();
    m_stream.async_read_some(asio::buffer(m_buffer), [self](ErrorCode ec, std::size_t n) {
      if (ec) return self->on_eof(ec);
      self->m_pending.append(self->m_buffer.data(), n);
      self->parse();
    });
  }

  void parse() {
    while (!m_pending.empty() && !m_parser.is_done()) {
      ErrorCode ec;
      const std::size_t used = m_parser.put(asio::buffer(m_pending), ec);
      m_pending.erase(0, used);
      if (ec == http::error::need_more) break;
      if (ec) {
        if (m_parser.stopped()) return finish(StreamEnd::StoppedByHandler);
        return finish(fail("malformed HTTP/1.1 response: " + ec.message()));
      }
      if (used == 0) break;
    }
    if (m_parser.is_done() && m_exchange.request.upgrade && m_exchange.head.status == 101) return open_tunnel();
    if (m_parser.is_done()) {
      // The response was delimited by its length or chunks, the server keeps the connection
      // and sent nothing after it: the connection can carry the next request.
      const bool reusable = m_parser.keep_alive() && m_pending.empty();
      return finish(StreamEnd::Complete, reusable);
    }
    read();
  }

  // The server switched protocols: from here on bytes pass as they are, both ways.
  void open_tunnel() {
    m_tunnel = true;
    std::string early = std::move(m_pending);
    m_pending.clear();
    if (!early.empty() && m_exchange.handler.on_data && !m_exchange.handler.on_data(early))
      return finish(StreamEnd::StoppedByHandler);
    write_raw();
    read_raw();
  }

  void read_raw() {
    auto self = shared_from_this();
    m_stream.async_read_some(asio::buffer(m_buffer), [self](ErrorCode ec, std::size_t n) {
      if (ec) {
        // The server ended the tunnel (or the connection broke): either way it is over.
        if (ec == asio::error::eof) return self->finish(StreamEnd::Complete);
        return self->finish(fail("tunnel closed: " + ec.message()));
      }
      auto& handler = self->m_exchange.handler;
      if (handler.on_data && !handler.on_data(std::string_view(self->m_buffer.data(), n)))
        return self->finish(StreamEnd::StoppedByHandler);
      self->read_raw_unless_paused();
    });
  }

  void read_raw_unless_paused() {
    const auto* paused = m_exchange.receive_paused;
    if (paused != nullptr && paused->load()) {
      // resume_raw() reads again. Until then no read is pending: the exchange holds itself, and
      // keeps the client's event loop running (it returns when it has no work left).
      m_paused.emplace(Paused{asio::make_work_guard(m_stream.get_executor()), shared_from_this()});
      return;
    }
    read_raw();
  }

  void resume_raw() {
    if (!m_paused || !m_done) return;
    auto paused = std::move(m_paused);  // (holds this exchange until the call returns)
    m_paused.reset();
    read_raw_unless_paused();
  }

  void send_raw(std::shared_ptr<const std::string> bytes) {
    if (!m_done) {
      if (m_exchange.sent) m_exchange.sent(bytes->size());
      return;
    }
    m_outgoing.push_back(std::move(bytes));
    if (m_tunnel) write_raw();
  }

  void write_raw() {
    if (m_writing_raw || m_outgoing.empty() || !m_done) return;
    m_writing_raw = true;
    auto bytes = std::move(m_outgoing.front());
    m_outgoing.pop_front();
    auto self = shared_from_this();
    asio::async_write(m_stream, asio::buffer(*bytes), [self, bytes](ErrorCode ec, std::size_t) {
      self->m_writing_raw = false;
      if (self->m_exchange.sent) self->m_exchange.sent(bytes->size());
      if (ec) return self->finish(fail("cannot send to the tunnel: " + ec.message()));
      self->write_raw();
    });
  }

  void on_eof(const ErrorCode& ec) {
    if (ec == asio::error::eof && m_parser.is_header_done() && m_parser.need_eof()) {
      ErrorCode eof_ec;
      m_parser.put_eof(eof_ec);
      if (!eof_ec) return finish(StreamEnd::Complete);
    }
    if (!m_exchange.head_seen)
      return finish(fail("connection closed before a response arrived: " + ec.message()));
    finish(fail("connection lost while reading the response: " + ec.message()));
  }

  void finish(Result<StreamEnd> result, bool reusable = false) {
    if (!m_done) return;
    auto paused = std::move(m_paused);  // (may hold this exchange: let go once done returned)
    m_paused.reset();
    auto done = std::move(m_done);
    m_done = nullptr;
    for (const auto& bytes : m_outgoing)  // never written: the tunnel is gone
      if (m_exchange.sent) m_exchange.sent(bytes->size());
    m_outgoing.clear();
    m_exchange.send_raw = nullptr;
    m_exchange.resume_raw = nullptr;
    done(RunResult{std::move(result), false, reusable});
  }

  ByteStream& m_stream;
  Exchange& m_exchange;
  ResponseParser m_parser;
  RunDone m_done;
  std::string m_request;
  std::string m_pending;
  bool m_tunnel = false;  // a 101 answer to an upgrade came
  bool m_writing_raw = false;
  // Set while the tunnel is paused between reads.
  struct Paused {
    asio::executor_work_guard<Executor> work;
    std::shared_ptr<Http1Exchange> self;
  };
  std::optional<Paused> m_paused;
  std::deque<std::shared_ptr<const std::string>> m_outgoing;  // Client::send()'s bytes
  std::array<char, 16 * 1024> m_buffer{};
};

}  // namespace

void run_http1(ByteStream& stream, Exchange& exchange, RunDone done) {
  std::make_shared<Http1Exchange>(stream, exchange, std::move(done))->start();
}

}  // namespace kw::net::client::detail
