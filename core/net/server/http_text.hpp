#pragma once
// Internal to core/net/server: small HTTP text helpers shared by the protocols (no Beast).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/net/server/http_server.hpp"

namespace kw::net::detail {

// Splits a request target into the decoded path and the raw query.
void split_target(std::string_view target, Request& request);
std::string_view reason_phrase(int status);
bool has_header(const Headers& headers, std::string_view name);
// Status line and header block of an HTTP/1.1 response, ending with the blank line.
std::string serialize_http1_head(int status, const Headers& headers);

// What a protocol answers when it refuses a request before any handler sees it: a body over
// the limit gets the Status kube-apiserver gives it (413, "Request entity too large: limit is
// N"); a head it cannot take (400, 414, 431, 501) gets its status line as plain text, as Go's
// server answers it.
struct Refusal {
  std::string content_type;
  std::string body;
};
Refusal refusal(int status, std::uint64_t body_limit);

}  // namespace kw::net::detail
