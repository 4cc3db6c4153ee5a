#include "server/admission/webhook_config.hpp"

#include <algorithm>

#include "core/api/json_access.hpp"
#include "server/admission/lookup.hpp"
#include "server/registry/kinds/cel_envs.hpp"

namespace kw::admission {
namespace {

bool exact_or_wildcard(const std::vector<std::string>& items, std::string_view wanted) {
  return std::ranges::any_of(items, [&](const std::string& item) { return item == "*" || item == wanted; });
}

// The admission request's resource as the rules see it: a namespace object is cluster-scoped.
bool is_namespace_resource(const registry::AdmissionRequest& request) {
  return request.info.group.empty() && request.info.version == "v1" && request.info.plural == "namespaces";
}

bool has_labels(const nlohmann::json* object, const api::LabelSelector& selector) {
  if (object == nullptr || !object->is_object()) return false;
  return selector.matches(api::labels_of(*object));
}

}  // namespace

bool rule_matches(const WebhookRule& rule, const registry::AdmissionRequest& request) {
  if (rule.scope == "Namespaced" && (is_namespace_resource(request) || request.namespace_.empty())) return false;
  if (rule.scope == "Cluster" && !(is_namespace_resource(request) || request.namespace_.empty())) return false;
  if (rule.scope != "*" && rule.scope != "Namespaced" && rule.scope != "Cluster") return false;
  if (!exact_or_wildcard(rule.operations, request.operation)) return false;
  if (!exact_or_wildcard(rule.groups, request.info.group)) return false;
  if (!exact_or_wildcard(rule.versions, request.info.version)) return false;
  return std::ranges::any_of(rule.resources, [&](std::string_view resource) {
    const auto slash = resource.find('/');
    const auto name = resource.substr(0, slash);
    const auto sub = slash == std::string_view::npos ? std::string_view() : resource.substr(slash + 1);
    return (name == "*" || name == request.info.plural) && (sub == "*" || sub == request.subresource);
  });
}

WebhookRule read_rule(const nlohmann::json& rule) {
  return {.operations = api::strings(rule, "operations"),
          .groups = api::strings(rule, "apiGroups"),
          .versions = api::strings(rule, "apiVersions"),
          .resources = api::strings(rule, "resources"),
          .scope = api::text(rule, "scope", "*")};
}

std::vector<Webhook> read_webhooks(const nlohmann::json& configuration, bool mutating) {
  std::vector<Webhook> out;
  const auto meta = configuration.value("metadata", nlohmann::json::object());
  const std::string configuration_name = api::text(meta, "name");
  const auto webhooks = configuration.value("webhooks", nlohmann::json::array());
  for (std::size_t i = 0; i < webhooks.size(); ++i) {
    const auto& item = webhooks[i];
    if (!item.is_object()) continue;
    Webhook hook;
    hook.configuration = configuration_name;
    hook.name = api::text(item, "name");
    hook.uid = configuration_name + "/" + hook.name + "/" + std::to_string(i);
    hook.mutating = mutating;
    hook.client = registry::WebhookClient::from_json(item.value("clientConfig", nlohmann::json::object()));
    for (const auto& rule : item.value("rules", nlohmann::json::array())) {
      if (!rule.is_object()) continue;
      hook.rules.push_back(read_rule(rule));
    }
    hook.match_policy = read_match_policy(item);
    hook.fail_closed = api::text(item, "failurePolicy", "Fail") != "Ignore";
    for (auto [key, selector] : {std::pair{"namespaceSelector", &hook.namespace_selector},
                                 std::pair{"objectSelector", &hook.object_selector}}) {
      auto it = item.find(key);
      if (it == item.end() || !it->is_object()) continue;
      auto parsed = api::LabelSelector::from_label_selector_json(*it);
      if (parsed) *selector = std::move(*parsed);
      else hook.selector_error = std::string(key) + ": " + parsed.error().message;
    }
    hook.side_effects = api::text(item, "sideEffects");
    if (auto seconds = item.find("timeoutSeconds"); seconds != item.end() && seconds->is_number_integer())
      hook.timeout = std::chrono::seconds(std::clamp<std::int64_t>(seconds->get<std::int64_t>(), 1, 30));
    hook.review_versions = api::strings(item, "admissionReviewVersions");
    hook.reinvoke_if_needed = mutating && api::text(item, "reinvocationPolicy") == "IfNeeded";
    hook.match_conditions = compile_match_conditions(item.value("matchConditions", nlohmann::json::array()),
                                                     kinds::webhook_match_env());
    out.push_back(std::move(hook));
  }
  return out;
}

bool is_admission_configuration(const registry::AdmissionRequest& request) {
  static constexpr std::string_view k_kinds[] = {
      "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",    "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"};
  return request.info.group == "admissionregistration.k8s.io" && std::ranges::find(k_kinds, request.info.kind) != std::end(k_kinds);
}

const api::ResourceInfo* rules_match(const Webhook& hook, const registry::AdmissionRequest& request,
                                     EquivalentResources& equivalents) {
  if (is_admission_configuration(request)) return nullptr;
  return matched_resource(
      hook.rules.size(),
      [&](std::size_t i, const registry::AdmissionRequest& as) { return rule_matches(hook.rules[i], as); }, request,
      hook.match_policy, equivalents);
}

bool object_selected(const api::LabelSelector& selector, const registry::AdmissionRequest& request) {
  if (selector.empty()) return true;
  return has_labels(&request.object, selector) || has_labels(request.old, selector);
}

std::optional<std::string> selected_namespace(const registry::AdmissionRequest& request) {
  if (is_namespace_resource(request)) return request.name.empty() ? request.namespace_ : request.name;
  if (request.namespace_.empty()) return std::nullopt;
  return request.namespace_;
}

registry::ApiResult<bool> namespace_selected(registry::Registry& registry, const api::LabelSelector& selector,
                                             const registry::AdmissionRequest& request) {
  if (selector.empty()) return true;
  const auto ns = selected_namespace(request);
  if (!ns) return true;
  if (request.info.plural == "namespaces" && request.info.group.empty() && request.subresource.empty() &&
      request.operation != "DELETE" && request.object.is_object())
    return selector.matches(api::labels_of(request.object));
  auto found = cached_object(registry, "", "v1", "namespaces", "", *ns);
  if (!found) return std::unexpected(found.error());
  if (!*found) return std::unexpected(registry::not_found("", "namespaces", *ns));
  return selector.matches(api::labels_of(**found));
}

}  // namespace kw::admission
