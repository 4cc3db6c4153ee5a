// Request admission and size limits: in-flight slots (429), request target (414) and header
// block (431) limits on HTTP/1.1 and HTTP/2, and the HTTP/1.1 read-header timeout.
#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "core/net/server/inflight.hpp"
#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

std::string http_code(const std::string& options, const std::string& url) {
  return run_command("timeout 20 curl -sS -o /dev/null -w '%{http_code}' " + options + " '" + url + "'").output;
}

// Sends `request` (a Python bytes expression) on a raw connection and prints the status line,
// then whether the server closed the connection afterwards.
CommandResult raw_exchange(std::uint16_t port, const std::string& request) {
  const std::string script =
      "import socket,sys\n"
      "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=8)\n"
      "try:\n"
      "  s.sendall(" + request + ")\n"
      "except OSError:\n"
      "  pass\n"
      "data=b''\n"
      "while True:\n"
      "  try:\n"
      "    chunk=s.recv(65536)\n"
      "  except OSError:\n"
      "    break\n"
      "  if not chunk: break\n"
      "  data+=chunk\n"
      "print(data.split(b'\\r\\n')[0].decode(), 'closed')\n";
  return run_command("timeout 20 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(port));
}

// Python lines that send one byte every 100 ms on socket `s` (so no idle timeout fires) until
// the server closes the connection, setting `closed` and `elapsed` (seconds since `start`).
const std::string k_trickle =
    "closed=False\n"
    "for i in range(100):\n"
    "  try:\n"
    "    s.sendall(b'X')\n"
    "  except OSError:\n"
    "    closed=True\n"
    "    break\n"
    "  s.settimeout(0.1)\n"
    "  try:\n"
    "    if s.recv(100)==b'':\n"
    "      closed=True\n"
    "      break\n"
    "  except socket.timeout:\n"
    "    pass\n"
    "  except OSError:\n"
    "    closed=True\n"
    "    break\n"
    "elapsed=time.monotonic()-start\n";

}  // namespace

TEST_CASE("inflight limiter: slots per class, given back on destruction") {
  detail::InflightLimiter limiter(2, 1);
  auto first = limiter.try_acquire(RequestClass::read_only);
  auto second = limiter.try_acquire(RequestClass::read_only);
  REQUIRE(first);
  REQUIRE(second);
  CHECK_FALSE(limiter.try_acquire(RequestClass::read_only));
  CHECK(limiter.in_flight(RequestClass::read_only) == 2);
  // The classes are counted apart, and long-running requests never wait for a slot.
  auto write = limiter.try_acquire(RequestClass::mutating);
  REQUIRE(write);
  CHECK_FALSE(limiter.try_acquire(RequestClass::mutating));
  for (int i = 0; i < 100; ++i) CHECK(limiter.try_acquire(RequestClass::long_running));
  first.reset();
  CHECK(limiter.in_flight(RequestClass::read_only) == 1);
  auto again = limiter.try_acquire(RequestClass::read_only);
  CHECK(again);
  // A moved slot is given back once.
  detail::InflightSlot moved = std::move(*write);
  write.reset();
  CHECK(limiter.in_flight(RequestClass::mutating) == 1);
  moved = detail::InflightSlot();
  CHECK(limiter.in_flight(RequestClass::mutating) == 0);
}

TEST_CASE("inflight limiter: 0 means no limit") {
  detail::InflightLimiter limiter(0, 0);
  std::vector<detail::InflightSlot> slots;
  for (int i = 0; i < 1000; ++i) {
    auto slot = limiter.try_acquire(i % 2 ? RequestClass::read_only : RequestClass::mutating);
    REQUIRE(slot);
    slots.push_back(std::move(*slot));
  }
  CHECK(limiter.in_flight(RequestClass::read_only) == 500);
  slots.clear();
  CHECK(limiter.in_flight(RequestClass::read_only) == 0);
}

TEST_CASE("admission: over the in-flight limit a request gets 429 at once, long-running ones pass") {
  ServerConfig config;
  config.worker_threads = 4;
  config.admission.max_read_only_inflight = 1;
  config.admission.max_mutating_inflight = 1;
  config.admission.classify = [](const Request& request) {
    if (request.path == "/hold") return RequestClass::long_running;
    return request.method == "GET" ? RequestClass::read_only : RequestClass::mutating;
  };
  auto server = start_test_server(config);
  const std::string base = "http://" + server->base();
  // /gated holds its worker (and the only read-only slot) until the gate opens.
  LineReader busy("timeout 20 curl -sSN " + base + "/gated?n=2");
  std::string line;
  REQUIRE(busy.next(line));
  CHECK(line == "event 0");

  const auto refused = run_command("timeout 20 curl -sS -i " + base + "/hello");
  CHECK(refused.output.starts_with("HTTP/1.1 429"));
  CHECK(refused.output.find("retry-after: 1") != std::string::npos);
  CHECK(refused.output.find("Too many requests, please try again later.") != std::string::npos);
  CHECK(http_code("--http2-prior-knowledge", base + "/hello") == "429");
  // Another class has its own slots; a long-running request takes none.
  CHECK(http_code("--data-binary hello", base + "/echo") == "200");
  CHECK(http_code("--max-time 1", base + "/hold") == "200");

  server->app->gate.release();
  server->app->gate.release();
  while (busy.next(line)) {
  }
  CHECK(busy.wait() == 0);
  CHECK(http_code("", base + "/hello") == "200");
  CHECK(server->app->gate_timeouts.load() == 0);
}

