// TLS: ALPN chooses h2 or http/1.1; a verified client certificate becomes Request::peer.
#include <doctest/doctest.h>

#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

std::unique_ptr<TestServer> start_tls_server(const TestPki& pki, bool with_client_ca) {
  ServerConfig config;
  config.tls = TlsConfig{.cert_file = pki.server_cert,
                         .key_file = pki.server_key,
                         .client_ca_file = with_client_ca ? pki.ca_cert : std::string()};
  return start_test_server(config);
}

}  // namespace

TEST_CASE("tls: ALPN negotiates h2, and http/1.1 when asked") {
  auto pki = make_test_pki();
  auto server = start_tls_server(*pki, false);
  const std::string url = "https://" + server->base() + "/whoami";
  const auto h2 = run_command("timeout 20 curl --http2 -sS --cacert " + pki->ca_cert + " -w ' %{http_version}' " + url);
  CHECK(h2.exit_code == 0);
  CHECK(h2.output == "proto=h2 tls=1 2");
  const auto h1 = run_command("timeout 20 curl --http1.1 -sS --cacert " + pki->ca_cert + " -w ' %{http_version}' " + url);
  CHECK(h1.exit_code == 0);
  CHECK(h1.output == "proto=h1 tls=1 1.1");
}

TEST_CASE("tls: a client without ALPN gets HTTP/1.1") {
  auto pki = make_test_pki();
  auto server = start_tls_server(*pki, false);
  const auto result = run_command("timeout 20 curl --http1.1 --no-alpn -sS --cacert " + pki->ca_cert +
                                  " https://" + server->base() + "/whoami");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "proto=h1 tls=1");
}

TEST_CASE("tls: a client certificate signed by the client CA fills Request::peer") {
  auto pki = make_test_pki();
  auto server = start_tls_server(*pki, true);
  const std::string url = "https://" + server->base() + "/whoami";
  const std::string client = " --cert " + pki->client_cert + " --key " + pki->client_key;
  const auto with_cert = run_command("timeout 20 curl --http2 -sS --cacert " + pki->ca_cert + client + " " + url);
  CHECK(with_cert.exit_code == 0);
  CHECK(with_cert.output == "proto=h2 tls=1 cn=alice o=system:masters;devs;");
  const auto h1_cert = run_command("timeout 20 curl --http1.1 -sS --cacert " + pki->ca_cert + client + " " + url);
  CHECK(h1_cert.output == "proto=h1 tls=1 cn=alice o=system:masters;devs;");
  // The certificate is asked for, not required.
  const auto without = run_command("timeout 20 curl --http2 -sS --cacert " + pki->ca_cert + " " + url);
  CHECK(without.exit_code == 0);
  CHECK(without.output == "proto=h2 tls=1");
}

TEST_CASE("tls: a missing certificate file is reported at start") {
  ServerConfig config;
  config.tls = TlsConfig{.cert_file = "/nonexistent/cert.pem", .key_file = "/nonexistent/key.pem", .client_ca_file = ""};
  auto server = start_http_server(config, [](Request, std::shared_ptr<ResponseStream>) {});
  REQUIRE_FALSE(server);
  CHECK(server.error().message.find("/nonexistent/cert.pem") != std::string::npos);
}

}  // namespace kw::net::test
