// Which proxy a client connection uses, and the proxy URL forms it accepts.
#include <doctest/doctest.h>

#include "core/net/client/proxy.hpp"
#include "core/util/host.hpp"

using kw::net::client::choose_proxy;
using kw::net::client::no_proxy_matches;
using kw::net::client::parse_proxy;
using kw::net::client::ProxyEnvironment;

TEST_CASE("NO_PROXY entries: names, subdomains, addresses, CIDRs and ports") {
  CHECK(no_proxy_matches("*", "anything", "443"));
  CHECK(no_proxy_matches("example.com", "example.com", "443"));
  CHECK(no_proxy_matches("example.com", "api.example.com", "443"));
  CHECK_FALSE(no_proxy_matches("example.com", "notexample.com", "443"));
  CHECK(no_proxy_matches(".example.com", "api.example.com", "443"));
  CHECK_FALSE(no_proxy_matches(".example.com", "example.com", "443"));
  CHECK(no_proxy_matches(" other.org , Example.COM ", "example.com", "443"));
  CHECK(no_proxy_matches("10.0.0.0/8", "10.1.2.3", "6443"));
  CHECK_FALSE(no_proxy_matches("10.0.0.0/8", "11.1.2.3", "6443"));
  CHECK(no_proxy_matches("fd00::/8", "fd12::1", "6443"));
  CHECK(no_proxy_matches("192.168.1.5", "192.168.1.5", "6443"));
  CHECK(no_proxy_matches("example.com:6443", "example.com", "6443"));
  CHECK_FALSE(no_proxy_matches("example.com:6443", "example.com", "443"));
  CHECK(no_proxy_matches("[::1]:6443", "::1", "6443"));
  CHECK_FALSE(no_proxy_matches("", "example.com", "443"));
}

TEST_CASE("the kubeconfig's proxy-url first, then the environment by scheme, never for loopback") {
  const ProxyEnvironment env{.https_proxy = "http://secure-proxy:3128",
                             .http_proxy = "http://plain-proxy:3128",
                             .no_proxy = "internal.example"};
  CHECK(choose_proxy("https://api.example:6443", "http://configured:8080", env) == "http://configured:8080");
  CHECK(choose_proxy("https://api.example:6443", "", env) == "http://secure-proxy:3128");
  CHECK(choose_proxy("http://api.example:8080", "", env) == "http://plain-proxy:3128");
  CHECK(choose_proxy("https://k.internal.example", "", env).empty());
  CHECK(choose_proxy("https://127.0.0.1:6443", "", env).empty());
  CHECK(choose_proxy("https://localhost:6443", "", env).empty());
  CHECK(choose_proxy("https://[::1]:6443", "", env).empty());
  CHECK(choose_proxy("https://127.0.0.1:6443", "http://configured:8080", env) == "http://configured:8080");
  CHECK(choose_proxy("https://api.example:6443", "", ProxyEnvironment{}).empty());
}

TEST_CASE("proxy URLs: http with credentials, a bare host, other schemes refused") {
  auto with_user = parse_proxy("http://user:p%40ss@proxy.example:3128");
  REQUIRE(with_user);
  CHECK(with_user->url.host == "proxy.example");
  CHECK(with_user->url.port == "3128");
  CHECK(with_user->authorization == "Basic dXNlcjpwQHNz");  // user:p@ss
  auto bare = parse_proxy("proxy.example:8080");
  REQUIRE(bare);
  CHECK_FALSE(bare->url.tls);
  CHECK(bare->url.port == "8080");
  CHECK(bare->authorization.empty());
  auto default_port = parse_proxy("http://proxy.example");
  REQUIRE(default_port);
  CHECK(default_port->url.port == "80");
  for (const char* refused : {"https://proxy.example:443", "socks5://proxy.example:1080"}) {
    auto proxy = parse_proxy(refused);
    REQUIRE_FALSE(proxy);
    CHECK(proxy.error().message.find("http:// proxies") != std::string::npos);
  }
}

TEST_CASE("loopback host names: localhost, 127.0.0.0/8 and ::1 only") {
  using kw::util::is_loopback_host;
  CHECK(is_loopback_host("localhost"));
  CHECK(is_loopback_host("LocalHost"));
  CHECK(is_loopback_host("127.0.0.1"));
  CHECK(is_loopback_host("127.255.3.4"));
  CHECK(is_loopback_host("::1"));
  CHECK(is_loopback_host("::ffff:127.0.0.1"));
  CHECK_FALSE(is_loopback_host("127.0.0.1.evil.example"));
  CHECK_FALSE(is_loopback_host("127.1"));
  CHECK_FALSE(is_loopback_host("128.0.0.1"));
  CHECK_FALSE(is_loopback_host("::2"));
  CHECK_FALSE(is_loopback_host("[::1]"));
  CHECK_FALSE(is_loopback_host("localhost.example"));
  CHECK_FALSE(is_loopback_host(""));
}
