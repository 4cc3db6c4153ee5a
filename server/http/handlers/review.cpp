#include "server/http/handlers/handlers.hpp"

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::http::handlers {
namespace {

using nlohmann::json;
using registry::ApiResult;

// An access review's question as authorizer attributes.
auth::Attributes attributes_of(const json& spec, auth::UserInfo user) {
  if (const auto resource = spec.find("resourceAttributes"); resource != spec.end() && resource->is_object()) {
    auto get = [&](const char* key) { return resource->value(key, std::string()); };
    return auth::resource_attributes(std::move(user), get("verb"), get("namespace"), get("group"), get("resource"),
                                     get("subresource"), get("name"), "");
  }
  const json non_resource = spec.value("nonResourceAttributes", json::object());
  auto attributes = auth::non_resource_attributes(std::move(user), non_resource.value("verb", std::string()),
                                                  non_resource.value("path", std::string()));
  return attributes;
}

json access_status(const ResourceRequest& r, const auth::Attributes& attributes) {
  if (r.authorizer == nullptr) return {{"allowed", true}};
  const auto decision = r.authorizer->authorize(attributes, true);
  json status = {{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return status;
}

json token_review_status(const ResourceRequest& r, const json& spec) {
  const auto token = spec.value("token", std::string());
  std::vector<std::string> audiences;
  if (const auto wanted = spec.find("audiences"); wanted != spec.end() && wanted->is_array())
    for (const auto& one : *wanted)
      if (one.is_string()) audiences.push_back(one.get<std::string>());
  auth::TokenReviewResult result;
  if (r.authenticator != nullptr && !token.empty()) result = r.authenticator->authenticate_token(token, audiences);
  else result.error = "invalid bearer token";
  if (!result.user) return {{"user", json::object()}, {"error", result.error}};
  json status = {{"authenticated", true}, {"user", auth::user_info_to_json(*result.user)}};
  if (!result.audiences.empty()) status["audiences"] = result.audiences;
  else if (!audiences.empty()) status["audiences"] = audiences;
  return status;
}

// What the authorization modes would let the requester do in spec.namespace (kube's union
// RulesFor); without an authorizer (the trusted local port) everything.
ApiResult<json> rules_review_status(const ResourceRequest& r, const json& spec) {
  const std::string ns = spec.value("namespace", std::string());
  if (ns.empty()) return std::unexpected(registry::bad_request("no namespace on request"));
  const auth::RuleSet all = r.authorizer != nullptr
                                ? r.authorizer->rules_for(r.user, ns)
                                : auth::RuleSet{.rules = auth::all_rules(), .incomplete = false, .errors = {}};
  json resource_rules = json::array();
  json non_resource_rules = json::array();
  for (const auto& rule : all.rules) {
    if (!rule.resources.empty()) {
      json one = rule.to_json();
      one.erase("nonResourceURLs");
      resource_rules.push_back(std::move(one));
    }
    if (!rule.non_resource_urls.empty())
      non_resource_rules.push_back({{"verbs", rule.verbs}, {"nonResourceURLs", rule.non_resource_urls}});
  }
  json status = {{"resourceRules", std::move(resource_rules)},
                 {"nonResourceRules", std::move(non_resource_rules)},
                 {"incomplete", all.incomplete}};
  if (!all.errors.empty()) status["evaluationError"] = auth::aggregate_errors(all.errors);
  return status;
}

}  // namespace

void review(const ResourceRequest& r) {
  if (!r.info.name.empty())
    return r.fail(registry::ApiError{405, "MethodNotAllowed", "POST is not supported on a named object", {}});
  WriteContext write;
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()}, "CreateOptions")) return;
  auto body = read_body(r.request);
  if (!body) return r.fail(body.error());
  auto object = r.registry.prepare_review(r.resource, r.info.namespace_, std::move(*body), write.options);
  if (!object) return r.fail(object.error());
  r.audited_request(*object);
  const json spec = object->value("spec", json::object());
  const auto* row = kinds::find_kind(r.resource.group, r.resource.version, r.resource.plural);
  switch (row ? row->review : kinds::Review::none) {
    case kinds::Review::token:
      if (spec.value("token", std::string()).empty())
        return r.fail(registry::bad_request("token is required for TokenReview in authentication"));
      (*object)["status"] = token_review_status(r, spec);
      break;
    case kinds::Review::self_subject: (*object)["status"] = {{"userInfo", auth::user_info_to_json(r.user)}}; break;
    case kinds::Review::self_subject_access:
      (*object)["status"] = access_status(r, attributes_of(spec, r.user));
      break;
    case kinds::Review::subject_access:
      (*object)["status"] = access_status(r, attributes_of(spec, auth::user_info_from_json(spec, "user")));
      break;
    case kinds::Review::self_subject_rules: {
      auto status = rules_review_status(r, spec);
      if (!status) return r.fail(status.error());
      (*object)["status"] = std::move(*status);
      break;
    }
    case kinds::Review::none: break;
  }
  reply(r, write.format, 201, std::move(*object), write.warnings);
}

void bind(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = true}, "CreateOptions")) return;
  auto body = read_body(r.request);
  if (!body) return r.fail(body.error());
  r.audited_request(*body);
  // pods/{name}/binding names the pod on the URL; POST bindings names it in the body.
  const std::string pod = !r.info.name.empty() ? r.info.name
                                               : body->value("metadata", json::object()).value("name", std::string());
  if (pod.empty())
    return r.fail(registry::ApiError{422, "Invalid", "Binding \"\" is invalid: metadata.name: Required value: name or generateName is required", {}});
  // (a body that names no pod binds the URL's, as clients that build the path expect)
  if (const auto named = body->value("metadata", json::object()).value("name", std::string()); !named.empty() && named != pod)
    return r.fail(registry::bad_request("name in URL does not match name in Binding object"));
  reply(r, write.format, 201, r.registry.bind(r.info.namespace_, pod, std::move(*body), write.options), write.warnings);
}

void evict(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = true}, "CreateOptions")) return;
  auto body = read_body(r.request);
  if (!body) return r.fail(body.error());
  r.audited_request(*body);
  reply(r, write.format, 201, r.registry.evict(r.info.namespace_, r.info.name, *body, write.options), write.warnings);
}

}  // namespace kw::http::handlers
