#pragma once
// What a web browser can send to the unauthenticated loopback port from another site, refused
// there: any page the user opens could otherwise create objects through it (cross-site
// request forgery), or reach it under a hostile DNS name that resolves to 127.0.0.1 (DNS
// rebinding). The authenticated ports keep kube-apiserver's behaviour.
//
//   if (auto refusal = cross_site_refusal(request)) return send_error(stream, *refusal);
#include <optional>

#include "core/net/server/http_server.hpp"
#include "server/registry/api_error.hpp"

namespace kw::http {

// Refused, with 403 or 415:
// - a Host (or :authority) that is not a loopback name or address;
// - an Origin that is not the request's own (http://HOST);
// - a POST body a cross-site form or fetch can send without a CORS preflight: no
//   Content-Type, or text/plain, application/x-www-form-urlencoded or multipart/form-data
//   (other methods with a body need a preflight, which this port never grants).
std::optional<registry::ApiError> cross_site_refusal(const net::Request& request);

}  // namespace kw::http
