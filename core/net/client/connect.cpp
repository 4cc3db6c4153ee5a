// Resolving, TCP connect with keepalive, and TLS with ALPN for the client transports.
#include <boost/asio/connect.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <charconv>
#include <optional>

#include "core/net/client/detail.hpp"
#include "core/net/client/proxy.hpp"

namespace kw::net::client::detail {

namespace ssl = asio::ssl;
using asio::ip::tcp;

class TlsContext {
 public:
  TlsContext() : context(ssl::context::tls_client) {}
  ssl::context context;
  bool verify = true;
  std::string server_name;
};

namespace {

std::string openssl_error(const ErrorCode& ec) {
  std::string text = ec.message();
  if (const unsigned long code = ERR_get_error(); code != 0) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    text += " (";
    text += buffer;
    text += ")";
  }
  return text;
}

void set_keepalive(tcp::socket& socket, std::chrono::seconds idle) {
  if (idle.count() <= 0) return;
  ErrorCode ec;
  socket.set_option(tcp::no_delay(true), ec);
  socket.set_option(asio::socket_base::keep_alive(true), ec);
  const int fd = socket.native_handle();
  const int idle_s = static_cast<int>(idle.count());
  const int interval = std::max(1, idle_s / 3);
  const int count = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof idle_s);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

class TcpImpl final : public ByteStreamImpl {
 public:
  explicit TcpImpl(tcp::socket socket) : m_socket(std::move(socket)) {}
  void read_some(asio::mutable_buffer buffer, IoCallback callback) override {
    m_socket.async_read_some(buffer, std::move(callback));
  }
  void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) override {
    m_socket.async_write_some(buffers, std::move(callback));
  }
  void close() override {
    ErrorCode ec;
    m_socket.shutdown(tcp::socket::shutdown_both, ec);
    m_socket.close(ec);
  }
  void shutdown(DoneCallback callback) override {
    close();
    asio::post(m_socket.get_executor(), [callback = std::move(callback)]() mutable { callback(ErrorCode{}); });
  }

 private:
  tcp::socket m_socket;
};

class TlsImpl final : public ByteStreamImpl {
 public:
  TlsImpl(ssl::stream<tcp::socket> stream) : m_stream(std::move(stream)) {}
  void read_some(asio::mutable_buffer buffer, IoCallback callback) override {
    m_stream.async_read_some(buffer, std::move(callback));
  }
  void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) override {
    m_stream.async_write_some(buffers, std::move(callback));
  }
  void close() override {
    ErrorCode ec;
    m_stream.lowest_layer().shutdown(tcp::socket::shutdown_both, ec);
    m_stream.lowest_layer().close(ec);
  }
  // The client ends without close_notify: the server reads the TCP close as the end.
  void shutdown(DoneCallback callback) override {
    close();
    asio::post(m_stream.get_executor(), [callback = std::move(callback)]() mutable { callback(ErrorCode{}); });
  }
  std::string alpn() const override {
    const unsigned char* data = nullptr;
    unsigned int length = 0;
    SSL_get0_alpn_selected(const_cast<ssl::stream<tcp::socket>&>(m_stream).native_handle(), &data, &length);
    return data ? std::string(reinterpret_cast<const char*>(data), length) : std::string();
  }

 private:
  ssl::stream<tcp::socket> m_stream;
};

// One connect attempt: resolve, connect, optional TLS handshake, bounded by a timer.
class Connector : public std::enable_shared_from_this<Connector> {
 public:
  using Done = std::move_only_function<void(Result<std::unique_ptr<ByteStream>>)>;

  Connector(asio::io_context& io, const ClientConfig& config, std::shared_ptr<TlsContext> tls,
            ConnectTarget target, Done done)
      : m_io(io), m_config(config), m_tls(std::move(tls)), m_target(std::move(target)), m_resolver(io),
        m_socket(io), m_timer(io), m_done(std::move(done)) {}

  void start() {
    auto self = shared_from_this();
    if (!m_config.proxy_url.empty()) {
      auto proxy = parse_proxy(m_config.proxy_url);
      if (!proxy) return finish(std::unexpected(proxy.error()));
      m_proxy = std::move(*proxy);
    }
    m_timer.expires_after(m_config.connect_timeout);
    m_timer.async_wait([self](ErrorCode ec) {
      if (ec) return;
      self->m_timed_out = true;
      self->m_resolver.cancel();
      ErrorCode ignored;
      // During the TLS handshake the socket lives in the TLS stream (a peer that accepts the
      // connection and never answers must time out too).
      if (self->m_stream) self->m_stream->lowest_layer().close(ignored);
      else self->m_socket.close(ignored);
    });
    // A numeric host (127.0.0.1, ::1) needs no resolver: asio's would start a thread for it.
    const ParsedUrl& dial = dialed();
    if (auto endpoint = numeric_endpoint()) {
      connect_to(tcp::resolver::results_type::create(*endpoint, dial.host, dial.port));
      return;
    }
    m_resolver.async_resolve(dial.host, dial.port, [self](ErrorCode ec, tcp::resolver::results_type results) {
      if (ec) return self->finish_error("cannot resolve " + self->dialed_name(), ec);
      self->connect_to(std::move(results));
    });
  }

