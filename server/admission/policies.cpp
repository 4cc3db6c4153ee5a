#include "server/admission/policies.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/api/selector.hpp"
#include "core/cel/cel.hpp"
#include "core/util/text.hpp"
#include "server/admission/equivalents.hpp"
#include "server/admission/lookup.hpp"
#include "server/admission/match_conditions.hpp"
#include "server/admission/webhook_config.hpp"
#include "server/registry/kinds/cel_envs.hpp"

namespace kw::admission {

using registry::AdmissionRequest;
using registry::ApiError;
using registry::ApiResult;
using nlohmann::json;

namespace {

constexpr std::uint64_t k_per_call_limit = 1'000'000;  // kube's PerCallLimit
constexpr std::uint64_t k_budget = 10'000'000;         // RuntimeCELCostBudget, per evaluation
constexpr std::size_t k_max_message = 5 * 1024;        // MaxEvaluatedMessageExpressionSizeBytes
constexpr std::size_t k_max_annotation_value = 10 * 1024;
constexpr const char* k_out_of_budget =
    "validation failed due to running out of cost budget, no further validation rules will be run";

// One CEL expression of a policy, compiled when the policy is read.
struct Expression {
  std::string source;
  std::optional<cel::Program> program = std::nullopt;
  std::string error = {};  // "compilation failed: ..."

