#include "bench/fanout_client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <thread>
#include <unordered_map>

namespace kw::bench {

// ---- Receipts ----

Receipts::Receipts(int watchers, int events)
    : m_watchers(watchers),
      m_events(events),
      m_at(static_cast<std::size_t>(watchers) * static_cast<std::size_t>(events)),
      m_pending(static_cast<std::size_t>(watchers)),
      m_closed(static_cast<std::size_t>(watchers)) {}

void Receipts::on_headers(int, int status) {
  (status == 200 ? ready : failed)++;
}

void Receipts::on_closed(int watcher) {
  if (m_closed[static_cast<std::size_t>(watcher)]) return;
  m_closed[static_cast<std::size_t>(watcher)] = true;
  failed++;
}

void Receipts::on_body(int watcher, std::string_view bytes) {
  std::string& pending = m_pending[static_cast<std::size_t>(watcher)];
  if (pending.empty()) {
    // The usual case: whole frames arrive together; they are read in place, and only a
    // partial frame at the end is copied.
    const std::size_t used = split_frames(watcher, bytes);
    pending.assign(bytes.substr(used));
    return;
  }
  pending.append(bytes);
  pending.erase(0, split_frames(watcher, pending));
}

std::size_t Receipts::split_frames(int watcher, std::string_view bytes) {
  std::size_t at = 0;
  if (encoding == Encoding::json) {
    for (std::size_t end; (end = bytes.find('\n', at)) != std::string_view::npos; at = end + 1)
      on_frame(watcher, bytes.substr(at, end - at));
    return at;
  }
  while (bytes.size() - at >= 4) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const std::size_t length = (std::size_t(p[0]) << 24) | (std::size_t(p[1]) << 16) | (std::size_t(p[2]) << 8) | p[3];
    if (bytes.size() - at - 4 < length) break;
    on_frame(watcher, bytes.substr(at + 4, length));
    at += 4 + length;
  }
  return at;
}

void Receipts::on_frame(int watcher, std::string_view frame) {
  const auto now = Clock::now();
  const std::size_t marker = frame.find(k_event_marker);
  if (marker == std::string_view::npos) return;
  const char* digits = frame.data() + marker + k_event_marker.size();
  int event = -1;
  std::from_chars(digits, frame.data() + frame.size(), event);
  if (event < 0 || event >= m_events) return;
  auto& slot = m_at[static_cast<std::size_t>(watcher) * static_cast<std::size_t>(m_events) + static_cast<std::size_t>(event)];
  if (slot != Clock::time_point{}) {
    duplicated++;
    return;
  }
  slot = now;
  delivered++;
}

// ---- sockets ----

int connect_to(const Target& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(target.port));
  ::inet_pton(AF_INET, target.host.c_str(), &address.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

namespace {

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 5000) <= 0) return false;
    } else {
      return false;
    }
  }
  return true;
}

int parse_status(std::string_view head) {
  // "HTTP/1.1 200 OK"
  const std::size_t space = head.find(' ');
  int status = -1;
  if (space != std::string_view::npos) std::from_chars(head.data() + space + 1, head.data() + head.size(), status);
  return status;
}

bool header_has(std::string_view head, std::string_view name, std::string_view value) {
  std::string lower(head);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower.find("\r\n" + std::string(name) + ":");
  if (at == std::string::npos) return false;
  const std::size_t end = lower.find("\r\n", at + 2);
  return lower.substr(at, end - at).find(value) != std::string::npos;
}

std::size_t content_length(std::string_view head) {
  std::string lower(head);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  std::size_t value = 0;
  std::size_t from = at + 17;
  while (from < lower.size() && lower[from] == ' ') ++from;
  std::from_chars(lower.data() + from, lower.data() + lower.size(), value);
  return value;
}

// Decodes an HTTP/1.1 response body as it arrives (chunked or not).
class BodyDecoder {
 public:
  // Consumes `in` (from the buffer front); appends body bytes to `out`. False on a malformed stream.
  bool feed(std::string& in, std::string& out) {
    std::size_t at = 0;
    bool ok = true;
    while (ok && at < in.size()) {
      if (!chunked) {
        out.append(in, at, std::string::npos);
        at = in.size();
      } else if (m_left > 0) {
        const std::size_t take = std::min(m_left, in.size() - at);
        out.append(in, at, take);
        at += take;
        m_left -= take;
        if (m_left == 0) m_skip_crlf = true;
      } else {
        const std::size_t eol = in.find("\r\n", at);
        if (eol == std::string::npos) break;
        if (m_skip_crlf) {
          ok = eol == at;
          m_skip_crlf = false;
        } else {
          std::size_t size = 0;
          const auto parsed = std::from_chars(in.data() + at, in.data() + eol, size, 16);
          ok = parsed.ec == std::errc{};
          if (ok && size == 0) finished = true;
          m_left = size;
        }
        at = eol + 2;
      }
    }
    in.erase(0, at);
    return ok;
  }
  bool chunked = true;
  bool finished = false;

 private:
  std::size_t m_left = 0;
  bool m_skip_crlf = false;
};

