#pragma once
// Which HTTP proxy a client connection goes through, as kubectl (Go's net/http) chooses it: the
// kubeconfig cluster's proxy-url when set, else HTTPS_PROXY (https servers) or HTTP_PROXY (http
// servers) from the environment, unless NO_PROXY names the server or the server is a loopback
// address, which is never proxied from the environment.
//
//   auto proxy = net::client::choose_proxy(server_url, cluster_proxy_url, ProxyEnvironment::from_process());
#include <string>
#include <string_view>

#include "core/net/client/client.hpp"
#include "core/util/error.hpp"

namespace kw::net::client {

struct ProxyEnvironment {
  std::string https_proxy;  // HTTPS_PROXY, else https_proxy
  std::string http_proxy;   // HTTP_PROXY, else http_proxy
  std::string no_proxy;     // NO_PROXY, else no_proxy
  static ProxyEnvironment from_process();
};

// The proxy URL for `server_url` ("" for none).
std::string choose_proxy(std::string_view server_url, const std::string& configured, const ProxyEnvironment& env);

// A proxy to tunnel through with HTTP CONNECT: "http://[user:password@]host[:port]" (a bare
// "host:port" is http://, as Go reads it). Other schemes (https://, socks5://) are refused.
struct ProxyAddress {
  ParsedUrl url;
  std::string authorization;  // a Proxy-Authorization value ("Basic ..."), "" without credentials
};
Result<ProxyAddress> parse_proxy(std::string_view proxy_url);

// Whether NO_PROXY (comma-separated: "*", host names matching themselves and their subdomains,
// ".domain" matching subdomains only, IP addresses, IPv4/IPv6 CIDRs, each with an optional
// ":port") exempts host:port.
bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::string_view port);

}  // namespace kw::net::client
