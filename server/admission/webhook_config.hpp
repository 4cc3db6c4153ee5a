#pragma once
// The webhooks of admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations,
// read once per configuration change, and which requests each of them is called for (kube's
// rules matcher, namespaceSelector and objectSelector).
//
//   auto hooks = admission::read_webhooks(configuration, /*mutating=*/true);
//   for (const auto& hook : hooks) if (auto* as = admission::rules_match(hook, request, equivalents)) ...
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/selector.hpp"
#include "server/admission/equivalents.hpp"
#include "server/admission/match_conditions.hpp"
#include "server/registry/admission.hpp"
#include "server/registry/registry.hpp"
#include "server/registry/webhook_client.hpp"

namespace kw::admission {

struct WebhookRule {
  std::vector<std::string> operations;  // CREATE, UPDATE, DELETE, CONNECT or *
  std::vector<std::string> groups;
  std::vector<std::string> versions;
  std::vector<std::string> resources;  // "pods", "pods/status", "*", "*/*", "pods/*"
  std::string scope = "*";             // Cluster, Namespaced or *
};

struct Webhook {
  std::string configuration;  // the configuration's name
  std::string name;           // the webhook's name, as errors and audit annotations name it
  std::string uid;            // CONFIGURATION/NAME/INDEX: one webhook across reinvocation rounds
  bool mutating = false;
  registry::WebhookClient client;  // clientConfig
  std::vector<WebhookRule> rules;
  MatchPolicy match_policy = MatchPolicy::exact;  // matchPolicy (the API defaults it to Equivalent)
  bool fail_closed = true;           // failurePolicy Fail (the default) or Ignore
  api::LabelSelector namespace_selector;
  api::LabelSelector object_selector;
  std::string side_effects;          // None, NoneOnDryRun, Some, Unknown
  std::chrono::seconds timeout{10};  // timeoutSeconds
  std::vector<std::string> review_versions;  // admissionReviewVersions, in preference order
  bool reinvoke_if_needed = false;            // reinvocationPolicy IfNeeded
  std::vector<MatchCondition> match_conditions = {};
  // A selector the API accepted that kw cannot parse: the webhook then fails every request it
  // would see, as kube's webhook does with an internal error.
  std::string selector_error;
};

// The webhooks of one stored configuration, in their order there.
std::vector<Webhook> read_webhooks(const nlohmann::json& configuration, bool mutating);

// A RuleWithOperations (operations, apiGroups, apiVersions, resources, scope).
WebhookRule read_rule(const nlohmann::json& rule);
// Whether the rule covers the request: operation, group, version, resource and subresource,
// scope (kube's rules.Matcher).
bool rule_matches(const WebhookRule& rule, const registry::AdmissionRequest& request);

// Requests on the admission configurations themselves (webhook configurations, admission
// policies and their bindings), which no webhook is called for.
bool is_admission_configuration(const registry::AdmissionRequest& request);

// The resource the webhook's rules match the request as (matched_resource under its
// matchPolicy): its own, an equivalent one, or null; never an admission configuration.
const api::ResourceInfo* rules_match(const Webhook& hook, const registry::AdmissionRequest& request,
                                     EquivalentResources& equivalents);

// Whether the request's object (or the old one) has the labels an objectSelector asks for.
bool object_selected(const api::LabelSelector& selector, const registry::AdmissionRequest& request);

// The namespace a request's namespaceSelector looks at: its namespace, or the namespace object
// it writes; nullopt for other cluster-scoped requests, which every namespaceSelector selects.
std::optional<std::string> selected_namespace(const registry::AdmissionRequest& request);

// Whether a namespaceSelector selects the request: the labels of its namespace (from the watch
// cache), or of the namespace object it writes. A namespace that cannot be read answers the
// request (404 when it does not exist).
registry::ApiResult<bool> namespace_selected(registry::Registry& registry, const api::LabelSelector& selector,
                                             const registry::AdmissionRequest& request);

}  // namespace kw::admission
