#include "server/registry/webhook_client.hpp"

#include <cctype>

#include "core/codec/json_limits.hpp"
#include "core/net/client/client.hpp"
#include "core/util/text.hpp"
#include "core/util/base64.hpp"
#include "server/registry/service_resolver.hpp"

namespace kw::registry {
namespace {

constexpr std::size_t k_max_reply_bytes = 64u << 20;

// client-go's error for an answer that is not 2xx: a Status's own message, else its words for
// the code (NewGenericServerResponse), quoting a text body where it does.
std::string unexpected_answer(int code, const net::client::ResponseHead& head, const std::string& body) {
  if (auto parsed = codec::parse_json(body); parsed && parsed->is_object() && parsed->value("kind", "") == "Status" &&
                                             parsed->contains("message"))
    return parsed->value("message", std::string());
  const auto* type = head.header("content-type");
  std::string server_message = "unknown";
  if (type != nullptr && type->starts_with("text/")) {
    server_message = body.substr(0, 2048);
    while (!server_message.empty() && std::isspace(static_cast<unsigned char>(server_message.back())))
      server_message.pop_back();
    while (!server_message.empty() && std::isspace(static_cast<unsigned char>(server_message.front())))
      server_message.erase(0, 1);
  }
  switch (code) {
    case 409: return "the server reported a conflict";
    case 404: return "the server could not find the requested resource";
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "the server has asked for the client to provide credentials";
    case 403: return server_message;
    case 405: return "the server does not allow this method on the requested resource";
    case 406:
      return server_message == "unknown" ? "the server was unable to respond with a content type that the client supports"
                                         : server_message;
    case 415: return server_message;
    case 422: return "the server rejected our request due to an error in our request";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default: break;
  }
  if (code >= 500)
    return "an error on the server (" + util::go_quote(server_message) + ") has prevented the request from succeeding";
  return "the server responded with the status code " + std::to_string(code) + " but did not return more information";
}

}  // namespace

WebhookClient WebhookClient::from_json(const nlohmann::json& client_config) {
  WebhookClient client;
  if (!client_config.is_object()) return client;
  client.url = client_config.value("url", std::string());
  if (auto service = client_config.find("service"); service != client_config.end() && service->is_object())
    client.service = ServiceReference{.namespace_ = service->value("namespace", std::string()),
                                      .name = service->value("name", std::string()),
                                      .path = service->value("path", std::string()),
                                      .port = service->value("port", 443)};
  if (auto bundle = util::base64_decode(client_config.value("caBundle", std::string()))) client.ca_bundle = std::move(*bundle);
  return client;
}

std::string webhook_display_url(const WebhookClient& client, std::chrono::seconds timeout) {
  const std::string query = "?timeout=" + std::to_string(timeout.count()) + "s";
  if (!client.service) return client.url + query;
  const auto& s = *client.service;
  return "https://" + s.name + "." + s.namespace_ + ".svc:" + std::to_string(s.port) + s.path + query;
}

Result<std::string> post_to_webhook(Registry& registry, const WebhookClient& hook, std::chrono::seconds timeout,
                                    std::string_view user_agent, const std::string& body) {
  const std::string shown = "Post " + util::go_quote(webhook_display_url(hook, timeout)) + ": ";
  net::client::ClientConfig config;
  std::string target;
  if (hook.service) {
    auto endpoint = resolve_service(registry, hook.service->namespace_, hook.service->name, hook.service->port);
    if (!endpoint) return fail(shown + endpoint.error().message);
    config.url = https_url(*endpoint);
    config.tls_server_name = hook.service->name + "." + hook.service->namespace_ + ".svc";
    target = hook.service->path;
  } else {
    auto url = net::client::parse_url(hook.url);
    if (!url) return fail(shown + url.error().message);
    config.url = (url->tls ? "https://" : "http://") + url->authority();
    target = url->path_prefix;
  }
  if (target.empty()) target = "/";
  target += "?timeout=" + std::to_string(timeout.count()) + "s";
  config.ca_data = hook.ca_bundle;
  config.connect_timeout = timeout;
  config.request_timeout = timeout;
  config.user_agent = std::string(user_agent);
  config.kubeconfig_advice = false;
  auto client = registry.webhook_clients().acquire(config);
  if (!client) return fail(shown + client.error().message);
  net::client::Request request{.method = "POST",
                               .target = target,
                               .headers = {{"Content-Type", "application/json"}, {"Accept", "application/json, */*"}},
                               .body = body};
  auto response = (*client)->request(request, k_max_reply_bytes);
  if (!response) {
    std::string why = response.error().message;
    if (why.find("timed out") != std::string::npos) why = "context deadline exceeded";
    return fail(shown + std::move(why));
  }
  const int code = response->head.status;
  if (code >= 200 && code <= 206) return std::move(response->body);
  return fail(unexpected_answer(code, response->head, response->body));
}

}  // namespace kw::registry
