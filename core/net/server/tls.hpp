#pragma once
// Internal to core/net/server: the TLS context (ALPN h2 / http/1.1, optional client
// certificates) and the server-side handshake that hands the connection to a protocol.
#include <boost/asio/ip/tcp.hpp>

#include <memory>

#include "core/net/server/server_state.hpp"
#include "core/util/error.hpp"

namespace kw::net::detail {

// The server's context; `anchors` receives the client CA files' certificates.
Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const TlsConfig& config, TlsAnchors& anchors);
// Runs the handshake on `socket` (whose executor is `strand`), then starts HTTP/2 when ALPN
// chose "h2" and HTTP/1.1 otherwise.
void start_tls(ServerState& state, asio::ip::tcp::socket socket, Strand strand);

}  // namespace kw::net::detail
