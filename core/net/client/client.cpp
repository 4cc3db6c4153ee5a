// Client: picks the protocol (ALPN, h2c prior knowledge with HTTP/1.1 fallback, WebSocket),
// connects, and runs one exchange on the client's own event loop.
#include "core/net/client/client.hpp"

#include <atomic>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "core/net/client/detail.hpp"
#include "core/net/client/proxy.hpp"
#include "core/util/text.hpp"

namespace kw::net::client {

using detail::ByteStream;
using detail::ErrorCode;
namespace asio = boost::asio;

// A connection left open by a complete exchange, for the next call.
struct KeptConnection {
  std::unique_ptr<ByteStream> stream;
  std::shared_ptr<detail::Http2Session> h2;  // null: HTTP/1.1 keep-alive
  std::chrono::steady_clock::time_point since;
};

// How long a kept connection may sit unused before it is dropped rather than reused (Go's
// http.Transport default IdleConnTimeout).
constexpr std::chrono::seconds k_idle_connection_lifetime{90};

struct Client::Impl {
  asio::io_context io;
  std::shared_ptr<detail::TlsContext> tls;
  ParsedUrl url;
  bool h2c_unsupported = false;
  ByteStream* active = nullptr;
  std::optional<KeptConnection> kept;  // after io: closed before the context goes
  // The running exchange (io thread), and which call it belongs to, for Client::send().
  detail::Exchange* current = nullptr;
  std::atomic<std::uint64_t> call{0};
  std::atomic<bool> upgrading{false};
  std::atomic<std::size_t> backlog{0};
  std::atomic<bool> receive_paused{false};
};

std::optional<Transport> parse_transport(std::string_view text) {
  const std::string lower = util::to_lower(text);
  if (lower == "auto") return Transport::Auto;
  if (lower == "h2" || lower == "http2") return Transport::Http2;
  if (lower == "http1" || lower == "http1.1" || lower == "http/1.1") return Transport::Http1;
  if (lower == "websocket" || lower == "ws") return Transport::WebSocket;
  return std::nullopt;
}

std::string_view transport_name(Transport transport) {
  switch (transport) {
    case Transport::Auto: return "auto";
    case Transport::Http2: return "h2";
    case Transport::Http1: return "http1";
    case Transport::WebSocket: return "websocket";
  }
  return "auto";
}

const std::string* ResponseHead::header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers)
    if (name == lowercase_name) return &value;
  return nullptr;
}

std::string ParsedUrl::authority() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string out = v6 ? "[" + host + "]" : host;
  if (!((tls && port == "443") || (!tls && port == "80"))) out += ":" + port;
  return out;
}

Result<ParsedUrl> parse_url(std::string_view url) {
  ParsedUrl out;
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    out.tls = true;
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    return fail("server URL '" + std::string(url) + "' must start with http:// or https://");
  } else {
    out.tls = true;  // kubectl treats a bare host as https
  }
  const auto slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (path.ends_with('/')) path.remove_suffix(1);
    out.path_prefix = std::string(path);
  }
  if (hostport.empty()) return fail("server URL '" + std::string(url) + "' has no host");
  if (hostport.front() == '[') {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) return fail("server URL '" + std::string(url) + "' has an unclosed '['");
    out.host = std::string(hostport.substr(1, close - 1));
    if (close + 1 < hostport.size() && hostport[close + 1] == ':') out.port = std::string(hostport.substr(close + 2));
  } else if (const auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    out.host = std::string(hostport.substr(0, colon));
    out.port = std::string(hostport.substr(colon + 1));
  } else {
    out.host = std::string(hostport);
  }
  if (out.port.empty()) out.port = out.tls ? "443" : "80";
  for (char c : out.port)
    if (c < '0' || c > '9') return fail("server URL '" + std::string(url) + "' has a bad port");
  return out;
}

Client::Client(ClientConfig config) : m_config(std::move(config)), m_impl(std::make_unique<Impl>()) {}
Client::~Client() = default;

