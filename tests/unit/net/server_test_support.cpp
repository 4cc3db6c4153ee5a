#include "server_test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>

namespace kw::net::test {

namespace {

int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

std::string protocol_name(Protocol protocol) {
  switch (protocol) {
    case Protocol::http1: return "h1";
    case Protocol::http2: return "h2";
    case Protocol::websocket: return "ws";
  }
  return "?";
}

ResponseHead text_head(int status, std::size_t length) {
  return ResponseHead{.status = status,
                      .headers = {{"content-type", "text/plain"}, {"content-length", std::to_string(length)}},
                      .binary_messages = false};
}

void reply(ResponseStream& stream, int status, const std::string& body) {
  stream.begin(text_head(status, body.size()));
  stream.write(body);
  stream.finish();
}

int int_param(const Request& request, const std::string& key, int fallback) {
  const std::string value = query_value(request.query, key);
  return value.empty() ? fallback : std::stoi(value);
}

}  // namespace

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  result.exit_code = exit_status(pclose(pipe));
  return result;
}

LineReader::LineReader(const std::string& command) : m_pipe(popen(command.c_str(), "r")) {}

LineReader::~LineReader() { wait(); }

bool LineReader::next(std::string& line) {
  line.clear();
  if (m_pipe == nullptr) return false;
  int c = 0;
  while ((c = fgetc(m_pipe)) != EOF) {
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
  }
  return !line.empty();
}

int LineReader::wait() {
  if (m_pipe != nullptr) {
    m_exit_code = exit_status(pclose(m_pipe));
    m_pipe = nullptr;
  }
  return m_exit_code;
}

