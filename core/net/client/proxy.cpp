#include "core/net/client/proxy.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include <cstdlib>

#include "core/util/base64.hpp"
#include "core/util/host.hpp"
#include "core/util/text.hpp"

namespace kw::net::client {

namespace {

std::string first_set(const char* upper, const char* lower) {
  for (const char* name : {upper, lower})
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  return {};
}

// Whether `address` is in the CIDR `entry` ("10.0.0.0/8", "fd00::/8").
bool in_cidr(std::string_view entry, const boost::asio::ip::address& address) {
  boost::system::error_code ec;
  if (address.is_v4()) {
    const auto network = boost::asio::ip::make_network_v4(std::string(entry), ec);
    return !ec && (address.to_v4().to_uint() & network.netmask().to_uint()) == network.network().to_uint();
  }
  const auto network = boost::asio::ip::make_network_v6(std::string(entry), ec);
  if (ec) return false;
  const auto host_network = boost::asio::ip::network_v6(address.to_v6(), network.prefix_length());
  return host_network.network() == network.network();
}

}  // namespace

ProxyEnvironment ProxyEnvironment::from_process() {
  return {.https_proxy = first_set("HTTPS_PROXY", "https_proxy"),
          .http_proxy = first_set("HTTP_PROXY", "http_proxy"),
          .no_proxy = first_set("NO_PROXY", "no_proxy")};
}

bool no_proxy_matches(std::string_view no_proxy, std::string_view host, std::string_view port) {
  boost::system::error_code not_ip;
  const auto address = boost::asio::ip::make_address(std::string(host), not_ip);
  std::size_t start = 0;
  while (start <= no_proxy.size()) {
    const auto comma = std::min(no_proxy.find(',', start), no_proxy.size());
    std::string entry = util::to_lower(util::trim(no_proxy.substr(start, comma - start)));
    start = comma + 1;
    if (entry.empty()) continue;
    if (entry == "*") return true;
    if (entry.find('/') != std::string::npos) {
      if (!not_ip && in_cidr(entry, address)) return true;
      continue;
    }
    // An optional port: "host:port", "[v6]:port".
    std::string entry_port;
    if (entry.front() == '[') {
      const auto close = entry.find(']');
      if (close == std::string::npos) continue;
      if (close + 1 < entry.size() && entry[close + 1] == ':') entry_port = entry.substr(close + 2);
      entry = entry.substr(1, close - 1);
    } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
      entry_port = entry.substr(entry.find(':') + 1);
      entry.resize(entry.find(':'));
    }
    if (!entry_port.empty() && entry_port != port) continue;
    const std::string name = util::to_lower(host);
    if (!not_ip) {
      boost::system::error_code ec;
      if (const auto listed = boost::asio::ip::make_address(entry, ec); !ec && listed == address) return true;
      continue;
    }
    if (entry.front() == '.') {
      if (name.size() > entry.size() && name.ends_with(entry)) return true;
    } else if (name == entry || (name.size() > entry.size() && name.ends_with("." + entry))) {
      return true;
    }
  }
  return false;
}

Result<ProxyAddress> parse_proxy(std::string_view proxy_url) {
  std::string text(proxy_url);
  if (text.find("://") == std::string::npos) text = "http://" + text;
  if (!text.starts_with("http://"))
    return fail("proxy '" + std::string(proxy_url) +
                "' is not supported: kw connects through http:// proxies (HTTP CONNECT) only");
  ProxyAddress out;
  // Credentials: http://user:password@host:port.
  const auto authority_end = text.find('/', 7);
  const auto at = text.rfind('@', authority_end);
  if (at != std::string::npos && at > 7) {
    out.authorization = "Basic " + util::base64_encode(util::percent_decode(text.substr(7, at - 7)));
    text.erase(7, at - 6);
  }
  auto url = parse_url(text);
  if (!url) return fail("proxy '" + std::string(proxy_url) + "': " + url.error().message);
  out.url = std::move(*url);
  return out;
}

std::string choose_proxy(std::string_view server_url, const std::string& configured, const ProxyEnvironment& env) {
  if (!configured.empty()) return configured;
  auto url = parse_url(server_url);
  if (!url) return {};
  const std::string& proxy = url->tls ? env.https_proxy : env.http_proxy;
  if (proxy.empty() || util::is_loopback_host(url->host) || no_proxy_matches(env.no_proxy, url->host, url->port)) return {};
  return proxy;
}

}  // namespace kw::net::client