class H1Watcher : public LoopConnection {
 public:
  H1Watcher(int fd, int id, Receipts& receipts) : m_fd(fd), m_id(id), m_receipts(receipts) {}
  ~H1Watcher() override { ::close(m_fd); }
  int fd() const override { return m_fd; }
  bool on_readable() override {
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
      if (n > 0) {
        m_in.append(buffer, static_cast<std::size_t>(n));
        if (!consume()) return finish();
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return true;
      } else {
        return finish();
      }
    }
  }

 private:
  bool consume() {
    if (!m_have_headers) {
      const std::size_t end = m_in.find("\r\n\r\n");
      if (end == std::string::npos) return true;
      const std::string head = m_in.substr(0, end + 2);
      m_in.erase(0, end + 4);
      m_have_headers = true;
      const int status = parse_status(head);
      m_receipts.on_headers(m_id, status);
      if (status != 200) return false;
      m_body.chunked = header_has(head, "transfer-encoding", "chunked");
    }
    m_out.clear();
    if (!m_body.feed(m_in, m_out)) return false;
    if (!m_out.empty()) m_receipts.on_body(m_id, m_out);
    return !m_body.finished;
  }
  bool finish() {
    m_receipts.on_closed(m_id);
    return false;
  }

  int m_fd;
  int m_id;
  Receipts& m_receipts;
  std::string m_in, m_out;
  bool m_have_headers = false;
  BodyDecoder m_body;
};

}  // namespace

std::vector<std::unique_ptr<LoopConnection>> open_h1_watchers(const Target& target, const std::string& path,
                                                               std::string_view accept, int count, Receipts& receipts) {
  std::vector<std::unique_ptr<LoopConnection>> out;
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + target.host + "\r\nAccept: " +
                              std::string(accept) + "\r\n\r\n";
  for (int id = 0; id < count; ++id) {
    const int fd = connect_to(target);
    if (fd < 0 || !send_all(fd, request)) {
      if (fd >= 0) ::close(fd);
      receipts.on_closed(id);
      continue;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    out.push_back(std::make_unique<H1Watcher>(fd, id, receipts));
  }
  return out;
}

// ---- the loop ----

struct WatchLoop::State {
  std::vector<std::unique_ptr<LoopConnection>> connections;
  int epoll = -1;
  int wake[2] = {-1, -1};
  std::thread thread;
};

WatchLoop::WatchLoop(std::vector<std::unique_ptr<LoopConnection>> connections) : m_state(std::make_unique<State>()) {
  m_state->connections = std::move(connections);
  m_state->epoll = ::epoll_create1(EPOLL_CLOEXEC);
  if (::pipe2(m_state->wake, O_CLOEXEC) != 0) m_state->wake[0] = m_state->wake[1] = -1;
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.u64 = ~0ULL;
  ::epoll_ctl(m_state->epoll, EPOLL_CTL_ADD, m_state->wake[0], &wake);
  for (std::size_t i = 0; i < m_state->connections.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = i;
    ::epoll_ctl(m_state->epoll, EPOLL_CTL_ADD, m_state->connections[i]->fd(), &event);
  }
  m_state->thread = std::thread([this] { run(); });
}

WatchLoop::~WatchLoop() {
  const char stop = 's';
  if (::write(m_state->wake[1], &stop, 1) != 1) {
    // The loop still ends: its epoll_wait times out and it sees no wake-up, so close the pipe.
    ::close(m_state->wake[1]);
    m_state->wake[1] = -1;
  }
  m_state->thread.join();
  m_state->connections.clear();
  ::close(m_state->epoll);
  ::close(m_state->wake[0]);
  if (m_state->wake[1] >= 0) ::close(m_state->wake[1]);
}

void WatchLoop::run() {
  epoll_event events[256];
  for (;;) {
    const int n = ::epoll_wait(m_state->epoll, events, 256, 200);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == ~0ULL) return;
      auto& connection = m_state->connections[events[i].data.u64];
      if (connection && !connection->on_readable()) ::epoll_ctl(m_state->epoll, EPOLL_CTL_DEL, connection->fd(), nullptr);
    }
  }
}

// ---- writer ----

HttpWriter::HttpWriter(const Target& target) : m_target(target) {}

HttpWriter::~HttpWriter() {
  if (m_fd >= 0) ::close(m_fd);
}

int HttpWriter::request(std::string_view method, const std::string& path, std::string_view json_body) {
  if (m_fd < 0) m_fd = connect_to(m_target);
  if (m_fd < 0) return -1;
  std::string request = std::string(method) + " " + path + " HTTP/1.1\r\nHost: " + m_target.host +
                        "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " +
                        std::to_string(json_body.size()) + "\r\n\r\n";
  request.append(json_body);
  if (!send_all(m_fd, request)) return -1;
  m_buffer.clear();
  char chunk[16384];
  std::string head;
  BodyDecoder body;
  std::string discard;
  std::size_t length = 0;
  for (;;) {
    if (head.empty()) {
      const std::size_t end = m_buffer.find("\r\n\r\n");
      if (end != std::string::npos) {
        head = m_buffer.substr(0, end + 2);
        m_buffer.erase(0, end + 4);
        body.chunked = header_has(head, "transfer-encoding", "chunked");
        length = content_length(head);
      }
    }
    if (!head.empty()) {
      if (!body.chunked && m_buffer.size() >= length) return parse_status(head);
      if (body.chunked && (!body.feed(m_buffer, discard) || body.finished)) return body.finished ? parse_status(head) : -1;
    }
    const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
    if (n <= 0) {
      ::close(m_fd);
      m_fd = -1;
      return -1;
    }
    m_buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace kw::bench
