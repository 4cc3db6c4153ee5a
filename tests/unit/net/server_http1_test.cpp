// HTTP/1.1 against cpp-httplib, an independent client.
#include <httplib.h>

#include <doctest/doctest.h>

#include "server_test_support.hpp"

namespace kw::net::test {

TEST_CASE("http1: content-length response") {
  auto server = start_test_server();
  httplib::Client client("127.0.0.1", server->port);
  client.set_read_timeout(10, 0);
  auto response = client.Get("/hello");
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->body == "hello world");
  CHECK(response->get_header_value("Content-Length") == "11");
  CHECK_FALSE(response->has_header("Transfer-Encoding"));
}

TEST_CASE("http1: chunked stream reaches the client one event at a time") {
  auto server = start_test_server();
  httplib::Client client("127.0.0.1", server->port);
  client.set_read_timeout(10, 0);
  std::string received;
  int events = 0;
  auto response = client.Get("/gated?n=4", [&](const char* data, std::size_t length) {
    received.append(data, length);
    // Each event is complete on arrival; the server writes the next only after this release.
    while (static_cast<int>(std::count(received.begin(), received.end(), '\n')) > events) {
      ++events;
      server->app->gate.release();
    }
    return true;
  });
  REQUIRE(response);
  CHECK(response->status == 200);
  CHECK(response->get_header_value("Transfer-Encoding") == "chunked");
  CHECK(received == "event 0\nevent 1\nevent 2\nevent 3\n");
  CHECK(events == 4);
  CHECK(server->app->gate_timeouts.load() == 0);
}

TEST_CASE("http1: an aborted chunked response ends with the connection, never with the last chunk") {
  auto server = start_test_server();
  const auto result = run_command("timeout 20 curl -sS -o /dev/null 'http://" + server->base() + "/abort?n=5&size=100' 2>&1");
  // curl: (18) transfer closed with outstanding read data remaining
  CHECK(result.exit_code != 0);
  CHECK(result.output.find("(18)") != std::string::npos);
}

TEST_CASE("http1: keep-alive reuses the connection") {
  auto server = start_test_server();
  httplib::Client client("127.0.0.1", server->port);
  client.set_keep_alive(true);
  client.set_read_timeout(10, 0);
  auto first = client.Get("/whoami");
  REQUIRE(first);
  std::string first_peer;
  {
    std::lock_guard lock(server->app->seen_mutex);
    first_peer = server->app->last_request.remote_address;
  }
  auto second = client.Get("/whoami");
  REQUIRE(second);
  CHECK(second->body == "proto=h1 tls=0");
  std::lock_guard lock(server->app->seen_mutex);
  CHECK(server->app->last_request.remote_address == first_peer);
  CHECK_FALSE(first_peer.empty());
}

TEST_CASE("http1: request body over the limit gets 413, within the limit is read") {
  ServerConfig config;
  config.max_body_bytes = 1000;
  auto server = start_test_server(config);
  httplib::Client client("127.0.0.1", server->port);
  client.set_read_timeout(10, 0);
  auto small = client.Post("/echo", std::string(1000, 'a'), "text/plain");
  REQUIRE(small);
  CHECK(small->status == 200);
  CHECK(small->body == "got 1000 bytes");
  auto big = client.Post("/echo", std::string(200000, 'a'), "text/plain");
  REQUIRE(big);
  CHECK(big->status == 413);
  CHECK(big->get_header_value("Content-Type") == "application/json");
  CHECK(big->body.find(R"("message":"Request entity too large: limit is 1000","reason":"RequestEntityTooLarge")") !=
        std::string::npos);
}

TEST_CASE("http1: oversized headers get 431") {
  ServerConfig config;
  config.max_header_bytes = 2048;
  auto server = start_test_server(config);
  httplib::Client client("127.0.0.1", server->port);
  client.set_read_timeout(10, 0);
  auto response = client.Get("/hello", httplib::Headers{{"X-Big", std::string(4096, 'b')}});
  REQUIRE(response);
  CHECK(response->status == 431);
}

TEST_CASE("http1: idle keep-alive connections are closed after the idle timeout") {
  ServerConfig config;
  config.idle_timeout = std::chrono::seconds(1);
  auto server = start_test_server(config);
  // A raw client: one request, then silence; the server must close within a few seconds.
  const std::string script =
      "import socket,time,sys\n"
      "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=8)\n"
      "s.sendall(b'GET /hello HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')\n"
      "data=b''\n"
      "start=time.time()\n"
      "while True:\n"
      "  chunk=s.recv(4096)\n"
      "  if not chunk: break\n"
      "  data+=chunk\n"
      "print('closed-after', int(time.time()-start), data.endswith(b'hello world'))\n";
  const auto result = run_command("timeout 20 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(server->port));
  CHECK(result.exit_code == 0);
  CHECK(result.output.starts_with("closed-after "));
  CHECK(result.output.find("True") != std::string::npos);
}

TEST_CASE("http1: a response dropped without finish() is completed by the transport") {
  auto server = start_test_server();
  const auto unanswered = run_command("timeout 20 curl -sS -o /dev/null -w '%{http_code}' http://" + server->base() + "/drop");
  CHECK(unanswered.exit_code == 0);
  CHECK(unanswered.output == "500");
  const auto half = run_command("timeout 20 curl -sS http://" + server->base() + "/half");
  CHECK(half.exit_code == 0);  // the terminating chunk arrived
  CHECK(half.output == "partial\n");
  const auto h2 = run_command("timeout 20 curl --http2-prior-knowledge -sS http://" + server->base() + "/half");
  CHECK(h2.exit_code == 0);
  CHECK(h2.output == "partial\n");
}

}  // namespace kw::net::test