 private:
  // Where the TCP connection goes: the proxy, when there is one, else the server.
  const ParsedUrl& dialed() const { return m_proxy ? m_proxy->url : m_target.url; }
  std::string dialed_name() const {
    return m_proxy ? "proxy " + m_proxy->url.authority() : m_target.url.authority();
  }

  std::optional<tcp::endpoint> numeric_endpoint() const {
    ErrorCode not_numeric;
    const auto address = asio::ip::make_address(dialed().host, not_numeric);
    if (not_numeric) return std::nullopt;
    const std::string& text = dialed().port;
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc() || end != text.data() + text.size() || port > 65535) return std::nullopt;
    return tcp::endpoint(address, static_cast<unsigned short>(port));
  }

  void connect_to(tcp::resolver::results_type results) {
    auto self = shared_from_this();
    asio::async_connect(m_socket, results, [self](ErrorCode ec, const tcp::endpoint&) {
      if (ec) return self->finish_error("cannot connect to " + self->dialed_name(), ec);
      set_keepalive(self->m_socket, self->m_config.keepalive);
      if (self->m_proxy) return self->tunnel();
      self->connected();
    });
  }

  // The TCP connection reaches the server (directly or through the tunnel): TLS, or done.
  void connected() {
    if (!m_target.url.tls) {
      m_timer.cancel();
      return finish(std::make_unique<ByteStream>(m_io.get_executor(), std::make_unique<TcpImpl>(std::move(m_socket))));
    }
    handshake();
  }

  // HTTP CONNECT through the proxy; a 2xx answer makes the connection a tunnel to the server.
  void tunnel() {
    auto self = shared_from_this();
    const std::string authority = m_target.url.authority();
    m_tunnel_request = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\nUser-Agent: " +
                       m_config.user_agent + "\r\n";
    if (!m_proxy->authorization.empty()) m_tunnel_request += "Proxy-Authorization: " + m_proxy->authorization + "\r\n";
    m_tunnel_request += "\r\n";
    asio::async_write(m_socket, asio::buffer(m_tunnel_request), [self](ErrorCode ec, std::size_t) {
      if (ec) return self->finish_error("cannot talk to " + self->dialed_name(), ec);
      asio::async_read_until(self->m_socket, self->m_tunnel_answer, "\r\n\r\n",
                             [self](ErrorCode read_error, std::size_t head_size) {
                               if (read_error)
                                 return self->finish_error("no answer to CONNECT from " + self->dialed_name(),
                                                           read_error);
                               self->tunnel_answered(head_size);
                             });
    });
  }

  void tunnel_answered(std::size_t head_size) {
    std::string head(asio::buffers_begin(m_tunnel_answer.data()),
                     asio::buffers_begin(m_tunnel_answer.data()) + static_cast<std::ptrdiff_t>(head_size));
    const std::string status_line = head.substr(0, head.find("\r\n"));
    // "HTTP/1.1 200 Connection established": any 2xx opens the tunnel.
    const auto space = status_line.find(' ');
    const bool ok = status_line.starts_with("HTTP/1.") && space != std::string::npos &&
                    status_line.compare(space + 1, 1, "2") == 0;
    if (!ok) {
      m_timer.cancel();
      return finish(fail(dialed_name() + " refused to connect to " + m_target.url.authority() + ": " + status_line));
    }
    if (m_tunnel_answer.size() != head_size) {  // the server speaks only after the client
      m_timer.cancel();
      return finish(fail(dialed_name() + " sent bytes after its CONNECT answer"));
    }
    connected();
  }

  void handshake() {
    auto self = shared_from_this();
    m_stream.emplace(std::move(m_socket), m_tls->context);
    SSL* native = m_stream->native_handle();
    const std::string name = m_tls->server_name.empty() ? m_target.url.host : m_tls->server_name;
    ErrorCode parse_error;
    asio::ip::make_address(name, parse_error);
    const bool is_ip = !parse_error;
    if (!is_ip) SSL_set_tlsext_host_name(native, name.c_str());
    if (m_tls->verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(native);
      if (is_ip) X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
      else X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    }
    std::string wire;
    for (const auto& protocol : m_target.alpn) {
      wire.push_back(static_cast<char>(protocol.size()));
      wire += protocol;
    }
    if (!wire.empty())
      SSL_set_alpn_protos(native, reinterpret_cast<const unsigned char*>(wire.data()),
                          static_cast<unsigned int>(wire.size()));
    m_stream->async_handshake(ssl::stream_base::client, [self](ErrorCode ec) {
      if (ec) {
        std::string what = "TLS handshake with " + self->m_target.url.authority() + " failed";
        const long verify = SSL_get_verify_result(self->m_stream->native_handle());
        if (verify != X509_V_OK) {
          what += ": certificate verification failed (" + std::string(X509_verify_cert_error_string(verify)) + ")";
          if (self->m_config.kubeconfig_advice)
            what += "; pass the cluster CA (certificate-authority) or --insecure-skip-tls-verify";
        }
        return self->finish_error(what, ec);
      }
      self->m_timer.cancel();
      self->finish(std::make_unique<ByteStream>(self->m_io.get_executor(),
                                                std::make_unique<TlsImpl>(std::move(*self->m_stream))));
    });
  }

  void finish_error(std::string what, const ErrorCode& ec) {
    m_timer.cancel();
    if (m_timed_out) what += ": timed out after " + std::to_string(m_config.connect_timeout.count()) + " ms";
    else if (ec.category() == asio::error::get_ssl_category()) what += ": " + openssl_error(ec);
    else what += ": " + ec.message();  // a plain socket error: no TLS library state to read
    if (m_config.kubeconfig_advice && (ec == asio::error::connection_refused || ec == asio::error::host_unreachable ||
                                       ec == asio::error::network_unreachable || m_timed_out))
      what += " (is the API server running, and is the server address in the kubeconfig or --server right?)";
    finish(fail(std::move(what)));
  }

  void finish(Result<std::unique_ptr<ByteStream>> result) {
    if (m_done) {
      auto done = std::move(m_done);
      m_done = nullptr;
      done(std::move(result));
    }
  }

  asio::io_context& m_io;
  const ClientConfig& m_config;
  std::shared_ptr<TlsContext> m_tls;
  ConnectTarget m_target;
  tcp::resolver m_resolver;
  tcp::socket m_socket;
  std::optional<ssl::stream<tcp::socket>> m_stream;
  std::optional<ProxyAddress> m_proxy;  // the proxy to tunnel through, when set
  std::string m_tunnel_request;
  asio::streambuf m_tunnel_answer;
  asio::steady_timer m_timer;
  Done m_done;
  bool m_timed_out = false;
};

}  // namespace


