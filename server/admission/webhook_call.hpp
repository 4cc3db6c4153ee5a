#pragma once
// One HTTPS POST to an admission webhook, as kube-apiserver's webhook client makes it: to the
// clientConfig's url, or to a Service, which kw resolves to one of its ready endpoints through
// the Service's EndpointSlices (kube-apiserver with --enable-aggregator-routing) while verifying
// the certificate for NAME.NAMESPACE.svc against caBundle.
//
//   auto answer = admission::post_to_webhook(registry, hook, body);
//   if (!answer) ... answer.error().message is Go's wording: `Post "https://...": ...`
//
// Blocks the calling thread (a request worker, never a network thread) for at most the
// webhook's timeoutSeconds.
#include <string>

#include "core/util/error.hpp"
#include "server/admission/webhook_config.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

// The URL kube-apiserver names in its errors: `https://NAME.NAMESPACE.svc:PORT/PATH?timeout=Ns`.
std::string webhook_display_url(const Webhook& hook);

// The body of a 2xx answer. Fails in the words of kube's webhook client (after its "failed to
// call webhook: "): `Post "URL": WHY` when the webhook cannot be reached, its certificate is not
// trusted, it does not answer in time or its answer is over 64 MiB; the Status's message, or
// client-go's words for the code, for any other answer.
Result<std::string> post_to_webhook(registry::Registry& registry, const Webhook& hook, const std::string& body);

}  // namespace kw::admission
