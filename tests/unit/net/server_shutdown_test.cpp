// shutdown(): in-flight responses end cleanly (last chunk / END_STREAM) and the call returns.
#include <doctest/doctest.h>

#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

void check_shutdown_finishes_stream(const std::string& curl_options) {
  auto server = start_test_server();
  LineReader reader("timeout 20 curl " + curl_options + " -sSN http://" + server->base() + "/hold");
  std::string line;
  REQUIRE(reader.next(line));
  CHECK(line == "first");
  const auto started = std::chrono::steady_clock::now();
  server->server->shutdown(std::chrono::milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(took < std::chrono::seconds(5));
  CHECK_FALSE(reader.next(line));
  CHECK(reader.wait() == 0);  // curl fails (18 / 92) when the body ends without its terminator
  CHECK(server->app->closed_callbacks.load() == 1);
  std::lock_guard lock(server->app->held_mutex);
  REQUIRE(server->app->held.size() == 1);
  CHECK(server->app->held.front()->closed());
  CHECK_FALSE(server->app->held.front()->write("late"));
  server->server->shutdown(std::chrono::milliseconds(0));  // idempotent
}

}  // namespace

TEST_CASE("shutdown: an active HTTP/1.1 chunked stream gets its terminating chunk") {
  check_shutdown_finishes_stream("--http1.1");
}

TEST_CASE("shutdown: an active HTTP/2 stream gets END_STREAM") {
  check_shutdown_finishes_stream("--http2-prior-knowledge");
}

TEST_CASE("shutdown: a stream finished within the grace period is not cut") {
  auto server = start_test_server();
  LineReader reader("timeout 20 curl -sSN http://" + server->base() + "/ticks?n=5\\&ms=100");
  std::string line;
  REQUIRE(reader.next(line));
  server->server->shutdown(std::chrono::seconds(5));
  std::vector<std::string> rest;
  while (reader.next(line)) rest.push_back(line);
  CHECK(reader.wait() == 0);
  CHECK(rest == std::vector<std::string>{"tick 1", "tick 2", "tick 3", "tick 4"});
  // New connections are refused now.
  CHECK(run_command("timeout 20 curl -sS http://" + server->base() + "/hello 2>/dev/null").exit_code != 0);
}

}  // namespace kw::net::test
