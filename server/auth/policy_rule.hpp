#pragma once
// rbac.authorization.k8s.io/v1 PolicyRules: what they allow, whether one set covers another,
// and how kube-apiserver prints them. The RBAC mode (rbac.hpp), rules reviews and the
// escalation check share them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::auth {

struct Attributes;

// One rbac.authorization.k8s.io/v1 PolicyRule.
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;

  static PolicyRule from_json(const nlohmann::json& rule);
  nlohmann::json to_json() const;
  bool operator==(const PolicyRule&) const = default;
};

// Every verb on every resource and path (cluster-admin's rules; what AlwaysAllow lists).
const std::vector<PolicyRule>& all_rules();

// Whether `rule` allows the request (kube's RuleAllows): verb, group, resource (with
// "*/subresource"), resource name; or verb and non-resource URL ("/prefix/*").
bool rule_allows(const Attributes& attributes, const PolicyRule& rule);
bool rules_allow(const Attributes& attributes, const std::vector<PolicyRule>& rules);

// The parts of `wanted` that no rule of `held` covers, each broken down to one group,
// resource, verb and name (kube's validation.Covers); empty when `held` covers all.
std::vector<PolicyRule> uncovered_rules(const std::vector<PolicyRule>& held, const std::vector<PolicyRule>& wanted);
// Rules with one group and one resource (and at most one name) merged by those (kube's
// CompactRules), for the escalation message.
std::vector<PolicyRule> compact_rules(std::vector<PolicyRule> rules);
// `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}` (kube's CompactString).
std::string compact_string(const PolicyRule& rule);

// The rules a user holds as one authorization mode sees them (kube's RulesFor), for
// SelfSubjectRulesReview and the escalation check.
struct RuleSet {
  std::vector<PolicyRule> rules;
  bool incomplete = false;          // the mode cannot list everything it would allow
  std::vector<std::string> errors;  // met while resolving (a binding naming a missing role)
};

// kube's utilerrors.NewAggregate(...).Error(): one message alone, else "[a, b]" (repeats
// dropped); "" for none.
std::string aggregate_errors(const std::vector<std::string>& errors);

}  // namespace kw::auth
