#pragma once
// Internal to core/net/server: HTTP/1.1 body parts as they go on the wire, and a writer that
// sends them straight from the thread producing them to a non-blocking socket.
//
// A watch event reaches an HTTP/1.1 client as one chunk: "<hex size>\r\n", the event's shared
// bytes, "\r\n". ChunkWriter holds the chunks of one round of writes and sends them at the
// flush that ends the round, in one gathered write, with no copy and no wake-up of the
// connection's I/O thread: one event is one send, a backlog of events is one send too. What
// the socket does not take (a slow reader) is kept in order as a backlog for the connection
// to write the usual asynchronous way (see Outbox).
// ChunkWriter itself is not thread-safe: its owner serialises the calls.
#include <sys/uio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kw::net::detail {

// One body part: an optional chunk-size line, the shared bytes, and the CRLF closing a chunk.
// `offset` counts the bytes of that wire image already written.
struct WirePiece {
  std::shared_ptr<const std::string> bytes;
  std::size_t payload = 0;  // bytes counted in the response's queued_bytes()
  std::size_t offset = 0;
  std::array<char, 20> chunk_head{};  // "<hex size>\r\n"
  std::uint8_t chunk_head_size = 0;   // 0: raw bytes, no chunk framing

  // `bytes` framed as one chunk (must not be empty: a zero-size chunk ends the body).
  static WirePiece chunk(std::shared_ptr<const std::string> bytes);
  // Bytes sent as they are (a response head, a fixed-length body, the last chunk).
  static WirePiece raw(std::shared_ptr<const std::string> bytes, std::size_t payload = 0);

  std::size_t wire_size() const;
  bool done() const { return offset == wire_size(); }
  // Calls fn(data, size) for each unwritten part, in order (at most three).
  template <class Fn>
  void for_each_unwritten(Fn&& fn) const {
    std::size_t skip = offset;
    auto part = [&](const char* data, std::size_t size) {
      if (skip >= size) {
        skip -= size;
        return;
      }
      fn(data + skip, size - skip);
      skip = 0;
    };
    if (chunk_head_size > 0) part(chunk_head.data(), chunk_head_size);
    part(bytes->data(), bytes->size());
    if (chunk_head_size > 0) part(k_crlf, 2);
  }
  // Records up to `n` more bytes as written; returns how many of them this piece took.
  std::size_t advance(std::size_t n);

  static constexpr const char* k_crlf = "\r\n";
};

// Sends a gathered write without blocking. Returns the bytes the socket took (0: none, it
// would block) or -1 when the connection is broken.
using SendFn = std::function<std::ptrdiff_t(const iovec* parts, int count)>;

// sendmsg(MSG_DONTWAIT | MSG_NOSIGNAL) on `fd`: never blocks, never raises SIGPIPE.
SendFn socket_sender(int fd);

class ChunkWriter {
 public:
  explicit ChunkWriter(SendFn send) : m_send(std::move(send)) {}

  struct Outcome {
    std::size_t done_payload = 0;  // payload no longer queued (written, or dropped after a failure)
    // The writer just started a backlog or failed: the connection must take the writing
    // back (take_backlog()) and finish it asynchronously.
    bool needs_takeover = false;
  };

  // hold() then flush(): writes `piece` (after anything held) now when nothing is
  // backlogged; whatever the socket does not take is kept, and every later piece queues
  // behind it. After a failure pieces are dropped.
  Outcome write(WirePiece piece);
  // Keeps `piece` for the next flush() (behind the backlog when there is one).
  Outcome hold(WirePiece piece);
  // Writes the held pieces in gathered sends, as write() does one.
  Outcome flush();

  bool backlogged() const { return !m_backlog.empty(); }
  bool holding() const { return !m_held.empty(); }
  bool failed() const { return m_failed; }
  // The unwritten pieces (backlog, then held), in order, the first possibly partly written.
  std::vector<WirePiece> take_backlog();

 private:
  SendFn m_send;
  std::vector<WirePiece> m_backlog;
  std::vector<WirePiece> m_held;  // empty while there is a backlog
  bool m_failed = false;
};

}  // namespace kw::net::detail
