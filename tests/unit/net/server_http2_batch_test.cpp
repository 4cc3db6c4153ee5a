// HTTP/2 output batching: the DATA frames of many streams of one connection leave together in
// batched socket writes; every stream must still get all of its own bytes, across batch
// boundaries and partial socket writes, and end cleanly.
#include <doctest/doctest.h>

#include <charconv>
#include <map>
#include <set>

#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

// Body bytes per stream id, from the "recv DATA frame <length=N, flags=F, stream_id=S>"
// lines of `nghttp -v`; `ended` gets the streams whose last DATA frame carried END_STREAM.
std::map<int, std::size_t> data_bytes_by_stream(const std::string& output, std::map<int, bool>& ended) {
  std::map<int, std::size_t> bytes;
  const std::string marker = "recv DATA frame <length=";
  for (std::size_t at = output.find(marker); at != std::string::npos; at = output.find(marker, at + 1)) {
    std::size_t length = 0;
    std::from_chars(output.data() + at + marker.size(), output.data() + output.size(), length);
    const std::size_t flags_at = output.find("flags=0x", at);
    unsigned flags = 0;
    std::from_chars(output.data() + flags_at + 8, output.data() + output.size(), flags, 16);
    const std::size_t id_at = output.find("stream_id=", at);
    int stream = 0;
    std::from_chars(output.data() + id_at + 10, output.data() + output.size(), stream);
    bytes[stream] += length;
    ended[stream] = (flags & 0x01) != 0;
  }
  return bytes;
}

}  // namespace

TEST_CASE("h2c: bursts on several streams of one connection arrive whole on each stream") {
  auto server = start_test_server();
  // Four streams on one nghttp connection, each with its own event size; together they
  // cross the session's output batch many times over.
  constexpr int k_streams = 4;
  constexpr int k_events = 400;
  std::string command = "timeout 30 nghttp -nv";
  std::multiset<std::size_t> want;
  for (int i = 0; i < k_streams; ++i) {
    const int size = 600 + i;
    command += " 'http://" + server->base() + "/flood?n=" + std::to_string(k_events) + "&size=" + std::to_string(size) + "'";
    want.insert(static_cast<std::size_t>(k_events) * static_cast<std::size_t>(size));
  }
  const auto result = run_command(command);
  CHECK(result.exit_code == 0);
  std::map<int, bool> ended;
  const auto bytes = data_bytes_by_stream(result.output, ended);
  REQUIRE(bytes.size() == k_streams);
  std::multiset<std::size_t> got;
  for (const auto& [stream, total] : bytes) {
    got.insert(total);
    CHECK(ended[stream]);
  }
  CHECK((got == want));
}

}  // namespace kw::net::test
