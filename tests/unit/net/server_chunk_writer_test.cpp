// HTTP/1.1 direct chunk writing: wire framing, partial writes, EAGAIN in the middle of a
// chunk, broken connections, the outbox hand-over, and a slow reader on a real server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <deque>
#include <thread>

#include "core/net/server/chunk_writer.hpp"
#include "core/net/server/response_stream.hpp"
#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

using detail::ChunkWriter;
using detail::Outbox;
using detail::WirePiece;

std::shared_ptr<const std::string> bytes(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

std::string unwritten(const WirePiece& piece) {
  std::string out;
  piece.for_each_unwritten([&](const char* data, std::size_t size) { out.append(data, size); });
  return out;
}

// A socket stand-in: takes at most the next scripted amount per call (0 = would block,
// -1 = broken) and records what it took.
struct ScriptedSocket {
  std::deque<std::ptrdiff_t> script;  // empty: takes everything
  std::string taken;
  int calls = 0;

  detail::SendFn sender() {
    return [this](const iovec* parts, int count) -> std::ptrdiff_t {
      ++calls;
      std::string offered;
      for (int i = 0; i < count; ++i) offered.append(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len);
      std::ptrdiff_t limit = static_cast<std::ptrdiff_t>(offered.size());
      if (!script.empty()) {
        limit = std::min(limit, script.front());
        script.pop_front();
      }
      if (limit < 0) return -1;
      taken += offered.substr(0, static_cast<std::size_t>(limit));
      return limit;
    };
  }
};

// Decodes a chunked body; false on a framing error. Stops at the terminating chunk.
bool decode_chunked(std::string_view wire, std::string& body, bool& ended) {
  ended = false;
  while (!wire.empty()) {
    const auto line_end = wire.find("\r\n");
    if (line_end == std::string_view::npos) return false;
    const std::size_t size = std::stoul(std::string(wire.substr(0, line_end)), nullptr, 16);
    wire.remove_prefix(line_end + 2);
    if (size == 0) {
      ended = wire == "\r\n";
      return ended;
    }
    if (wire.size() < size + 2 || wire.substr(size, 2) != "\r\n") return false;
    body.append(wire.substr(0, size));
    wire.remove_prefix(size + 2);
  }
  return true;
}

class RecordingSink final : public detail::StreamSink {
 public:
  std::vector<std::string> calls;
  void sink_begin(std::int64_t, ResponseHead) override { calls.push_back("begin"); }
  void sink_write(std::int64_t, std::shared_ptr<const std::string> b) override { calls.push_back("write " + *b); }
  void sink_flush(std::int64_t) override { calls.push_back("flush"); }
  void sink_finish(std::int64_t) override { calls.push_back("finish"); }
  void sink_abort(std::int64_t) override { calls.push_back("abort"); }
  void sink_takeover(std::int64_t) override { calls.push_back("takeover"); }
  detail::Strand sink_strand() override { throw std::logic_error("not posted to"); }
};

}  // namespace

TEST_CASE("chunk writer: a piece is one chunk on the wire") {
  const auto piece = WirePiece::chunk(bytes(std::string(300, 'x')));
  CHECK(unwritten(piece) == "12c\r\n" + std::string(300, 'x') + "\r\n");
  CHECK(piece.payload == 300);
  CHECK(piece.wire_size() == 307);
  const auto raw = WirePiece::raw(bytes("0\r\n\r\n"));
  CHECK(unwritten(raw) == "0\r\n\r\n");
  CHECK(raw.payload == 0);
}

TEST_CASE("chunk writer: a write the socket takes whole leaves nothing behind, in one call") {
  ScriptedSocket socket;
  ChunkWriter writer(socket.sender());
  const auto outcome = writer.write(WirePiece::chunk(bytes("hello")));
  CHECK(outcome.done_payload == 5);
  CHECK_FALSE(outcome.needs_takeover);
  CHECK_FALSE(writer.backlogged());
  CHECK(socket.calls == 1);
  CHECK(socket.taken == "5\r\nhello\r\n");
}

TEST_CASE("chunk writer: a partial write mid-chunk keeps the rest and everything after it, in order") {
  ScriptedSocket socket;
  socket.script = {4};  // "5\r\nh": the size line and one byte of the event
  ChunkWriter writer(socket.sender());
  auto first = writer.write(WirePiece::chunk(bytes("hello")));
  CHECK(first.needs_takeover);
  CHECK(first.done_payload == 0);
  CHECK(writer.backlogged());
  // Later pieces queue behind the backlog without touching the socket.
  auto second = writer.write(WirePiece::chunk(bytes("world!")));
  CHECK_FALSE(second.needs_takeover);
  CHECK(second.done_payload == 0);
  CHECK(socket.calls == 1);
  auto backlog = writer.take_backlog();
  REQUIRE(backlog.size() == 2);
  CHECK(backlog[0].offset == 4);
  std::string wire = socket.taken;
  for (const auto& piece : backlog) wire += unwritten(piece);
  CHECK(wire == "5\r\nhello\r\n6\r\nworld!\r\n");
  CHECK_FALSE(writer.backlogged());
}

