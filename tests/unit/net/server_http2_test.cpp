// HTTP/2 with prior knowledge (h2c) against curl and nghttp.
#include <doctest/doctest.h>

#include "server_test_support.hpp"

namespace kw::net::test {

TEST_CASE("h2c: curl with prior knowledge speaks HTTP/2") {
  auto server = start_test_server();
  const auto result = run_command("timeout 20 curl --http2-prior-knowledge -sS -w ' %{http_version}' http://" +
                                  server->base() + "/whoami");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "proto=h2 tls=0 2");
}

TEST_CASE("h2c: nghttp sees HTTP/2 frames and a content-length response") {
  auto server = start_test_server();
  const auto result = run_command("timeout 20 nghttp -v http://" + server->base() + "/hello");
  CHECK(result.exit_code == 0);
  CHECK(result.output.find("recv SETTINGS frame") != std::string::npos);
  CHECK(result.output.find("content-length: 11") != std::string::npos);
  CHECK(result.output.find("hello world") != std::string::npos);
  CHECK(result.output.find("END_STREAM") != std::string::npos);
}

TEST_CASE("h2c: several concurrent streams on one connection") {
  auto server = start_test_server();
  const std::string base = "http://" + server->base();
  const auto result = run_command("timeout 20 nghttp -v " + base + "/ticks?n=5 " + base + "/ticks?n=6 " + base +
                                  "/hello " + base + "/ticks?n=3");
  CHECK(result.exit_code == 0);
  // One connection (nghttp opens one per authority) and a 200 for each of the four requests.
  const auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto at = result.output.find(needle); at != std::string::npos; at = result.output.find(needle, at + 1)) ++n;
    return n;
  };
  CHECK(count("recv SETTINGS frame <length=12, flags=0x00") == 1);
  CHECK(count(":status: 200") == 4);
  CHECK(count("recv DATA frame") >= 5 + 6 + 1 + 3);
  CHECK(result.output.find("tick 4") != std::string::npos);
}

TEST_CASE("h2c: a streamed response is seen event by event") {
  auto server = start_test_server();
  LineReader reader("timeout 20 curl --http2-prior-knowledge -sSN http://" + server->base() + "/gated?n=3");
  std::vector<std::string> lines;
  std::string line;
  while (reader.next(line)) {
    lines.push_back(line);
    server->app->gate.release();  // the next event is written only now
  }
  CHECK(reader.wait() == 0);
  CHECK(lines == std::vector<std::string>{"event 0", "event 1", "event 2"});
  CHECK(server->app->gate_timeouts.load() == 0);
}

TEST_CASE("h2c: an aborted response is reset with CANCEL and its connection goes on") {
  auto server = start_test_server();
  const std::string base = "http://" + server->base();
  const auto result = run_command("timeout 20 nghttp -v '" + base + "/abort?n=200&size=1000' " + base + "/hello");
  CHECK(result.output.find("recv RST_STREAM frame") != std::string::npos);
  CHECK(result.output.find("error_code=CANCEL(0x08)") != std::string::npos);
  CHECK(result.output.find("hello world") != std::string::npos);
}

TEST_CASE("h2c: request body over the limit gets 413") {
  ServerConfig config;
  config.max_body_bytes = 1000;
  auto server = start_test_server(config);
  TempDir dir;
  run_command("head -c 300000 /dev/zero > " + dir.file("body"));
  const auto big = run_command("timeout 20 curl --http2-prior-knowledge -sS -o /dev/null -w '%{http_code}' "
                               "--data-binary @" + dir.file("body") + " http://" + server->base() + "/echo");
  CHECK(big.output == "413");
  const auto small = run_command("timeout 20 curl --http2-prior-knowledge -sS --data-binary hello http://" +
                                 server->base() + "/echo");
  CHECK(small.output == "got 5 bytes");
}

}  // namespace kw::net::test
