#pragma once
// Where a Service is reached from the API server itself: one of its ready endpoints, read from
// its EndpointSlices, as kube-apiserver resolves admission webhooks and aggregated API servers
// with --enable-aggregator-routing (kw has no kube-proxy to route a cluster IP).
//
//   auto endpoint = registry::resolve_service(registry, "kube-system", "metrics-server", 443);
//   if (endpoint) connect(endpoint->host, endpoint->port);
//   else endpoint.error().message is kube's wording: `no endpoints available for service "x"`
#include <expected>
#include <string>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {

struct ServiceEndpoint {
  std::string host;  // an address of the slice (IPv4, IPv6 or FQDN)
  int port = 0;
};

// Why a Service cannot be reached (the aggregator's Available condition tells them apart).
enum class Unreachable { read_error, no_service, no_port, unsupported_type, no_endpoints, no_ready_endpoints };

struct ResolveError {
  Unreachable why = Unreachable::read_error;
  std::string message;
  std::string port_name = {};  // the Service port's name (no_ready_endpoints)
};

// A ready address (picked at random) of the Service port numbered `port`, from the slices
// labelled kubernetes.io/service-name=NAME with an endpoint port of the same name.
std::expected<ServiceEndpoint, ResolveError> resolve_service(Registry& registry, const std::string& namespace_,
                                                             const std::string& name, int port);

// "https://HOST:PORT" (IPv6 in brackets).
std::string https_url(const ServiceEndpoint& endpoint);

}  // namespace kw::registry
