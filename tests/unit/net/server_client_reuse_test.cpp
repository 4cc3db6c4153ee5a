// kw's HTTP client keeps a connection whose exchange ended cleanly for its next request, and a
// ClientPool hands the same Client (so the same connection) to the next caller: checked by the
// client's source port as the server sees it.
#include <doctest/doctest.h>

#include <thread>

#include "core/net/client/client.hpp"
#include "core/net/client/pool.hpp"
#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

// The client address the server saw for the last /whoami.
std::string last_peer(TestServer& server) {
  std::lock_guard lock(server.app->seen_mutex);
  return server.app->last_request.remote_address;
}

// GET /whoami with `client`; the protocol of the answer ("h2" or "http/1.1").
std::string whoami(client::Client& client) {
  auto answer = client.request({.method = "GET", .target = "/whoami"});
  REQUIRE_MESSAGE(answer, answer.error().message);
  CHECK(answer->head.status == 200);
  return answer->head.protocol;
}

struct Case {
  const char* name;
  bool tls;
  client::Transport transport;
  const char* protocol;
};

constexpr Case k_cases[] = {{"h2 over TLS", true, client::Transport::Auto, "h2"},
                            {"HTTP/1.1 over TLS", true, client::Transport::Http1, "http/1.1"},
                            {"h2c", false, client::Transport::Http2, "h2"},
                            {"HTTP/1.1 cleartext", false, client::Transport::Http1, "http/1.1"}};

std::unique_ptr<TestServer> start_server(const TestPki& pki, bool tls, std::chrono::seconds idle_timeout) {
  ServerConfig config;
  config.idle_timeout = idle_timeout;
  if (tls) config.tls = TlsConfig{.cert_file = pki.server_cert, .key_file = pki.server_key, .client_ca_file = ""};
  return start_test_server(config);
}

client::ClientConfig config_for(const TestServer& server, const TestPki& pki, const Case& c) {
  client::ClientConfig config;
  config.url = std::string(c.tls ? "https://" : "http://") + server.base();
  config.ca_file = c.tls ? pki.ca_cert : std::string();
  config.transport = c.transport;
  config.request_timeout = std::chrono::seconds(10);
  return config;
}

}  // namespace

TEST_CASE("net client: consecutive requests of one Client share a connection") {
  auto pki = make_test_pki();
  for (const Case& c : k_cases) {
    CAPTURE(c.name);
    auto server = start_server(*pki, c.tls, std::chrono::seconds(90));
    auto created = client::Client::create(config_for(*server, *pki, c));
    REQUIRE(created);
    client::Client& client = **created;
    CHECK(whoami(client) == c.protocol);
    const std::string first = last_peer(*server);
    CHECK(client.has_idle_connection());
    for (int i = 0; i < 3; ++i) {
      CHECK(whoami(client) == c.protocol);
      CHECK(last_peer(*server) == first);
    }
    // A request with a body, then a 404: the connection is still the same.
    auto posted = client.request({.method = "POST", .target = "/whoami", .body = "{}"});
    REQUIRE(posted);
    CHECK(last_peer(*server) == first);
    auto missing = client.request({.method = "GET", .target = "/no-such-path"});
    REQUIRE(missing);
    CHECK(whoami(client) == c.protocol);
    CHECK(last_peer(*server) == first);
  }
}

TEST_CASE("net client: a kept connection the server closed is replaced without an error") {
  auto pki = make_test_pki();
  for (const Case& c : k_cases) {
    CAPTURE(c.name);
    auto server = start_server(*pki, c.tls, std::chrono::seconds(1));
    auto created = client::Client::create(config_for(*server, *pki, c));
    REQUIRE(created);
    CHECK(whoami(**created) == c.protocol);
    const std::string first = last_peer(*server);
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the server's idle timeout closes it
    CHECK(whoami(**created) == c.protocol);
    CHECK(last_peer(*server) != first);
    CHECK(whoami(**created) == c.protocol);
  }
}

TEST_CASE("net client: a ClientPool lends the kept Client to the next caller, one per caller at a time") {
  auto pki = make_test_pki();
  auto server = start_server(*pki, true, std::chrono::seconds(90));
  const auto config = config_for(*server, *pki, k_cases[0]);
  client::ClientPool pool;
  std::string first;
  {
    auto lease = pool.acquire(config);
    REQUIRE(lease);
    CHECK(whoami(**lease) == "h2");
    first = last_peer(*server);
  }
  CHECK(pool.idle() == 1);
  {
    auto again = pool.acquire(config);
    REQUIRE(again);
    CHECK(pool.idle() == 0);
    CHECK(whoami(**again) == "h2");
    CHECK(last_peer(*server) == first);
    // A second caller meanwhile gets its own Client and connection.
    auto other = pool.acquire(config);
    REQUIRE(other);
    CHECK(whoami(**other) == "h2");
    CHECK(last_peer(*server) != first);
  }
  CHECK(pool.idle() == 2);
  // Another config (here another user agent) is another peer: a new Client.
  auto different = config;
  different.user_agent = "other";
  {
    auto lease = pool.acquire(different);
    REQUIRE(lease);
    CHECK(pool.idle() == 2);
  }
  CHECK(pool.idle() == 3);
  // A cancelled Client is not kept.
  {
    auto lease = pool.acquire(config);
    REQUIRE(lease);
    (*lease)->cancel();
  }
  CHECK(pool.idle() == 2);
}

TEST_CASE("net client: a ClientPool drops Clients idle past their lifetime") {
  auto pki = make_test_pki();
  auto server = start_server(*pki, true, std::chrono::seconds(90));
  client::ClientPool pool(client::ClientPool::Limits{.max_idle_per_peer = 1, .idle_lifetime = std::chrono::seconds(1)});
  const auto config = config_for(*server, *pki, k_cases[0]);
  {
    auto a = pool.acquire(config);
    auto b = pool.acquire(config);
    REQUIRE(a);
    REQUIRE(b);
  }
  CHECK(pool.idle() == 1);  // max_idle_per_peer
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto c = pool.acquire(config);
  REQUIRE(c);
  CHECK(pool.idle() == 0);
}

}  // namespace kw::net::test
