#include "core/net/server/chunk_writer.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <iterator>

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
  Outcome held = hold(std::move(piece));  // dropped after a failure, queued behind a backlog
  if (!holding()) return held;
  return flush();
}

ChunkWriter::Outcome ChunkWriter::hold(WirePiece piece) {
  Outcome outcome;
  if (m_failed) {
    outcome.done_payload = piece.payload;
    return outcome;
  }
  (m_backlog.empty() ? m_held : m_backlog).push_back(std::move(piece));
  return outcome;
}

ChunkWriter::Outcome ChunkWriter::flush() {
  Outcome outcome;
  std::size_t next = 0;  // the first held piece not fully written
  while (next < m_held.size()) {
    // At most k_max_parts iovecs per send (IOV_MAX is 1024; up to three per piece).
    constexpr std::size_t k_max_parts = 1020;
    std::array<iovec, k_max_parts> parts{};
    std::size_t count = 0;
    std::size_t bytes = 0;
    for (std::size_t i = next; i < m_held.size() && count + 3 <= k_max_parts; ++i)
      m_held[i].for_each_unwritten([&](const char* data, std::size_t size) {
        parts[count++] = iovec{const_cast<char*>(data), size};
        bytes += size;
      });
    const std::ptrdiff_t sent = m_send(parts.data(), static_cast<int>(count));
    if (sent < 0) {  // the connection is broken: the rest is dropped
      m_failed = true;
      outcome.needs_takeover = true;
      for (std::size_t i = next; i < m_held.size(); ++i) outcome.done_payload += m_held[i].payload;
      m_held.clear();
      return outcome;
    }
    for (auto left = static_cast<std::size_t>(sent); left > 0 && next < m_held.size();) {
      left -= m_held[next].advance(left);
      if (!m_held[next].done()) break;
      outcome.done_payload += m_held[next].payload;
      ++next;
    }
    if (static_cast<std::size_t>(sent) < bytes) {
      // The socket is full: the rest becomes the backlog, for the connection to write.
      m_backlog.insert(m_backlog.end(), std::make_move_iterator(m_held.begin() + static_cast<std::ptrdiff_t>(next)),
                       std::make_move_iterator(m_held.end()));
      m_held.clear();
      outcome.needs_takeover = true;
      return outcome;
    }
  }
  m_held.clear();
  return outcome;
}

std::vector<WirePiece> ChunkWriter::take_backlog() {
  std::vector<WirePiece> out;
  out.swap(m_backlog);
  out.insert(out.end(), std::make_move_iterator(m_held.begin()), std::make_move_iterator(m_held.end()));
  m_held.clear();
  return out;
}

}  // namespace kw::net::detail
