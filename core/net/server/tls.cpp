#include "core/net/server/tls.hpp"

#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "core/net/server/listener.hpp"

namespace kw::net::detail {

namespace {

using asio::ip::tcp;
namespace ssl = asio::ssl;

constexpr auto k_handshake_timeout = std::chrono::seconds(30);
constexpr auto k_close_notify_timeout = std::chrono::seconds(1);
constexpr unsigned char k_session_context[] = "kw";

// Picks "h2" when the client offers it, else "http/1.1"; no overlap means no ALPN (HTTP/1.1).
int select_alpn(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                unsigned int in_length, void*) {
  for (std::string_view wanted : {std::string_view("h2"), std::string_view("http/1.1")}) {
    for (unsigned int i = 0; i < in_length;) {
      const unsigned int length = in[i];
      if (i + 1 + length > in_length) break;
      if (std::string_view(reinterpret_cast<const char*>(in + i + 1), length) == wanted) {
        *out = in + i + 1;
        *out_length = static_cast<unsigned char>(length);
        return SSL_TLSEXT_ERR_OK;
      }
      i += 1 + length;
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

std::vector<std::string> name_entries(X509_NAME* name, int nid) {
  std::vector<std::string> values;
  for (int index = X509_NAME_get_index_by_NID(name, nid, -1); index >= 0;
       index = X509_NAME_get_index_by_NID(name, nid, index)) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, data);
    if (length >= 0) values.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(length));
    OPENSSL_free(utf8);
  }
  return values;
}

std::string der_of(X509* cert) {
  unsigned char* der = nullptr;
  const int length = i2d_X509(cert, &der);
  if (length <= 0) return {};
  std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

// The DER bytes of each certificate in a PEM file.
Result<std::vector<std::string>> read_anchors(const std::string& path) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_file(path.c_str(), "r"), BIO_free);
  if (!bio) return fail("cannot read CA file '" + path + "'");
  std::vector<std::string> out;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    out.push_back(der_of(cert));
    X509_free(cert);
  }
  ERR_clear_error();  // the end of the file reads as an error
  if (out.empty()) return fail("no certificate in CA file '" + path + "'");
  return out;
}

bool contains(const std::vector<std::string>& anchors, const std::string& der) {
  return std::find(anchors.begin(), anchors.end(), der) != anchors.end();
}

std::optional<PeerIdentity> verified_peer(SSL* ssl, const TlsAnchors& anchors) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return std::nullopt;
  std::optional<PeerIdentity> identity;
  // A resumed session keeps the peer's certificate but not the chain built for it: with a
  // single client CA the anchor is known anyway; with two, such a peer is not trusted.
  STACK_OF(X509)* chain = SSL_get0_verified_chain(ssl);
  const bool anchored = chain != nullptr && sk_X509_num(chain) > 0;
  if (SSL_get_verify_result(ssl) == X509_V_OK && (anchored || anchors.request_header.empty())) {
    X509_NAME* subject = X509_get_subject_name(cert);
    auto common_names = name_entries(subject, NID_commonName);
    const std::string anchor = anchored ? der_of(sk_X509_value(chain, sk_X509_num(chain) - 1)) : std::string();
    identity = PeerIdentity{.common_name = common_names.empty() ? std::string() : common_names.front(),
                            .organizations = name_entries(subject, NID_organizationName),
                            .by_client_ca = anchors.request_header.empty() || contains(anchors.client, anchor),
                            .by_request_header_ca = contains(anchors.request_header, anchor)};
  }
  X509_free(cert);
  return identity;
}

// Trusts the certificates of `path` for client certificates and names them in the handshake.
Result<void> trust_client_ca(ssl::context& context, const std::string& path) {
  ErrorCode ec;
  context.load_verify_file(path, ec);
  if (ec) return fail("cannot load client CA file '" + path + "': " + ec.message());
  if (SSL_add_file_cert_subjects_to_stack(SSL_CTX_get_client_CA_list(context.native_handle()), path.c_str()) != 1) {
    ERR_clear_error();
    return fail("cannot read the names in client CA file '" + path + "'");
  }
  return {};
}

class TlsStreamImpl final : public ByteStreamImpl {
 public:
  TlsStreamImpl(tcp::socket socket, ssl::context& context)
      : m_stream(std::move(socket), context), m_timer(m_stream.get_executor()) {}

  ssl::stream<tcp::socket>& stream() { return m_stream; }
  asio::steady_timer& timer() { return m_timer; }