TEST_CASE("chunk writer: EAGAIN inside the closing CRLF, and on the first byte") {
  for (std::ptrdiff_t taken : {0, 1, 8, 9}) {
    CAPTURE(taken);
    ScriptedSocket socket;
    socket.script = {taken};
    ChunkWriter writer(socket.sender());
    const auto outcome = writer.write(WirePiece::chunk(bytes("hello")));
    CHECK(outcome.needs_takeover);
    auto backlog = writer.take_backlog();
    REQUIRE(backlog.size() == 1);
    CHECK(socket.taken + unwritten(backlog[0]) == "5\r\nhello\r\n");
    CHECK(backlog[0].payload == 5);
  }
}

TEST_CASE("chunk writer: held pieces go out at the flush in one gathered send, in order") {
  ScriptedSocket socket;
  ChunkWriter writer(socket.sender());
  for (const char* event : {"one", "two", "three"}) CHECK(writer.hold(WirePiece::chunk(bytes(event))).done_payload == 0);
  CHECK(writer.holding());
  CHECK(socket.calls == 0);
  const auto outcome = writer.flush();
  CHECK(outcome.done_payload == 11);
  CHECK_FALSE(outcome.needs_takeover);
  CHECK(socket.calls == 1);
  CHECK(socket.taken == "3\r\none\r\n3\r\ntwo\r\n5\r\nthree\r\n");
  CHECK_FALSE(writer.holding());
  CHECK(writer.flush().done_payload == 0);
  CHECK(socket.calls == 1);
}

TEST_CASE("chunk writer: a flush the socket takes in part leaves the rest as the backlog") {
  for (std::ptrdiff_t taken : {0, 5, 10, 12, 22}) {
    CAPTURE(taken);
    ScriptedSocket socket;
    socket.script = {taken};
    ChunkWriter writer(socket.sender());
    writer.hold(WirePiece::chunk(bytes("hello")));
    writer.hold(WirePiece::chunk(bytes("world")));
    writer.hold(WirePiece::chunk(bytes("again")));
    const auto outcome = writer.flush();
    CHECK(outcome.needs_takeover);
    CHECK(outcome.done_payload == static_cast<std::size_t>(taken / 10 * 5));
    CHECK(writer.backlogged());
    // Later pieces go behind the backlog, never ahead of it.
    writer.hold(WirePiece::chunk(bytes("later")));
    std::string wire = socket.taken;
    for (const auto& piece : writer.take_backlog()) wire += unwritten(piece);
    CHECK(wire == "5\r\nhello\r\n5\r\nworld\r\n5\r\nagain\r\n5\r\nlater\r\n");
  }
}

TEST_CASE("chunk writer: more held pieces than one send's iovecs go out in several sends") {
  ScriptedSocket socket;
  ChunkWriter writer(socket.sender());
  std::string expected;
  for (int i = 0; i < 1000; ++i) {
    const std::string event = std::to_string(i) + ",";
    writer.hold(WirePiece::chunk(bytes(event)));
    expected += event;
  }
  CHECK(writer.flush().done_payload == expected.size());
  CHECK(socket.calls == 3);  // 340 pieces (1020 iovecs) per send
  std::string body;
  bool ended = false;
  CHECK(decode_chunked(socket.taken, body, ended));
  CHECK(body == expected);
}

TEST_CASE("chunk writer: a broken connection drops the piece and every later one") {
  ScriptedSocket socket;
  socket.script = {-1};
  ChunkWriter writer(socket.sender());
  const auto outcome = writer.write(WirePiece::chunk(bytes("hello")));
  CHECK(outcome.needs_takeover);
  CHECK(outcome.done_payload == 5);
  CHECK(writer.failed());
  const auto later = writer.write(WirePiece::chunk(bytes("more")));
  CHECK(later.done_payload == 4);
  CHECK_FALSE(later.needs_takeover);
  CHECK(socket.calls == 1);
  CHECK(writer.take_backlog().empty());
}

TEST_CASE("chunk writer: a real socket with a slow reader keeps every byte in order") {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
  const int small = 4096;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  ChunkWriter writer(detail::socket_sender(fds[0]));
  std::string expected;
  bool took_over = false;
  for (int i = 0; i < 200; ++i) {
    const std::string event = flood_event(i, 700);
    expected += event;
    took_over = writer.write(WirePiece::chunk(bytes(event))).needs_takeover || took_over;
  }
  CHECK(took_over);  // nobody read: the socket filled up
  REQUIRE(writer.backlogged());
  // The connection takes over: the backlog goes out with blocking writes while the peer reads.
  std::string wire;
  std::thread reader([&] {
    char buffer[1024];
    for (;;) {
      const ssize_t n = ::read(fds[1], buffer, sizeof buffer);
      if (n <= 0) break;
      wire.append(buffer, static_cast<std::size_t>(n));
    }
  });
  for (const auto& piece : writer.take_backlog())
    piece.for_each_unwritten([&](const char* data, std::size_t size) {
      while (size > 0) {
        const ssize_t n = ::write(fds[0], data, size);
        REQUIRE(n > 0);
        data += n;
        size -= static_cast<std::size_t>(n);
      }
    });
  ::shutdown(fds[0], SHUT_WR);
  reader.join();
  ::close(fds[0]);
  ::close(fds[1]);
  std::string body;
  bool ended = false;
  CHECK(decode_chunked(wire, body, ended));
  CHECK(body == expected);
}