TempDir::TempDir() {
  std::random_device random;
  m_path = std::filesystem::temp_directory_path() / ("kw-net-test-" + std::to_string(random()));
  std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::unique_ptr<TestPki> make_test_pki() {
  auto pki = std::make_unique<TestPki>();
  const auto& dir = pki->dir;
  pki->ca_cert = dir.file("ca.crt");
  pki->server_cert = dir.file("server.crt");
  pki->server_key = dir.file("server.key");
  pki->client_cert = dir.file("client.crt");
  pki->client_key = dir.file("client.key");
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string d = dir.path().string() + "/";
  const std::string script =
      "cd " + d + " && printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext && " +
      "printf 'extendedKeyUsage=clientAuth\\n' > client.ext && " +
      "timeout 20 openssl req -x509 " + key + " -keyout ca.key -out ca.crt -days 1 -subj /CN=kw-test-ca && " +
      "timeout 20 openssl req " + key + " -keyout server.key -out server.csr -subj /CN=127.0.0.1 && " +
      "timeout 20 openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
      "-extfile server.ext -out server.crt && " +
      "timeout 20 openssl req " + key + " -keyout client.key -out client.csr '-subj' '/O=system:masters/O=devs/CN=alice' && " +
      "timeout 20 openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 "
      "-extfile client.ext -out client.crt";
  const auto result = run_command("(" + script + ") >/dev/null 2>&1");
  if (result.exit_code != 0) throw std::runtime_error("openssl could not create the test certificates");
  return pki;
}

std::string flood_event(int index, int size) {
  std::string event = "event " + std::to_string(index) + " ";
  event.resize(static_cast<std::size_t>(std::max<int>(size, static_cast<int>(event.size()) + 1)) - 1, 'a' + index % 26);
  return event + "\n";
}

std::string query_value(const std::string& query, const std::string& key) {
  std::size_t start = 0;
  while (start < query.size()) {
    auto end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    const std::string item = query.substr(start, end - start);
    const auto eq = item.find('=');
    if (item.substr(0, eq) == key) return eq == std::string::npos ? std::string() : item.substr(eq + 1);
    start = end + 1;
  }
  return {};
}

void TestApp::handle(Request request, std::shared_ptr<ResponseStream> stream) {
  const std::string& path = request.path;
  if (path == "/hello") {
    reply(*stream, 200, "hello world");
  } else if (path == "/echo") {
    reply(*stream, 200, "got " + std::to_string(request.body.size()) + " bytes");
  } else if (path == "/whoami") {
    std::string body = "proto=" + protocol_name(request.protocol) + " tls=" + (request.tls ? "1" : "0");
    if (request.peer) {
      body += " cn=" + request.peer->common_name + " o=";
      for (const auto& o : request.peer->organizations) body += o + ";";
    }
    {
      std::lock_guard lock(seen_mutex);
      last_request = request;
    }
    reply(*stream, 200, body);
  } else if (path == "/gated") {
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    const int n = int_param(request, "n", 3);
    for (int i = 0; i < n; ++i) {
      stream->write("event " + std::to_string(i) + "\n");
      stream->flush();
      if (!gate.try_acquire_for(std::chrono::seconds(5))) ++gate_timeouts;
    }
    stream->finish();
  } else if (path == "/ticks") {
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    const int n = int_param(request, "n", 3);
    for (int i = 0; i < n; ++i) {
      stream->write("tick " + std::to_string(i) + "\n");
      stream->flush();
      std::this_thread::sleep_for(std::chrono::milliseconds(int_param(request, "ms", 20)));
    }
    stream->finish();
  } else if (path == "/flood") {
    // n numbered events of `size` bytes, written back to back by another thread (as the watch
    // cache's dispatch does) once the first event is out and the body streams.
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    const int n = int_param(request, "n", 1000);
    const int size = int_param(request, "size", 1000);
    stream->write(flood_event(0, size));
    stream->flush();
    std::thread([stream, n, size] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (int i = 1; i < n; ++i) {
        stream->write(flood_event(i, size));
        stream->flush();
      }
      stream->finish();
    }).detach();
  } else if (path == "/hold") {
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    stream->on_close([this] { ++closed_callbacks; });
    stream->write("first\n");
    stream->flush();
    std::lock_guard lock(held_mutex);
    held.push_back(std::move(stream));
  } else if (path == "/big") {
    const int bytes = int_param(request, "bytes", 1 << 20);
    stream->begin(text_head(200, static_cast<std::size_t>(bytes)));
    const auto piece = std::make_shared<const std::string>(16 * 1024, 'x');
    for (int sent = 0; sent < bytes; sent += static_cast<int>(piece->size())) stream->write(piece);
    stream->finish();
    big = stream;
    big_finished = true;
  } else if (path == "/ws") {
    if (request.protocol != Protocol::websocket) {
      reply(*stream, 400, "websocket only");
      return;
    }
    const bool binary = query_value(request.query, "binary") == "1";
    stream->begin(ResponseHead{.status = 200, .headers = {}, .binary_messages = binary});
    const int n = int_param(request, "n", 3);
    for (int i = 0; i < n; ++i) stream->write("message " + std::to_string(i));
    stream->finish();
  } else if (path == "/abort") {
    // n events of `size` bytes, then the response is dropped at once with what is queued.
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    const int n = int_param(request, "n", 3);
    const int size = int_param(request, "size", 100);
    for (int i = 0; i < n; ++i) stream->write(flood_event(i, size));
    stream->flush();
    stream->abort();
  } else if (path == "/drop") {
    // The stream goes out of scope unanswered: the transport answers 500.
  } else if (path == "/half") {
    stream->begin(ResponseHead{.status = 200, .headers = {{"content-type", "text/plain"}}, .binary_messages = false});
    stream->write("partial\n");
    // Dropped after begin(): the transport finishes it.
  } else if (path == "/ws-deny") {
    reply(*stream, 403, "denied");
  } else {
    reply(*stream, 404, "no route " + path);
  }
}

std::unique_ptr<TestServer> start_test_server(ServerConfig config) {
  auto test_server = std::make_unique<TestServer>();
  config.address = "127.0.0.1";
  config.port = 0;
  auto app = test_server->app;
  auto server = start_http_server(std::move(config), [app](Request request, std::shared_ptr<ResponseStream> stream) {
    app->handle(std::move(request), std::move(stream));
  });
  if (!server) throw std::runtime_error("server did not start: " + server.error().message);
  test_server->server = std::move(*server);
  test_server->port = test_server->server->port();
  return test_server;
}

}  // namespace kw::net::test