  void read_some(asio::mutable_buffer buffer, IoCallback callback) override {
    m_stream.async_read_some(buffer, [callback = std::move(callback)](ErrorCode ec, std::size_t n) mutable {
      callback(ec, n);
    });
  }

  void write_some(std::vector<asio::const_buffer> buffers, IoCallback callback) override {
    m_stream.async_write_some(buffers, [callback = std::move(callback)](ErrorCode ec, std::size_t n) mutable {
      callback(ec, n);
    });
  }

  void shutdown(DoneCallback callback) override {
    m_timer.expires_after(k_close_notify_timeout);
    m_timer.async_wait([this](ErrorCode ec) {
      if (!ec) close();
    });
    m_stream.async_shutdown([this, callback = std::move(callback)](ErrorCode ec) mutable {
      m_timer.cancel();
      close();
      callback(ec);
    });
  }

  // TLS has no half-close that keeps reading simple; the peer sees the close on close().
  void shutdown_send() override {}

  void close() override {
    ErrorCode ec;
    m_stream.lowest_layer().close(ec);
  }

 private:
  ssl::stream<tcp::socket> m_stream;
  asio::steady_timer m_timer;
};

std::string remote_text(const tcp::socket& socket) {
  ErrorCode ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "unknown";
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace

Result<std::shared_ptr<ssl::context>> make_tls_context(const TlsConfig& config, TlsAnchors& anchors) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  ErrorCode ec;
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                           ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                       ec);
  context->use_certificate_chain_file(config.cert_file, ec);
  if (ec) return fail("cannot load TLS certificate '" + config.cert_file + "': " + ec.message());
  context->use_private_key_file(config.key_file, ssl::context::pem, ec);
  if (ec) return fail("cannot load TLS private key '" + config.key_file + "': " + ec.message());
  SSL_CTX* native = context->native_handle();
  if (SSL_CTX_check_private_key(native) != 1) {
    return fail("TLS private key '" + config.key_file + "' does not match certificate '" + config.cert_file + "'");
  }
  if (!config.client_ca_file.empty() || !config.request_header_ca_file.empty()) {
    SSL_CTX_set_client_CA_list(native, sk_X509_NAME_new_null());
    for (const auto* file : {&config.client_ca_file, &config.request_header_ca_file}) {
      if (file->empty()) continue;
      if (auto trusted = trust_client_ca(*context, *file); !trusted) return std::unexpected(trusted.error());
      auto read = read_anchors(*file);
      if (!read) return std::unexpected(read.error());
      (file == &config.client_ca_file ? anchors.client : anchors.request_header) = std::move(*read);
    }
    // Ask for a certificate but let clients without one in (they may use a token).
    context->set_verify_mode(ssl::verify_peer, ec);
    SSL_CTX_set_session_id_context(native, k_session_context, sizeof(k_session_context) - 1);
  }
  SSL_CTX_set_alpn_select_cb(native, select_alpn, nullptr);
  // An idle connection gives back its record buffers (about 34 KiB): thousands of kubelets'
  // connections sit idle between heartbeats.
  SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
  return context;
}

void start_tls(ServerState& state, tcp::socket socket, Strand strand) {
  PeerInfo peer{.remote_address = remote_text(socket), .tls = true, .identity = std::nullopt};
  auto impl = std::make_unique<TlsStreamImpl>(std::move(socket), *state.tls);
  TlsStreamImpl* raw = impl.get();
  auto pending = std::make_shared<std::unique_ptr<TlsStreamImpl>>(std::move(impl));
  raw->timer().expires_after(k_handshake_timeout);
  raw->timer().async_wait([raw, pending](ErrorCode ec) {
    if (!ec && *pending) raw->close();
  });
  raw->stream().async_handshake(ssl::stream_base::server, [&state, raw, pending, strand, peer = std::move(peer)](
                                                                 ErrorCode ec) mutable {
    raw->timer().cancel();
    if (ec) {
      pending->reset();
      return;
    }
    SSL* ssl = raw->stream().native_handle();
    peer.identity = verified_peer(ssl, state.tls_anchors);
    const unsigned char* alpn = nullptr;
    unsigned int alpn_length = 0;
    SSL_get0_alpn_selected(ssl, &alpn, &alpn_length);
    const bool h2 = std::string_view(reinterpret_cast<const char*>(alpn), alpn_length) == "h2";
    ByteStream stream(strand, std::move(*pending), std::move(peer));
    if (h2) {
      start_http2(state, std::move(stream), {});
    } else {
      start_http1(state, std::move(stream), {});
    }
  });
}

}  // namespace kw::net::detail