TEST_CASE("outbox: direct writes only while nothing waits for the strand, and a drain takes the writing back first") {
  ScriptedSocket socket;
  Outbox outbox;
  RecordingSink sink;
  // A queued call refuses direct writing until it is drained.
  CHECK(outbox.add({1, Outbox::Kind::write, bytes("a"), nullptr}).post_drain);
  CHECK_FALSE(outbox.start_direct(1, socket.sender()));
  outbox.drain(sink);
  CHECK(sink.calls == std::vector<std::string>{"write a"});
  REQUIRE(outbox.start_direct(1, socket.sender()));

  // Direct writes are held until the producer's flush, which sends them in one go.
  auto direct = outbox.add({1, Outbox::Kind::write, bytes("bc"), nullptr});
  CHECK_FALSE(direct.post_drain);
  CHECK(direct.done_payload == 0);
  CHECK(socket.taken.empty());
  CHECK(outbox.flush_direct().done_payload == 2);
  CHECK(socket.taken == "2\r\nbc\r\n");
  CHECK(socket.calls == 1);
  // A flush with nothing pending costs nothing; an empty write is no chunk at all.
  CHECK_FALSE(outbox.join({1, Outbox::Kind::flush, nullptr, nullptr}));
  CHECK(outbox.flush_direct().done_payload == 0);
  CHECK(outbox.add({1, Outbox::Kind::write, bytes(""), nullptr}).done_payload == 0);
  CHECK(outbox.flush_direct().done_payload == 0);
  CHECK(socket.taken == "2\r\nbc\r\n");
  CHECK(socket.calls == 1);

  // The socket fills: the rest is kept and a takeover is asked for once.
  socket.script = {3};
  CHECK(outbox.add({1, Outbox::Kind::write, bytes("def"), nullptr}).done_payload == 0);
  auto partial = outbox.flush_direct();
  CHECK(partial.post_takeover);
  CHECK(partial.done_payload == 0);
  auto queued = outbox.add({1, Outbox::Kind::write, bytes("g"), nullptr});
  CHECK_FALSE(queued.post_takeover);
  CHECK_FALSE(outbox.flush_direct().post_takeover);  // behind the backlog: the connection writes it
  // finish waits for the strand; writes after it queue behind it, not on the socket.
  CHECK(outbox.add({1, Outbox::Kind::finish, nullptr, nullptr}).post_drain);
  CHECK(outbox.add({1, Outbox::Kind::write, bytes("h"), nullptr}).done_payload == 0);
  sink.calls.clear();
  outbox.drain(sink);
  CHECK(sink.calls == std::vector<std::string>{"takeover", "finish", "write h"});
  auto stopped = outbox.stop_direct();
  CHECK_FALSE(stopped.failed);
  std::string wire = socket.taken;
  for (const auto& piece : stopped.backlog) wire += unwritten(piece);
  CHECK(wire == "2\r\nbc\r\n3\r\ndef\r\n1\r\ng\r\n");
  // Stopped: writes go to the strand again.
  CHECK(outbox.add({1, Outbox::Kind::write, bytes("i"), nullptr}).post_drain);
}

// The watch path over a real connection: a reader that does not read for a while, with a
// small receive buffer, while another thread writes events back to back. The socket fills
// (direct writes turn partial), the connection takes the backlog over and later lends the
// socket again; the client must see every event once, in order, in valid chunks.
TEST_CASE("http1: a slow reader gets every event of a fast stream in order") {
  auto server = start_test_server();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  const int small = 8192;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(server->port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  // 40 MB: more than the kernel buffers, so direct writes turn partial.
  const int events = 20000;
  const int size = 2000;
  const std::string request = "GET /flood?n=" + std::to_string(events) + "&size=" + std::to_string(size) +
                              " HTTP/1.1\r\nHost: test\r\n\r\n";
  REQUIRE(::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the writer runs far ahead
  std::string wire;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::vector<char> buffer(64 * 1024);
  int reads = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 1000) <= 0) continue;
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n <= 0) break;
    wire.append(buffer.data(), static_cast<std::size_t>(n));
    if (wire.ends_with("\r\n0\r\n\r\n")) break;
    if (++reads % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // stay slow
  }
  ::close(fd);
  const auto head_end = wire.find("\r\n\r\n");
  REQUIRE(head_end != std::string::npos);
  std::string head = wire.substr(0, head_end);
  std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
  CHECK(head.find("transfer-encoding: chunked") != std::string::npos);
  std::string body;
  bool ended = false;
  CHECK(decode_chunked(std::string_view(wire).substr(head_end + 4), body, ended));
  CHECK(ended);
  std::string expected;
  for (int i = 0; i < events; ++i) expected += flood_event(i, size);
  CHECK(body.size() == expected.size());
  CHECK(body == expected);
}

}  // namespace kw::net::test
