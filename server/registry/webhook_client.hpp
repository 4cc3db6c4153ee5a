#pragma once
// One HTTPS POST to a webhook as kube-apiserver's webhook client makes it (admission webhooks,
// CRD conversion webhooks): to a clientConfig's url, or to a Service, which kw resolves to one of
// its ready endpoints through its EndpointSlices (kube-apiserver with --enable-aggregator-routing)
// while verifying the certificate for NAME.NAMESPACE.svc against caBundle.
//
//   auto client = registry::WebhookClient::from_json(hook["clientConfig"]);
//   auto answer = registry::post_to_webhook(registry, client, 10s, "kube-apiserver-admission", body);
//   if (!answer) ... answer.error().message is Go's wording: `Post "https://...": ...`
//
// Blocks the calling thread (a request worker, never a network thread) for at most `timeout`.
// Connections are kept for the next call to the same webhook (Registry::webhook_clients): HTTP/2
// where the webhook offers it, else HTTP/1.1 keep-alive.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {

struct ServiceReference {
  std::string namespace_;
  std::string name;
  std::string path;  // "" or "/..."
  int port = 443;
};

// A WebhookClientConfig (admissionregistration and apiextensions spell it alike).
struct WebhookClient {
  std::string url;                          // url, or
  std::optional<ServiceReference> service;  // service
  std::string ca_bundle;                    // PEM, decoded from caBundle

  static WebhookClient from_json(const nlohmann::json& client_config);
};

// The URL kube-apiserver names in its errors: `https://NAME.NAMESPACE.svc:PORT/PATH?timeout=Ns`.
std::string webhook_display_url(const WebhookClient& client, std::chrono::seconds timeout);

// The body of a 2xx answer. Fails in the words of kube's webhook client (after its "failed to
// call webhook: "): `Post "URL": WHY` when the webhook cannot be reached, its certificate is not
// trusted, it does not answer in time or its answer is over 64 MiB; the Status's message, or
// client-go's words for the code, for any other answer.
Result<std::string> post_to_webhook(Registry& registry, const WebhookClient& client, std::chrono::seconds timeout,
                                    std::string_view user_agent, const std::string& body);

}  // namespace kw::registry