  static Expression compile(std::string source, const cel::Env& env) {
    Expression out{.source = std::move(source)};
    if (auto program = cel::compile(out.source, env)) out.program = std::move(*program);
    else out.error = "compilation failed: " + program.error().message;
    return out;
  }
};

struct NamedRule {
  WebhookRule rule;
  std::vector<std::string> names;  // resourceNames; empty: every name
};

// A policy's matchConstraints or a binding's matchResources.
struct MatchResources {
  std::vector<NamedRule> include;
  std::vector<NamedRule> exclude;
  MatchPolicy policy = MatchPolicy::exact;  // matchPolicy: how both rule lists match
  api::LabelSelector namespace_selector;
  api::LabelSelector object_selector;
  std::string selector_error = {};  // a selector kw cannot parse: a configuration error
};

struct Validation {
  Expression check;
  std::string message;
  std::optional<Expression> message_expression;
  std::string reason;  // Invalid when empty
};

struct AuditAnnotation {
  std::string key;
  Expression value;
};

struct Variable {
  std::string name;
  Expression value;
};

struct Policy {
  std::string name;
  std::optional<std::string> param_api_version = std::nullopt;  // paramKind, when the policy has one
  std::string param_kind = {};
  MatchResources constraints = {};
  bool fail_closed = true;  // failurePolicy Fail (the default) or Ignore
  std::vector<MatchCondition> match_conditions = {};
  std::vector<Variable> variables = {};
  std::vector<Validation> validations = {};
  std::vector<AuditAnnotation> audit_annotations = {};
};

struct ParamRef {
  std::string name;
  std::string namespace_;
  std::optional<api::LabelSelector> selector;
  std::string selector_error;
  bool deny_when_missing = false;  // parameterNotFoundAction Deny
};

struct Binding {
  std::string name;
  std::optional<ParamRef> param_ref = std::nullopt;
  std::optional<MatchResources> match = std::nullopt;  // none: the policy's constraints alone
  std::vector<std::string> actions = {};               // validationActions: Deny, Warn, Audit
};

// A policy with the bindings that name it (a policy without bindings does nothing).
struct Hook {
  Policy policy;
  std::vector<Binding> bindings;
};
using Hooks = std::vector<Hook>;

std::vector<NamedRule> read_named_rules(const json& rules) {
  std::vector<NamedRule> out;
  if (!rules.is_array()) return out;
  for (const auto& rule : rules) {
    if (!rule.is_object()) continue;
    NamedRule named{.rule = read_rule(rule), .names = {}};
    for (const auto& name : api::at(rule, {"resourceNames"}))
      if (name.is_string()) named.names.push_back(name.get<std::string>());
    out.push_back(std::move(named));
  }
  return out;
}

MatchResources read_match_resources(const json& match) {
  MatchResources out;
  out.include = read_named_rules(api::at(match, {"resourceRules"}));
  out.exclude = read_named_rules(api::at(match, {"excludeResourceRules"}));
  out.policy = read_match_policy(match);
  for (auto [key, selector] : {std::pair{"namespaceSelector", &out.namespace_selector},
                               std::pair{"objectSelector", &out.object_selector}}) {
    const auto& value = api::at(match, {key});
    if (!value.is_object()) continue;
    if (auto parsed = api::LabelSelector::from_label_selector_json(value)) *selector = std::move(*parsed);
    else out.selector_error = std::string(key) + ": " + parsed.error().message;
  }
  return out;
}

Policy read_policy(const json& object) {
  const auto& spec = api::at(object, {"spec"});
  Policy policy{.name = api::str(api::at(object, {"metadata", "name"}))};
  if (const auto& kind = api::at(spec, {"paramKind"}); kind.is_object()) {
    policy.param_api_version = api::text(kind, "apiVersion");
    policy.param_kind = api::text(kind, "kind");
  }
  policy.constraints = read_match_resources(api::at(spec, {"matchConstraints"}));
  policy.fail_closed = api::text(spec, "failurePolicy") != "Ignore";
  const bool params = policy.param_api_version.has_value();
  const cel::Env env = kinds::policy_env(params, true);
  policy.match_conditions = compile_match_conditions(api::at(spec, {"matchConditions"}), env);
  for (const auto& variable : api::at(spec, {"variables"}))
    policy.variables.push_back(
        {.name = api::text(variable, "name"), .value = Expression::compile(api::text(variable, "expression"), env)});
  const cel::Env message_env = kinds::policy_env(params, false);
  for (const auto& validation : api::at(spec, {"validations"})) {
    Validation compiled{.check = Expression::compile(api::text(validation, "expression"), env),
                        .message = api::text(validation, "message"),
                        .message_expression = std::nullopt,
                        .reason = api::text(validation, "reason")};
    if (auto source = api::text(validation, "messageExpression"); !util::trim(source).empty())
      compiled.message_expression = Expression::compile(std::move(source), message_env);
    policy.validations.push_back(std::move(compiled));
  }
  for (const auto& annotation : api::at(spec, {"auditAnnotations"}))
    policy.audit_annotations.push_back(
        {.key = api::text(annotation, "key"),
         .value = Expression::compile(std::string(util::trim(api::text(annotation, "valueExpression"))), env)});
  return policy;
}

Binding read_binding(const json& object) {
  const auto& spec = api::at(object, {"spec"});
  Binding binding{.name = api::str(api::at(object, {"metadata", "name"}))};
  if (const auto& ref = api::at(spec, {"paramRef"}); ref.is_object()) {
    ParamRef param{.name = api::text(ref, "name"),
                   .namespace_ = api::text(ref, "namespace"),
                   .selector = std::nullopt,
                   .selector_error = {},
                   .deny_when_missing = api::text(ref, "parameterNotFoundAction") == "Deny"};
    if (const auto& selector = api::at(ref, {"selector"}); selector.is_object()) {
      if (auto parsed = api::LabelSelector::from_label_selector_json(selector)) param.selector = std::move(*parsed);
      else param.selector_error = parsed.error().message;
    }
    binding.param_ref = std::move(param);
  }
  if (const auto& match = api::at(spec, {"matchResources"}); match.is_object())
    binding.match = read_match_resources(match);
  for (const auto& action : api::at(spec, {"validationActions"}))
    if (action.is_string()) binding.actions.push_back(action.get<std::string>());
  return binding;
}

// The resource named rules match the request as (matched_resource, resourceNames checked), or null.
const api::ResourceInfo* named_rules_match(const std::vector<NamedRule>& rules, MatchPolicy policy,
                                           const AdmissionRequest& request, EquivalentResources& equivalents) {
  auto covers = [&](std::size_t i, const AdmissionRequest& as) {
    const NamedRule& named = rules[i];
    if (!rule_matches(named.rule, as)) return false;
    if (named.names.empty()) return true;
    std::string name = request.name;
    if (name.empty() && request.object.is_object()) name = api::str(api::at(request.object, {"metadata", "name"}));
    return std::ranges::find(named.names, name) != named.names.end();
  };
  return matched_resource(rules.size(), covers, request, policy, equivalents);
}

// kube's Matcher.Matches: selectors, then excluded rules, then the rules (none: every
// resource), each under the matchPolicy. A selector error counts only for a request the rules
// select. The resource the request is matched as, or null.
ApiResult<const api::ResourceInfo*> matches(registry::Registry& registry, const MatchResources& match,
                                            const AdmissionRequest& request, EquivalentResources& equivalents) {
  auto excluded = [&] { return named_rules_match(match.exclude, match.policy, request, equivalents) != nullptr; };
  auto included = [&] {
    return match.include.empty() ? &request.info : named_rules_match(match.include, match.policy, request, equivalents);
  };
  if (!match.selector_error.empty()) {
    if (excluded() || included() == nullptr) return nullptr;
    return std::unexpected(registry::internal_error(match.selector_error));
  }
  auto in_namespace = namespace_selected(registry, match.namespace_selector, request);
  if (in_namespace && !*in_namespace) return nullptr;
  if (!object_selected(match.object_selector, request)) return nullptr;
  if (excluded()) return nullptr;
  const api::ResourceInfo* as = included();
  if (as == nullptr) return nullptr;
  if (!in_namespace) return std::unexpected(in_namespace.error());
  return as;
}

// A failed validation (or, under failurePolicy Fail, one that could not be evaluated).
struct Failure {
  std::size_t index = 0;  // the validation's place, for the audit annotation
  std::string message;
  std::string reason = {};  // Invalid when empty
};

struct Published {
  std::string key;
  std::string value;
};

// What one policy's expressions came to for one param.
struct Outcome {
  std::vector<Failure> failures;
  std::vector<Published> annotations;
  std::vector<std::string> annotation_errors;  // under failurePolicy Fail: refusals
};

// The validations' budget: kube's, with variables charged as they are computed.
class Budget {
 public:
  // Charges a cost; false once the budget is spent.
  bool charge(std::uint64_t cost) {
    if (cost > m_remaining) {
      m_remaining = 0;
      return false;
    }
    m_remaining -= cost;
    return true;
  }
  std::uint64_t remaining() const { return m_remaining; }

