#pragma once
// Internal to core/net/server: the connection's byte stream (core/net/byte_stream.hpp) bound
// to its strand, and what the transport knows about the peer. Completions run on the strand.
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include <optional>
#include <string>

#include "core/net/byte_stream.hpp"
#include "core/net/server/http_server.hpp"

namespace kw::net::detail {

using Strand = asio::strand<asio::io_context::executor_type>;

// What a transport knows about its peer once the connection is set up.
struct PeerInfo {
  std::string remote_address;  // "ip:port"
  bool tls = false;
  std::optional<PeerIdentity> identity;  // verified client certificate
};

// The server's stream: on the connection's strand, with what is known of the peer.
using ByteStream = BasicByteStream<Strand, PeerInfo>;

}  // namespace kw::net::detail