Result<std::unique_ptr<Client>> Client::create(ClientConfig config) {
  auto url = parse_url(config.url);
  if (!url) return std::unexpected(url.error());
  if (!config.proxy_url.empty())
    if (auto proxy = parse_proxy(config.proxy_url); !proxy) return std::unexpected(proxy.error());
  std::unique_ptr<Client> client(new Client(std::move(config)));
  client->m_impl->url = *url;
  if (url->tls) {
    auto tls = detail::make_tls_context(client->m_config);
    if (!tls) return std::unexpected(tls.error());
    client->m_impl->tls = *tls;
  }
  return client;
}

void Client::cancel() {
  m_cancelled = true;
  Impl* impl = m_impl.get();
  asio::post(impl->io, [impl] {
    if (impl->active) impl->active->close();
    // A paused tunnel has no read to fail: it reads again, and finds the connection closed.
    impl->receive_paused = false;
    if (impl->current != nullptr && impl->current->resume_raw) impl->current->resume_raw();
  });
}

namespace {

enum class Plan { Http1, Http2, AlpnChoice, WebSocket };

}  // namespace

bool Client::send(std::string bytes) {
  Impl* impl = m_impl.get();
  if (!impl->upgrading) return false;
  const std::size_t size = bytes.size();
  impl->backlog += size;
  auto shared = std::make_shared<const std::string>(std::move(bytes));
  asio::post(impl->io, [impl, shared, call = impl->call.load()] {
    if (impl->call == call && impl->current != nullptr && impl->current->send_raw) impl->current->send_raw(shared);
    else impl->backlog -= shared->size();
  });
  return true;
}

std::size_t Client::send_backlog() const { return m_impl->backlog.load(); }

void Client::pause_receiving() { m_impl->receive_paused = true; }

void Client::resume_receiving() {
  Impl* impl = m_impl.get();
  impl->receive_paused = false;
  asio::post(impl->io, [impl, call = impl->call.load()] {
    if (impl->call == call && impl->current != nullptr && impl->current->resume_raw) impl->current->resume_raw();
  });
}

bool Client::has_idle_connection() const {
  return m_impl->kept.has_value() && std::chrono::steady_clock::now() - m_impl->kept->since < k_idle_connection_lifetime;
}