TEST_CASE("admission: the refuse callback writes the answer") {
  ServerConfig config;
  config.admission.max_read_only_inflight = 1;
  std::atomic<int> refused{0};
  config.admission.refuse = [&refused](const Request&, RequestClass kind, ResponseStream& stream) {
    CHECK(kind == RequestClass::read_only);
    ++refused;
    std::string body = "{\"reason\":\"TooManyRequests\"}";
    stream.begin(ResponseHead{.status = 429,
                              .headers = {{"content-length", std::to_string(body.size())}, {"retry-after", "1"}},
                              .binary_messages = false});
    stream.write(std::move(body));
    stream.finish();
  };
  auto server = start_test_server(config);
  LineReader busy("timeout 20 curl -sSN http://" + server->base() + "/gated?n=1");
  std::string line;
  REQUIRE(busy.next(line));
  const auto answer = run_command("timeout 20 curl -sS http://" + server->base() + "/hello");
  CHECK(answer.output == "{\"reason\":\"TooManyRequests\"}");
  CHECK(refused.load() == 1);
  server->app->gate.release();
  CHECK(busy.wait() == 0);
}

TEST_CASE("admission gate: a parked request starts later from another thread and holds its seat") {
  struct Parked {
    std::shared_ptr<ResponseStream> stream;
    StartRequest start;
  };
  std::mutex parked_mutex;
  std::vector<Parked> parked;
  std::atomic<int> seats_given_back{0};
  ServerConfig config;
  config.admission.gate = [&](const Request& request, std::shared_ptr<ResponseStream> stream, StartRequest start) {
    if (request.path != "/hello") return start(std::move(stream), nullptr);
    std::lock_guard lock(parked_mutex);
    parked.push_back({std::move(stream), std::move(start)});
  };
  auto server = start_test_server(config);
  const std::string base = "http://" + server->base();
  LineReader waiting("timeout 20 curl -sS -w '\\n' " + base + "/hello");
  auto parked_count = [&] {
    std::lock_guard lock(parked_mutex);
    return parked.size();
  };
  for (int i = 0; i < 2000 && parked_count() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(parked_count() == 1);
  // The network threads go on while it waits.
  CHECK(http_code("--data-binary hello", base + "/echo") == "200");
  CHECK(http_code("--http2-prior-knowledge --data-binary hello", base + "/echo") == "200");
  Parked next;
  {
    std::lock_guard lock(parked_mutex);
    next = std::move(parked.front());
    parked.clear();
  }
  std::thread([&next, &seats_given_back] {
    next.start(std::move(next.stream), Seat(nullptr, [&seats_given_back](void*) { ++seats_given_back; }));
  }).join();
  std::string line;
  REQUIRE(waiting.next(line));
  CHECK(line.starts_with("hello"));
  CHECK(waiting.wait() == 0);
  for (int i = 0; i < 2000 && seats_given_back.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(seats_given_back.load() == 1);  // once its handler returned
}

TEST_CASE("http1: a request target over max_url_bytes gets 414, a long header block 431, both close") {
  ServerConfig config;
  config.max_url_bytes = 1024;
  config.max_header_bytes = 4096;
  auto server = start_test_server(config);
  const auto long_url = raw_exchange(server->port, "b'GET /' + b'a'*2000 + b' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'");
  CHECK(long_url.output == "HTTP/1.1 414 URI Too Long closed\n");
  // The target alone is checked while it arrives, before the whole line is in.
  const auto endless = raw_exchange(server->port, "b'GET /' + b'a'*3000");
  CHECK(endless.output == "HTTP/1.1 414 URI Too Long closed\n");
  const auto fits = raw_exchange(server->port, "b'GET /' + b'a'*1000 + b' HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'");
  CHECK(fits.output == "HTTP/1.1 404 Not Found closed\n");
  const auto big_headers = raw_exchange(server->port, "b'GET /hello HTTP/1.1\\r\\nHost: x\\r\\n' + b'X-A: ' + b'b'*5000 + b'\\r\\n\\r\\n'");
  CHECK(big_headers.output == "HTTP/1.1 431 Request Header Fields Too Large closed\n");
  CHECK(http_code("", "http://" + server->base() + "/hello") == "200");
}

TEST_CASE("http1: a request head still incomplete after read_header_timeout closes the connection") {
  ServerConfig config;
  config.read_header_timeout = std::chrono::milliseconds(800);
  auto server = start_test_server(config);
  // A client trickling header bytes (one every 100 ms, so the idle timeout never fires) is cut
  // off about read_header_timeout after its first byte; one that sent a whole request and then
  // stays quiet keeps its connection, and its next request is served.
  const std::string script =
      "import socket,sys,time\n"
      "port=int(sys.argv[1])\n"
      "s=socket.create_connection(('127.0.0.1',port),timeout=10)\n"
      "start=time.monotonic()\n"
      "s.sendall(b'GET /hello HTTP/1.1\\r\\nHost: x\\r\\n')\n" +
      k_trickle +
      "print('trickle', 'closed' if closed else 'open', 'late' if elapsed>4 else 'in-time' if elapsed>0.7 else 'early')\n"
      "k=socket.create_connection(('127.0.0.1',port),timeout=10)\n"
      "k.sendall(b'GET /hello HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')\n"
      "def response():\n"
      "  data=b''\n"
      "  while not data.endswith(b'hello world'):\n"
      "    chunk=k.recv(65536)\n"
      "    if not chunk: break\n"
      "    data+=chunk\n"
      "  return data.split(b'\\r\\n')[0].decode()\n"
      "first=response()\n"
      "time.sleep(1.5)\n"
      "k.sendall(b'GET /hello HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n')\n"
      "second=response()\n"
      "print('quiet', first, '/', second)\n";
  const auto result = run_command("timeout 30 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(server->port));
  CHECK(result.output == "trickle closed in-time\nquiet HTTP/1.1 200 OK / HTTP/1.1 200 OK\n");
}

TEST_CASE("http1: a request body still incomplete after read_body_timeout closes the connection") {
  ServerConfig config;
  config.read_body_timeout = std::chrono::milliseconds(800);
  auto server = start_test_server(config);
  // A body trickled one byte every 100 ms (the idle timeout never fires) is cut off about
  // read_body_timeout after its head.
  const std::string script =
      "import socket,sys,time\n"
      "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=10)\n"
      "s.sendall(b'POST /hello HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1000\\r\\n\\r\\n')\n"
      "start=time.monotonic()\n" +
      k_trickle +
      "print('closed' if closed else 'open', 'late' if elapsed>4 else 'in-time' if elapsed>0.7 else 'early')\n";
  const auto result = run_command("timeout 30 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(server->port));
  CHECK(result.output == "closed in-time\n");
}

TEST_CASE("http1: a request whose body admit_body refuses is answered at once without it") {
  ServerConfig config;
  config.admit_body = [](const Request& head) { return head.header("x-admit") != nullptr; };
  auto server = start_test_server(config);
  // Content-Length promises 3 MB that never come: refused, the request is answered at once
  // (/whoami echoes the body it got: none) and the connection ends; admitted, it waits.
  const std::string script =
      "import socket,sys\n"
      "def ask(extra):\n"
      "  s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=2)\n"
      "  s.sendall(b'POST /whoami HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 3000000\\r\\n'+extra+b'\\r\\nabc')\n"
      "  data=b''\n"
      "  try:\n"
      "    while True:\n"
      "      chunk=s.recv(65536)\n"
      "      if not chunk: return data.split(b'\\r\\n')[0].decode()+' closed'\n"
      "      data+=chunk\n"
      "  except socket.timeout:\n"
      "    return 'waiting'\n"
      "print(ask(b''))\n"
      "print(ask(b'X-Admit: yes\\r\\n'))\n";
  const auto result = run_command("timeout 30 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(server->port));
  CHECK(result.output == "HTTP/1.1 200 OK closed\nwaiting\n");
}

TEST_CASE("http1: a client that stops reading is disconnected after write_stall_timeout, a late reader is not") {
  // 64 MiB with Content-Length: far more than the socket buffers hold. The client sends the
  // request, reads nothing for 2 s, then reads what it can: with a short stall timeout the
  // server has closed the connection (EOF or reset before the end); with the default one the
  // whole body arrives.
  const std::string script =
      "import socket,sys,time\n"
      "s=socket.socket()\n"
      "s.setsockopt(socket.SOL_SOCKET,socket.SO_RCVBUF,16384)\n"
      "s.settimeout(20)\n"
      "s.connect(('127.0.0.1',int(sys.argv[1])))\n"
      "s.sendall(b'GET /big?bytes=67108864 HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n')\n"
      "time.sleep(2)\n"
      "got=0\n"
      "try:\n"
      "  while True:\n"
      "    chunk=s.recv(1<<20)\n"
      "    if not chunk: break\n"
      "    got+=len(chunk)\n"
      "except OSError:\n"
      "  pass\n"
      "print('complete' if got>67108864 else 'cut')\n";
  for (const auto& [stall, expected] : {std::pair{std::chrono::milliseconds(500), "cut\n"},
                                        std::pair{std::chrono::milliseconds(60000), "complete\n"}}) {
    ServerConfig config;
    config.write_stall_timeout = stall;
    auto server = start_test_server(config);
    const auto result =
        run_command("timeout 40 /usr/bin/python3 -c \"" + script + "\" " + std::to_string(server->port));
    CHECK(result.output == expected);
  }
}

TEST_CASE("h2c: a long :path gets 414, a long header list 431, and the server goes on") {
  ServerConfig config;
  config.max_url_bytes = 1024;
  config.max_header_bytes = 4096;
  auto server = start_test_server(config);
  const std::string base = "http://" + server->base();
  CHECK(http_code("--http2-prior-knowledge", base + "/" + std::string(2000, 'a')) == "414");
  CHECK(http_code("--http2-prior-knowledge -H 'X-Big: " + std::string(5000, 'b') + "'", base + "/hello") == "431");
  // Many small fields add up too (32 bytes of overhead each, as RFC 9113 counts them).
  std::string many;
  for (int i = 0; i < 80; ++i) many += " -H 'x-f" + std::to_string(i) + ": " + std::string(20, 'v') + "'";
  CHECK(http_code("--http2-prior-knowledge" + many, base + "/hello") == "431");
  const auto settings = run_command("timeout 20 nghttp -v " + base + "/hello");
  CHECK(settings.output.find("SETTINGS_MAX_HEADER_LIST_SIZE(0x06):4096") != std::string::npos);
  CHECK(http_code("--http2-prior-knowledge", base + "/hello") == "200");
}

// An HTTP/2 client on a raw socket: a POST whose body is trickled one byte of DATA every 100 ms
// on stream 1; prints what ends the stream (a DATA frame carrying the answer, RST_STREAM, the
// connection) and when. Header fields are HPACK literals without indexing or Huffman.
constexpr const char* k_h2_trickle = R"(import socket, struct, sys, time
def frame(kind, flags, stream, payload):
    return struct.pack('>I', len(payload))[1:] + bytes([kind, flags]) + struct.pack('>I', stream) + payload
def literal(name, value):
    return b'\x00' + bytes([len(name)]) + name + bytes([len(value)]) + value
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10)
block = (literal(b':method', b'POST') + literal(b':scheme', b'http') + literal(b':path', b'/echo') +
         literal(b':authority', b'x') + literal(b'content-length', b'1000'))
s.sendall(b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + frame(4, 0, 0, b'') + frame(1, 4, 1, block))
start, data, outcome = time.monotonic(), b'', 'open'
s.settimeout(0.1)
while outcome == 'open' and time.monotonic() - start < 8:
    try:
        s.sendall(frame(0, 0, 1, b'X'))
    except OSError:
        outcome = 'closed'
        break
    try:
        chunk = s.recv(65536)
        if not chunk:
            outcome = 'closed'
        data += chunk
    except socket.timeout:
        pass
    while len(data) >= 9 and len(data) >= 9 + int.from_bytes(data[:3], 'big'):
        length, kind, stream = int.from_bytes(data[:3], 'big'), data[3], int.from_bytes(data[5:9], 'big') & 0x7fffffff
        payload, data = data[9:9 + length], data[9 + length:]
        if stream == 1 and kind == 0:
            outcome = payload.decode().strip()
        elif stream == 1 and kind == 3:
            outcome = 'reset'
elapsed = time.monotonic() - start
print(outcome, 'late' if elapsed > 4 else 'in-time' if elapsed > 0.7 else 'early')
)";

TEST_CASE("h2c: a request body still incomplete after read_body_timeout is answered 408") {
  ServerConfig config;
  config.read_body_timeout = std::chrono::milliseconds(800);
  auto server = start_test_server(config);
  TempDir dir;
  {
    std::ofstream script(dir.file("trickle.py"));
    script << k_h2_trickle;
  }
  const auto result = run_command("timeout 30 /usr/bin/python3 " + dir.file("trickle.py") + " " + std::to_string(server->port));
  CHECK(result.output == "408 Request Timeout in-time\n");
  // Only that request ended: the server goes on serving.
  CHECK(http_code("--http2-prior-knowledge", "http://" + server->base() + "/hello") == "200");
}

}  // namespace kw::net::test
