#include "server/admission/match_conditions.hpp"

#include <algorithm>

#include "core/api/resource.hpp"
#include "core/cel/authz.hpp"
#include "server/auth/service_account.hpp"

namespace kw::admission {

namespace {

using registry::AdmissionRequest;

constexpr std::uint64_t k_per_call_limit = 1'000'000;  // kube's PerCallLimit
constexpr std::uint64_t k_budget = 7'000'000;          // RuntimeCELCostBudgetMatchConditions

nlohmann::json requester(const AdmissionRequest& request) {
  if (request.user.is_object()) return request.user;
  // The server's own writes (kw's controllers): the loopback identity kube-apiserver uses.
  return {{"username", "system:apiserver"}, {"groups", {"system:masters"}}};
}

// The authorizer library's questions, put to the server's authorizer.
class RequesterAuthz : public cel::AuthzHost {
 public:
  RequesterAuthz(const auth::Authorizer* authorizer, auth::UserInfo requester)
      : m_authorizer(authorizer), m_requester(std::move(requester)) {}

  cel::AuthzDecision check(const cel::AuthzCheck& check) const override {
    if (m_authorizer == nullptr) return {.kind = cel::AuthzDecision::Kind::allow};
    auth::UserInfo user = m_requester;
    if (check.service_account) {
      const auto& [ns, name] = *check.service_account;
      user = auth::UserInfo{.name = auth::service_account_user(ns, name),
                            .groups = auth::service_account_groups(ns),
                            .uid = {},
                            .extra = {}};
    }
    const auth::Attributes attributes =
        check.resource_request
            ? auth::resource_attributes(std::move(user), check.verb, check.namespace_, check.group, check.resource,
                                        check.subresource, check.name, "")
            : auth::non_resource_attributes(std::move(user), check.verb, check.path);
    const auth::Decision decision = m_authorizer->authorize(attributes, /*explain_allow=*/true);
    return {.kind = decision.allowed ? cel::AuthzDecision::Kind::allow : cel::AuthzDecision::Kind::no_opinion,
            .reason = decision.reason,
            .error = {}};
  }

 private:
  const auth::Authorizer* m_authorizer;
  auth::UserInfo m_requester;
};

nlohmann::json operation_options(const AdmissionRequest& request) {
  const std::string kind = request.operation == "CREATE"   ? "CreateOptions"
                           : request.operation == "UPDATE" ? "UpdateOptions"
                                                           : "DeleteOptions";
  nlohmann::json options = {{"kind", kind}, {"apiVersion", "meta.k8s.io/v1"}};
  if (request.dry_run) options["dryRun"] = {"All"};
  return options;
}

nlohmann::json resource_fields(const api::ResourceInfo& info) {
  return {{"group", info.group}, {"version", info.version}, {"resource", info.plural}};
}

// The kind of a request on `info`: the resource's, or a subresource's own kind (Scale, Binding),
// which its object carries.
nlohmann::json kind_fields(const AdmissionRequest& request, const api::ResourceInfo& info) {
  api::GroupVersion kind_of{info.group, info.version};
  std::string kind = info.kind;
  if (request.object.is_object() && !request.subresource.empty() &&
      request.object.value("kind", info.kind) != info.kind) {
    kind_of = api::split_api_version(request.object.value("apiVersion", info.api_version()));
    kind = request.object.value("kind", info.kind);
  }
  return {{"group", kind_of.group}, {"version", kind_of.version}, {"kind", kind}};
}

}  // namespace

std::vector<MatchCondition> compile_match_conditions(const nlohmann::json& conditions, const cel::Env& env) {
  std::vector<MatchCondition> out;
  if (!conditions.is_array()) return out;
  for (const auto& condition : conditions) {
    if (!condition.is_object()) continue;
    MatchCondition compiled{.name = condition.value("name", std::string()),
                            .expression = condition.value("expression", std::string())};
    if (auto program = cel::compile(compiled.expression, env)) compiled.program = std::move(*program);
    else compiled.error = "compilation failed: " + program.error().message;
    out.push_back(std::move(compiled));
  }
  return out;
}

cel::MapActivation request_activation(const AdmissionRequest& request, const nlohmann::json& fields,
                                      const auth::Authorizer* authorizer) {
  static const nlohmann::json k_none;
  cel::MapActivation activation;
  activation.bind_json("object", request.object.is_object() ? request.object : k_none);
  activation.bind_json("oldObject", request.old != nullptr ? *request.old : k_none);
  activation.bind_json("request", fields);
  const cel::AuthzCheck request_resource{.resource_request = true,
                                         .group = request.info.group,
                                         .resource = request.info.plural,
                                         .subresource = std::string(request.subresource),
                                         .namespace_ = request.namespace_,
                                         .name = fields.value("name", std::string())};
  activation.bind("authorizer",
                  cel::authorizer_value(std::make_shared<RequesterAuthz>(
                                            authorizer, auth::user_info_from_json(requester(request))),
                                        request_resource));
  return activation;
}

MatchResult evaluate_match_conditions(const std::vector<MatchCondition>& conditions, const AdmissionRequest& request,
                                      const auth::Authorizer* authorizer) {
  const nlohmann::json fields = request_fields(request);
  return evaluate_match_conditions(conditions, request_activation(request, fields, authorizer));
}

MatchResult evaluate_match_conditions(const std::vector<MatchCondition>& conditions,
                                      const cel::Activation& activation) {
  std::vector<std::string> errors;
  std::uint64_t remaining = k_budget;
  for (const auto& condition : conditions) {
    if (!condition.program) {
      errors.push_back("compilation error: " + condition.error);
      continue;
    }
    auto result = condition.program->evaluate(activation, std::min(k_per_call_limit, remaining));
    if (!result) {
      errors.push_back("expression '" + condition.expression + "' resulted in error: " + result.error().message);
      continue;
    }
    remaining -= std::min(remaining, result->cost);
    const auto value = result->value.to_json();
    if (result->value.kind() != cel::Value::Kind::boolean || !value) {
      errors.push_back("expression '" + condition.expression + "' resulted in error: expected a bool, got " +
                       result->value.type_name());
      continue;
    }
    if (!value->get<bool>()) return {.matches = false};
  }
  if (errors.empty()) return {};
  if (errors.size() == 1) return {.matches = false, .error = errors[0]};
  std::string text;  // Go's aggregate error: several in brackets
  for (const auto& error : errors) text += (text.empty() ? "[" : ", ") + error;
  return {.matches = false, .error = text + "]"};
}

nlohmann::json request_fields(const AdmissionRequest& request) {
  const api::ResourceInfo& requested = request.requested != nullptr ? *request.requested : request.info;
  const nlohmann::json gvk = kind_fields(request, request.info);
  const nlohmann::json gvr = resource_fields(request.info);
  nlohmann::json body = {{"kind", gvk},
                         {"resource", gvr},
                         {"requestKind", &requested == &request.info ? gvk : kind_fields(request, requested)},
                         {"requestResource", resource_fields(requested)},
                         {"operation", request.operation},
                         {"userInfo", requester(request)},
                         {"dryRun", request.dry_run},
                         {"options", operation_options(request)}};
  if (!request.subresource.empty()) {
    body["subResource"] = request.subresource;
    body["requestSubResource"] = request.subresource;
  }
  if (!request.name.empty()) body["name"] = request.name;
  else if (request.object.is_object()) {
    if (auto name = request.object.value("metadata", nlohmann::json::object()).value("name", std::string()); !name.empty())
      body["name"] = name;
  }
  if (!request.namespace_.empty()) body["namespace"] = request.namespace_;
  return body;
}

}  // namespace kw::admission