Result<StreamEnd> Client::stream(const Request& request, StreamHandler& handler) {
  Impl& impl = *m_impl;
  const bool websocket = request.streaming && m_config.transport == Transport::WebSocket && !request.upgrade;
  // Up to three tries: a kept connection the server closed meanwhile, then h2c refused.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (m_cancelled) return fail("cancelled");
    std::optional<KeptConnection> reused;
    if (!websocket && !request.upgrade && impl.kept) {
      if (has_idle_connection()) reused = std::move(impl.kept);
      impl.kept.reset();
    }
    Plan plan = Plan::Http1;
    detail::ConnectTarget target{impl.url, {}};
    if (reused) {
      plan = reused->h2 ? Plan::Http2 : Plan::Http1;
    } else if (websocket) {
      plan = Plan::WebSocket;
      target.alpn = {"http/1.1"};
    } else if (request.upgrade) {
      target.alpn = {"http/1.1"};
    } else if (impl.url.tls) {
      plan = Plan::AlpnChoice;
      if (m_config.transport == Transport::Http1 || m_config.transport == Transport::WebSocket) target.alpn = {"http/1.1"};
      else if (m_config.transport == Transport::Http2) target.alpn = {"h2"};
      else target.alpn = {"h2", "http/1.1"};
    } else if (m_config.transport == Transport::Http2 ||
               (m_config.transport == Transport::Auto && !impl.h2c_unsupported)) {
      plan = Plan::Http2;
    }

    detail::Exchange exchange{request, handler, m_config, impl.url.authority(), impl.url.tls ? "https" : "http",
                              impl.url.path_prefix + request.target, {}, false};
    exchange.sent = [&impl, &handler](std::size_t n) {
      impl.backlog -= n;
      if (handler.on_sent) handler.on_sent(impl.backlog.load());
    };
    impl.receive_paused = false;
    exchange.receive_paused = &impl.receive_paused;
    impl.current = &exchange;
    ++impl.call;
    impl.upgrading = request.upgrade;
    detail::RunResult outcome;
    std::unique_ptr<ByteStream> stream;
    std::shared_ptr<detail::Http2Session> h2;
    bool timed_out = false;
    asio::steady_timer deadline(impl.io);
    impl.io.restart();
    if (!request.streaming && !request.upgrade && m_config.request_timeout.count() > 0) {
      deadline.expires_after(m_config.request_timeout);
      deadline.async_wait([&](ErrorCode ec) {
        if (ec) return;
        timed_out = true;
        if (impl.active) impl.active->close();
      });
    }
    auto done = [&](detail::RunResult result) {
      outcome = std::move(result);
      deadline.cancel();
      if (!outcome.reusable) stream->close();
    };
    // Runs the exchange on `stream` (new or kept) with the protocol `run`.
    auto exchange_on = [&](Plan run) {
      impl.active = stream.get();
      if (m_cancelled) stream->close();
      if (run == Plan::Http2) {
        if (!h2) h2 = detail::open_http2(*stream, m_config, !impl.url.tls);
        if (!h2) return done(detail::RunResult{fail("cannot create an HTTP/2 session")});
        detail::run_http2(*h2, exchange, done);
      } else if (run == Plan::WebSocket) {
        detail::run_websocket(*stream, exchange, done);
      } else {
        detail::run_http1(*stream, exchange, done);
      }
    };
    if (reused) {
      stream = std::move(reused->stream);
      h2 = std::move(reused->h2);
      asio::post(impl.io, [&] { exchange_on(plan); });
    } else {
      detail::connect(impl.io, m_config, impl.tls, target, [&](Result<std::unique_ptr<ByteStream>> connected) {
        if (!connected) {
          outcome.result = std::unexpected(connected.error());
          deadline.cancel();
          return;
        }
        stream = std::move(*connected);
        Plan run = plan;
        if (plan == Plan::AlpnChoice) {
          const std::string alpn = stream->alpn();
          if (m_config.transport == Transport::Http2 && alpn != "h2") {
            outcome.result = fail("server at " + impl.url.authority() +
                                  " did not negotiate HTTP/2 (ALPN); try --transport=http1");
            deadline.cancel();
            stream->close();
            return;
          }
          run = alpn == "h2" ? Plan::Http2 : Plan::Http1;
        }
        exchange_on(run);
      });
    }
    impl.io.run();
    impl.active = nullptr;
    impl.upgrading = false;
    impl.current = nullptr;
    ++impl.call;
    if (outcome.reusable && stream && !m_cancelled && !timed_out && (!h2 || detail::http2_usable(*h2)))
      impl.kept = KeptConnection{std::move(stream), std::move(h2), std::chrono::steady_clock::now()};
    h2.reset();
    stream.reset();
    if (exchange.head_seen) m_last_protocol = exchange.head.protocol;
    if (m_cancelled) return fail("cancelled");
    if (timed_out)
      return fail("request to " + impl.url.authority() + " timed out after " +
                  std::to_string(m_config.request_timeout.count()) + " ms");
    // The server closed the kept connection before answering (idle timeout, GOAWAY): the
    // request goes again over a new one, as Go's transport retries on a reused connection.
    if (reused && !outcome.result && !exchange.head_seen) continue;
    if (outcome.not_http2 && m_config.transport == Transport::Auto && !impl.url.tls) {
      impl.h2c_unsupported = true;
      continue;
    }
    if (outcome.not_http2)
      return fail("server at " + impl.url.authority() + " does not speak HTTP/2 (h2c); try --transport=http1");
    return outcome.result;
  }
  return fail("cannot reach " + impl.url.authority());
}

Result<Response> Client::request(const Request& request, std::size_t max_body) {
  Response response;
  bool too_large = false;
  StreamHandler handler{
      .on_head = [&](const ResponseHead& head) {
        response.head = head;
        return true;
      },
      .on_data = [&](std::string_view bytes) {
        if (response.body.size() + bytes.size() > max_body) {
          too_large = true;
          return false;
        }
        response.body.append(bytes);
        return true;
      }};
  auto result = stream(request, handler);
  if (!result) return std::unexpected(result.error());
  if (too_large) return fail("response body larger than " + std::to_string(max_body) + " bytes");
  return response;
}

}  // namespace kw::net::client
