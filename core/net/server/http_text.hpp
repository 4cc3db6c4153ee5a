#pragma once
// Internal to core/net/server: small HTTP text helpers shared by the protocols (no Beast).
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

}  // namespace kw::net::detail