 private:
  std::uint64_t m_remaining = k_budget;
};

struct Evaluated {
  std::optional<cel::Value> value;  // none: `error` says why
  std::string error;
  bool out_of_budget = false;
};

Evaluated evaluate(const Expression& expression, const cel::Activation& activation, Budget& budget,
                   std::uint64_t& variables_cost) {
  if (!expression.program) return {.value = std::nullopt, .error = "compilation error: " + expression.error};
  auto result = expression.program->evaluate(activation, k_per_call_limit);
  const std::uint64_t composed = std::exchange(variables_cost, 0);
  if (!budget.charge(composed + (result ? result->cost : 0)))
    return {.value = std::nullopt, .error = k_out_of_budget, .out_of_budget = true};
  if (!result)
    return {.value = std::nullopt,
            .error = "expression '" + expression.source + "' resulted in error: " + result.error().message};
  return {.value = std::move(result->value), .error = {}};
}

// kube's validator: the message of a failed validation.
std::string failure_message(const Validation& validation, const cel::Activation& activation, Budget& budget,
                            std::uint64_t& variables_cost) {
  if (validation.message_expression) {
    const Evaluated message = evaluate(*validation.message_expression, activation, budget, variables_cost);
    if (message.value && message.value->kind() == cel::Value::Kind::string) {
      std::string text(util::trim(message.value->as_string()));
      if (text.size() <= k_max_message && text.find('\n') == std::string::npos && !text.empty()) return text;
    }
  }
  if (auto message = util::trim(validation.message); !message.empty()) return std::string(message);
  return "failed expression: " + std::string(util::trim(validation.check.source));
}

// namespaceObject: the request's namespace as kube exposes it (metadata without managedFields
// and ownerReferences, spec, status); null for cluster-scoped requests and namespaces.
ApiResult<json> namespace_object(registry::Registry& registry, const AdmissionRequest& request) {
  const bool is_namespace = request.info.group.empty() && request.info.kind == "Namespace";
  if (request.namespace_.empty() || is_namespace) return json(nullptr);
  auto found = cached_object(registry, "", "v1", "namespaces", "", request.namespace_);
  if (!found) return std::unexpected(found.error());
  if (!*found) return std::unexpected(registry::not_found("", "namespaces", request.namespace_));
  json out = json::object();
  const auto& meta = api::at(**found, {"metadata"});
  json kept = json::object();
  for (const char* key : {"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
                          "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
                          "annotations", "finalizers"})
    if (auto it = meta.find(key); it != meta.end()) kept[key] = *it;
  out["metadata"] = std::move(kept);
  for (const char* key : {"spec", "status"})
    if (auto it = (*found)->find(key); it != (*found)->end()) out[key] = *it;
  return out;
}

// Runs one policy's expressions for one param (null: none), as kube's validator does.
Outcome validate(const Policy& policy, const AdmissionRequest& request, const json& fields, const json& params,
                 const json& namespace_object, const auth::Authorizer* authorizer) {
  Outcome outcome;
  cel::MapActivation activation = request_activation(request, fields, authorizer);
  activation.bind_json("params", params);
  activation.bind_json("namespaceObject", namespace_object);
  std::uint64_t variables_cost = 0;
  auto variables = std::make_shared<cel::LazyFields>();
  for (const auto& variable : policy.variables) {
    variables->add(variable.name, [&variable, &activation, &variables_cost]() -> cel::Value {
      if (!variable.value.program) return cel::Value::error(variable.value.error);
      auto result = variable.value.program->evaluate(activation, k_per_call_limit);
      if (!result) return cel::Value::error(result.error().message);
      variables_cost += result->cost;
      return std::move(result->value);
    });
  }
  activation.bind("variables", cel::Value(std::shared_ptr<const cel::Object>(variables)));

  auto error_failure = [&](std::string message) {
    if (policy.fail_closed) outcome.failures.push_back({.index = 0, .message = std::move(message)});
  };
  if (!policy.match_conditions.empty()) {
    const MatchResult matched = evaluate_match_conditions(policy.match_conditions, activation);
    if (!matched.error.empty()) {
      error_failure(matched.error);
      return outcome;
    }
    if (!matched.matches) return outcome;
  }
  Budget budget;
  for (std::size_t i = 0; i < policy.validations.size(); ++i) {
    const auto& validation = policy.validations[i];
    const Evaluated result = evaluate(validation.check, activation, budget, variables_cost);
    if (result.out_of_budget) {
      outcome.failures.clear();
      error_failure(result.error);
      return outcome;
    }
    if (!result.value) {
      if (policy.fail_closed) outcome.failures.push_back({.index = i, .message = result.error});
      continue;
    }
    if (result.value->kind() == cel::Value::Kind::boolean && result.value->as_bool()) continue;
    outcome.failures.push_back({.index = i,
                                .message = failure_message(validation, activation, budget, variables_cost),
                                .reason = validation.reason});
  }
  Budget annotation_budget;
  for (const auto& annotation : policy.audit_annotations) {
    const Evaluated result = evaluate(annotation.value, activation, annotation_budget, variables_cost);
    std::string error = result.error;
    if (result.value) {
      if (result.value->kind() == cel::Value::Kind::string) {
        std::string value(util::trim(result.value->as_string()));
        if (value.size() > k_max_annotation_value) value.resize(k_max_annotation_value);
        if (!value.empty()) outcome.annotations.push_back({.key = annotation.key, .value = std::move(value)});
        continue;
      }
      if (result.value->kind() == cel::Value::Kind::null) continue;
      error = "valueExpression '" + annotation.value.source + "' resulted in unsupported return type: " +
              std::string(result.value->type_name()) + ". Return type must be either string or null.";
    }
    if (policy.fail_closed) outcome.annotation_errors.push_back(std::move(error));
  }
  return outcome;
}

// kube's CollectParams: the param objects a binding's paramRef selects; {null} when the policy
// or the binding uses none; an error (a configuration error) when they cannot be had.
ApiResult<std::vector<json>> collect_params(registry::Registry& registry, const api::ResourceInfo* param_info,
                                            const Binding& binding, const AdmissionRequest& request) {
  auto fail_with = [](std::string why) { return std::unexpected(ApiError{.code = 500, .reason = {}, .message = std::move(why)}); };
  if (param_info == nullptr || !binding.param_ref) return std::vector<json>{json(nullptr)};
  const ParamRef& ref = *binding.param_ref;
  std::string namespace_;
  if (param_info->namespaced) {
    namespace_ = !ref.namespace_.empty() ? ref.namespace_ : request.namespace_;
    if (namespace_.empty())
      return fail_with("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");
  } else if (!ref.namespace_.empty()) {
    return fail_with("paramRef.namespace must not be provided for a cluster-scoped `paramKind`");
  }
  std::vector<json> params;
  if (!ref.name.empty()) {
    auto found = cached_object(registry, param_info->group, param_info->version, param_info->plural, namespace_, ref.name);
    if (!found) return std::unexpected(found.error());
    if (*found) params.push_back(std::move(**found));
  } else if (!ref.selector_error.empty()) {
    return fail_with(ref.selector_error);
  } else if (ref.selector) {
    auto listed = cached(registry, param_info->group, param_info->version, param_info->plural, namespace_);
    if (!listed) return std::unexpected(listed.error());
    for (const auto& object : *listed)
      if (ref.selector->matches(api::labels_of(object->object()))) params.push_back(object->object());
  } else {
    return fail_with("one of name or selector must be provided");
  }
  if (params.empty() && ref.deny_when_missing)
    return fail_with("no params found for policy binding with `Deny` parameterNotFoundAction");
  return params;
}

// A refusal on record, in the order kube records them; the first answers the request.
struct Denial {
  const Hook* hook;
  const Binding* binding;  // null: the policy itself is misconfigured
  std::string message;
  std::string reason;
};

ApiError denial_error(const AdmissionRequest& request, const Denial& denial) {
  const std::string message =
      denial.binding != nullptr
          ? "ValidatingAdmissionPolicy '" + denial.hook->policy.name + "' with binding '" + denial.binding->name +
                "' denied request: " + denial.message
          : "ValidatingAdmissionPolicy '" + denial.hook->policy.name + "' denied request: " + denial.message;
  ApiError error = registry::admission_forbidden(request, message);
  error.reason = denial.reason.empty() ? "Invalid" : denial.reason;
  error.code = error.reason == "Forbidden"               ? 403
               : error.reason == "Unauthorized"          ? 401
               : error.reason == "RequestEntityTooLarge" ? 413
                                                         : 422;
  error.details["causes"] = json::array({{{"message", message}}});
  return error;
}


// Whether the request is about the admission policies themselves, which no policy sees.
bool excluded(const AdmissionRequest& request) {
  static constexpr std::string_view k_plurals[] = {"validatingadmissionpolicies", "validatingadmissionpolicybindings",
                                                   "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"};
  return request.info.group == "admissionregistration.k8s.io" &&
         std::ranges::find(k_plurals, request.info.plural) != std::end(k_plurals);
}

}  // namespace

struct Policies::State {
  State(registry::Registry& r, const auth::Authorizer* a) : registry(r), authorizer(a) {}

