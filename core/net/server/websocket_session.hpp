#pragma once
// Internal to core/net/server: hands an HTTP/1.1 Upgrade request over to the WebSocket
// session, which calls the handler and completes (or refuses) the upgrade on begin().
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "core/net/server/server_state.hpp"

namespace kw::net::detail {

using UpgradeRequest = boost::beast::http::request<boost::beast::http::string_body>;

void start_websocket(ServerState& state, ByteStream stream, UpgradeRequest upgrade, Request request);

}  // namespace kw::net::detail
