#include "server/http/handlers/handlers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/net/client/client.hpp"

namespace kw::http::handlers {
namespace {

using nlohmann::json;

// The components kube-apiserver reports, and where their health endpoints listen.
struct Component {
  const char* name;
  int port;  // 0: the store
};
constexpr Component k_components[] = {{"scheduler", 10259}, {"controller-manager", 10257}, {"etcd-0", 0}};

// "" when something accepts connections on 127.0.0.1:port within a second, else why not, in
// the words of Go's dialer.
std::string dial_error(int port) {
  const std::string url = "Get \"https://127.0.0.1:" + std::to_string(port) + "/healthz\": dial tcp 127.0.0.1:" +
                          std::to_string(port) + ": ";
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return url + "socket: " + std::strerror(errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int error = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 1000) == 1) {
        socklen_t length = sizeof error;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      } else {
        error = ETIMEDOUT;
      }
    }
  }
  ::close(fd);
  if (error == 0) return "";
  return url + "connect: " + (error == ECONNREFUSED ? std::string("connection refused") : std::strerror(error));
}

// A component's condition as kube-apiserver's HTTP prober reports it: GET /healthz over TLS
// (certificate not verified, 10 s to connect and shake hands, 20 s in all); True with the
// body when it answers 2xx/3xx, False with the failure in Go's words otherwise.
json probe_health(int port) {
  const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/healthz";
  const auto failed = [](std::string message) {
    return json{{"type", "Healthy"}, {"status", "False"}, {"message", std::move(message)}};
  };
  if (std::string error = dial_error(port); !error.empty()) return failed(std::move(error));
  net::client::ClientConfig config;
  config.url = "https://127.0.0.1:" + std::to_string(port);
  config.insecure_skip_tls_verify = true;
  config.transport = net::client::Transport::Http1;
  config.connect_timeout = std::chrono::seconds(10);
  config.request_timeout = std::chrono::seconds(20);
  config.user_agent = "kube-probe";
  config.kubeconfig_advice = false;
  auto client = net::client::Client::create(std::move(config));
  if (!client) return failed("Get \"" + url + "\": " + client.error().message);
  auto response = (*client)->request({.method = "GET", .target = "/healthz"}, 1 << 20);
  if (!response) {
    const std::string& why = response.error().message;
    const bool handshake_timeout = why.starts_with("TLS handshake") && why.find("timed out") != std::string::npos;
    return failed("Get \"" + url + "\": " + (handshake_timeout ? std::string("net/http: TLS handshake timeout") : why));
  }
  const int status = response->head.status;
  if (status < 200 || status >= 400) return failed("HTTP probe failed with statuscode: " + std::to_string(status));
  return {{"type", "Healthy"}, {"status", "True"}, {"message", std::move(response->body)}};
}

json component_status(const ResourceRequest& r, const Component& component) {
  // The store answers as etcd's /health does.
  json condition = {{"type", "Healthy"}, {"status", "True"}, {"message", R"({"health":"true"})"}};
  if (component.port != 0) {
    condition = probe_health(component.port);
  } else if (auto healthy = r.registry.storage_health(); !healthy) {
    condition = {{"type", "Healthy"}, {"status", "False"}, {"error", healthy.error().message}};
  }
  return {{"kind", "ComponentStatus"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", component.name}, {"creationTimestamp", nullptr}}},
          {"conditions", json::array({condition})}};
}

}  // namespace

void get_component_status(const ResourceRequest& r) {
  auto format = negotiate(r, {.table = true, .protobuf = true});
  if (!format) return;
  for (const auto& component : k_components)
    if (r.info.name == component.name) return reply(r, *format, 200, component_status(r, component));
  r.fail(registry::ApiError{500, "InternalError", "Component not found: " + r.info.name, {}});
}

void list_component_statuses(const ResourceRequest& r) {
  auto format = negotiate(r, {.table = true, .protobuf = true});
  if (!format) return;
  json items = json::array();
  for (const auto& component : k_components) items.push_back(component_status(r, component));
  json list = {{"kind", "ComponentStatusList"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"items", items}};
  if (format->format != Format::table) {
    if (r.audit) r.audit->response_object(list);
    return send_object(*r.stream, 200, list, *format);
  }
  const auto now = std::chrono::system_clock::now();
  json rows = json::array();
  for (const auto& item : items) rows.push_back(table_row(r.resource, item, format->include_object, now));
  send_object(*r.stream, 200, table_document(r.resource, json::object(), std::move(rows)), *format);
}

}  // namespace kw::http::handlers