  registry::Registry& registry;
  const auth::Authorizer* authorizer;
  std::mutex mutex;
  ObjectsByName policies;  // the stored policies and bindings by name
  ObjectsByName bindings;
  std::shared_ptr<const Hooks> hooks = std::make_shared<Hooks>();

  // Compiles the bound policies again, in name order, each with its bindings in name order.
  void rebuild() {  // under `mutex`
    std::map<std::string, std::vector<Binding>> bound;
    for (const auto& [name, binding] : bindings)
      bound[api::str(api::at(binding, {"spec", "policyName"}))].push_back(read_binding(binding));
    auto all = std::make_shared<Hooks>();
    for (auto& [policy_name, policy_bindings] : bound) {
      auto policy = policies.find(policy_name);
      if (policy == policies.end()) continue;  // bindings of a policy that is not there do nothing
      all->push_back({.policy = read_policy(policy->second), .bindings = std::move(policy_bindings)});
    }
    hooks = std::move(all);
  }

  std::shared_ptr<const Hooks> snapshot() {
    std::lock_guard lock(mutex);
    return hooks;
  }
};

namespace {

ApiResult<void> run(registry::Registry& registry, const auth::Authorizer* authorizer, const Hooks& hooks,
                    const AdmissionRequest& request) {
  if (hooks.empty() || excluded(request)) return {};
  std::vector<Denial> denials;
  auto configuration_error = [&](const Hook& hook, const Binding* binding, const std::string& why) {
    if (!hook.policy.fail_closed) return;
    denials.push_back({.hook = &hook,
                       .binding = binding,
                       .message = (binding != nullptr ? "failed to configure binding: " : "failed to configure policy: ") + why,
                       .reason = {}});
  };
  std::optional<json> namespace_json;
  const auto table = registry.resources();
  EquivalentResources equivalents(registry, request);
  std::map<const api::ResourceInfo*, std::unique_ptr<SeenAs>> converted;  // once per equivalent resource
  for (const auto& hook : hooks) {
    const Policy& policy = hook.policy;
    auto matched = matches(registry, policy.constraints, request, equivalents);
    if (!matched) {
      configuration_error(hook, nullptr, matched.error().message);
      continue;
    }
    if (*matched == nullptr) continue;
    // The expressions see the request as the resource the constraints matched.
    auto seen_or_error = as_matched(registry, request, **matched, converted[*matched]);
    if (!seen_or_error) return std::unexpected(seen_or_error.error());
    const AdmissionRequest* seen = *seen_or_error;
    std::optional<json> fields;
    const api::ResourceInfo* param_info = nullptr;
    if (policy.param_api_version) {
      param_info = table->find_kind(*policy.param_api_version, policy.param_kind);
      if (param_info == nullptr) {
        configuration_error(hook, nullptr,
                            "failed to find resource referenced by paramKind: '" +
                                api::go_group_version_kind(*policy.param_api_version, policy.param_kind) + "'");
        continue;
      }
    }
    // Annotation values per key across the bindings, without repeats, in order.
    std::vector<std::pair<std::string, std::vector<std::string>>> annotations;
    for (const auto& binding : hook.bindings) {
      if (binding.match) {
        auto binding_matched = matches(registry, *binding.match, request, equivalents);
        if (!binding_matched) {
          configuration_error(hook, &binding, binding_matched.error().message);
          continue;
        }
        if (*binding_matched == nullptr) continue;
      }
      auto params = collect_params(registry, param_info, binding, request);
      if (!params) {
        configuration_error(hook, &binding, params.error().message);
        continue;
      }
      if (params->empty()) continue;
      if (!fields) fields = request_fields(*seen);
      if (!namespace_json) {
        auto ns = namespace_object(registry, request);
        if (!ns) return std::unexpected(ns.error());
        namespace_json = std::move(*ns);
      }
      for (const auto& param : *params) {
        Outcome outcome = validate(policy, *seen, *fields, param, *namespace_json, authorizer);
        for (auto& failure : outcome.failures) {
          for (const auto& action : binding.actions) {
            if (action == "Deny") {
              denials.push_back({.hook = &hook, .binding = &binding, .message = failure.message, .reason = failure.reason});
            } else if (action == "Warn") {
              if (request.warnings != nullptr)
                request.warnings->push_back("Validation failed for ValidatingAdmissionPolicy '" + policy.name +
                                            "' with binding '" + binding.name + "': " + failure.message);
            } else if (action == "Audit") {
              const json value = json::array({{{"message", failure.message},
                                               {"policy", policy.name},
                                               {"binding", binding.name},
                                               {"expressionIndex", failure.index},
                                               {"validationActions", binding.actions}}});
              request.add_audit_annotation("validation.policy.admission.k8s.io/validation_failure", value.dump());
            }
          }
        }
        for (auto& published : outcome.annotations) {
          auto entry = std::ranges::find(annotations, published.key, &std::pair<std::string, std::vector<std::string>>::first);
          if (entry == annotations.end()) entry = annotations.insert(annotations.end(), {published.key, {}});
          if (std::ranges::find(entry->second, published.value) == entry->second.end())
            entry->second.push_back(std::move(published.value));
        }
        for (auto& error : outcome.annotation_errors)
          denials.push_back({.hook = &hook, .binding = &binding, .message = std::move(error), .reason = {}});
      }
    }
    for (const auto& [key, values] : annotations) request.add_audit_annotation(policy.name + "/" + key, api::print::join(values, ", "));
  }
  if (denials.empty()) return {};
  return std::unexpected(denial_error(request, denials.front()));
}

}  // namespace

Result<std::unique_ptr<Policies>> Policies::start(registry::Registry& registry, const auth::Authorizer* authorizer) {
  auto state = std::make_shared<State>(registry, authorizer);
  std::unique_ptr<Policies> policies(new Policies(state));
  for (const bool bindings : {false, true}) {
    const char* plural = bindings ? "validatingadmissionpolicybindings" : "validatingadmissionpolicies";
    auto informer = follow_by_name(registry, "admissionregistration.k8s.io", "v1", plural,
                                   [state, bindings](const ObjectsByName& all) {
                                     std::lock_guard lock(state->mutex);
                                     (bindings ? state->bindings : state->policies) = all;
                                     state->rebuild();
                                   });
    if (!informer) return fail(informer.error().message);
    policies->m_informers.push_back(std::move(*informer));
  }
  return policies;
}

Policies::~Policies() = default;

registry::AdmissionCheck Policies::check() const {
  return [state = m_state](const AdmissionRequest& request) {
    const auto hooks = state->snapshot();
    return run(state->registry, state->authorizer, *hooks, request);
  };
}

}  // namespace kw::admission