Result<std::shared_ptr<TlsContext>> make_tls_context(const ClientConfig& config) {
  auto tls = std::make_shared<TlsContext>();
  ErrorCode ec;
  tls->context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                               ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                           ec);
  tls->server_name = config.tls_server_name;
  tls->verify = !config.insecure_skip_tls_verify;
  if (tls->verify) {
    tls->context.set_verify_mode(ssl::verify_peer);
    if (!config.ca_data.empty()) {
      tls->context.add_certificate_authority(asio::buffer(config.ca_data), ec);
      if (ec) return fail("cannot use certificate-authority-data: " + openssl_error(ec));
    } else if (!config.ca_file.empty()) {
      tls->context.load_verify_file(config.ca_file, ec);
      if (ec) return fail("cannot read certificate authority '" + config.ca_file + "': " + openssl_error(ec));
    } else {
      tls->context.set_default_verify_paths(ec);
    }
  } else {
    tls->context.set_verify_mode(ssl::verify_none);
  }
  if (!config.cert_data.empty()) {
    tls->context.use_certificate_chain(asio::buffer(config.cert_data), ec);
    if (ec) return fail("cannot use client-certificate-data: " + openssl_error(ec));
  } else if (!config.cert_file.empty()) {
    tls->context.use_certificate_chain_file(config.cert_file, ec);
    if (ec) return fail("cannot read client certificate '" + config.cert_file + "': " + openssl_error(ec));
  }
  if (!config.key_data.empty()) {
    tls->context.use_private_key(asio::buffer(config.key_data), ssl::context::pem, ec);
    if (ec) return fail("cannot use client-key-data: " + openssl_error(ec));
  } else if (!config.key_file.empty()) {
    tls->context.use_private_key_file(config.key_file, ssl::context::pem, ec);
    if (ec) return fail("cannot read client key '" + config.key_file + "': " + openssl_error(ec));
  }
  return tls;
}

void connect(asio::io_context& io, const ClientConfig& config, std::shared_ptr<TlsContext> tls,
             const ConnectTarget& target, std::move_only_function<void(Result<std::unique_ptr<ByteStream>>)> done) {
  std::make_shared<Connector>(io, config, std::move(tls), target, std::move(done))->start();
}

}  // namespace kw::net::client::detail
