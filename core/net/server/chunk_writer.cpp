#include "core/net/server/chunk_writer.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

namespace kw::net::detail {

WirePiece WirePiece::chunk(std::shared_ptr<const std::string> bytes) {
  WirePiece piece;
  piece.payload = bytes->size();
  // "<hex size>\r\n": at most 16 digits, so it always fits chunk_head.
  char* const head = piece.chunk_head.data();
  char* end = std::to_chars(head, head + 16, bytes->size(), 16).ptr;
  *end++ = '\r';
  *end++ = '\n';
  piece.chunk_head_size = static_cast<std::uint8_t>(end - head);
  piece.bytes = std::move(bytes);
  return piece;
}

WirePiece WirePiece::raw(std::shared_ptr<const std::string> bytes, std::size_t payload) {
  WirePiece piece;
  piece.bytes = std::move(bytes);
  piece.payload = payload;
  return piece;
}

std::size_t WirePiece::wire_size() const {
  return bytes->size() + (chunk_head_size > 0 ? chunk_head_size + 2u : 0u);
}

std::size_t WirePiece::advance(std::size_t n) {
  const std::size_t taken = std::min(n, wire_size() - offset);
  offset += taken;
  return taken;
}

SendFn socket_sender(int fd) {
  return [fd](const iovec* parts, int count) -> std::ptrdiff_t {
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(parts);
    message.msg_iovlen = static_cast<std::size_t>(count);
    for (;;) {
      const ssize_t n = ::sendmsg(fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n >= 0) return n;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) return 0;
      return -1;
    }
  };
}

ChunkWriter::Outcome ChunkWriter::write(WirePiece piece) {
  Outcome outcome;
  if (m_failed) {
    outcome.done_payload = piece.payload;
    return outcome;
  }
  if (!m_backlog.empty()) {
    m_backlog.push_back(std::move(piece));
    return outcome;
  }
  std::array<iovec, 3> parts{};
  int count = 0;
  piece.for_each_unwritten([&](const char* data, std::size_t size) {
    parts[static_cast<std::size_t>(count++)] = iovec{const_cast<char*>(data), size};
  });
  const std::ptrdiff_t sent = m_send(parts.data(), count);
  if (sent < 0) {
    m_failed = true;
    outcome.done_payload = piece.payload;
    outcome.needs_takeover = true;
    return outcome;
  }
  piece.advance(static_cast<std::size_t>(sent));
  if (piece.done()) {
    outcome.done_payload = piece.payload;
    return outcome;
  }
  m_backlog.push_back(std::move(piece));
  outcome.needs_takeover = true;
  return outcome;
}

std::vector<WirePiece> ChunkWriter::take_backlog() {
  std::vector<WirePiece> out;
  out.swap(m_backlog);
  return out;
}

}  // namespace kw::net::detail
