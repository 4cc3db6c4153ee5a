#pragma once
// One HTTPS (or HTTP) request to a URL on a fresh HTTP/1.1 connection, for the few calls that
// are not to the API server: an OpenID issuer's discovery document and keys, its token
// endpoint.
#include <chrono>
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/net/client/client.hpp"
#include "core/util/error.hpp"

namespace kw::net::client {

struct FetchOptions {
  std::string method = "GET";
  Headers headers = {};
  std::string body = {};
  std::string ca_file = {};  // the CA that signs the server's certificate (else the system's)
  std::string ca_data = {};  // the same as PEM text
  std::chrono::seconds timeout{10};
  std::size_t max_body = 4u << 20;
};

// The answer, whatever its status; an error when the URL is not http(s) or the exchange
// fails ("GET URL: why").
Result<Response> fetch(const std::string& url, const FetchOptions& options = {});

// The body of a 200 answer as a JSON object; else an error saying "WHAT: HTTP 401" (with the
// body's OAuth-style "error" member when it has one) or "WHAT: the answer is not a JSON
// object". A failed exchange keeps its own error.
Result<nlohmann::json> json_object(const std::string& what, const Result<Response>& response);

// fetch() with json_object(), WHAT being "METHOD URL".
Result<nlohmann::json> fetch_json(const std::string& url, const FetchOptions& options = {});

}  // namespace kw::net::client
