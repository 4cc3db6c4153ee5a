// RBAC rules and the policy the RBAC authorizer reads: matching, coverage, kube's wording of
// reasons and errors, and the subject index kept current as objects change.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/util/text.hpp"
#include "server/auth/rbac.hpp"

namespace kw::auth::test {

namespace {

using nlohmann::json;
using Verdict = AuthorizerMode::Verdict;

UserInfo user(std::string name, std::vector<std::string> groups = {"system:authenticated"}) {
  return UserInfo{.name = std::move(name), .groups = std::move(groups), .uid = {}, .extra = {}};
}

Attributes request(const UserInfo& who, std::string verb, std::string ns, std::string group, std::string resource,
                   std::string subresource = "", std::string name = "") {
  return resource_attributes(who, std::move(verb), std::move(ns), std::move(group), std::move(resource),
                             std::move(subresource), std::move(name), "");
}

PolicyRule rule(const char* text) { return PolicyRule::from_json(json::parse(text)); }

json role(const std::string& ns, const std::string& name, json rules) {
  json object = {{"metadata", {{"name", name}}}, {"rules", std::move(rules)}};
  if (!ns.empty()) object["metadata"]["namespace"] = ns;
  return object;
}

json binding(const std::string& ns, const std::string& name, const std::string& role_kind, const std::string& role_name,
             json subjects) {
  json object = {{"metadata", {{"name", name}}},
                 {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role_name}}},
                 {"subjects", std::move(subjects)}};
  if (!ns.empty()) object["metadata"]["namespace"] = ns;
  return object;
}

json subject(const std::string& kind, const std::string& name, const std::string& ns = "") {
  json out = {{"kind", kind}, {"name", name}};
  if (!ns.empty()) out["namespace"] = ns;
  return out;
}

}  // namespace

TEST_CASE("rbac rules: verbs, groups, resources, subresources, names and URLs") {
  const auto alice = user("alice");
  const auto pods = rule(R"({"verbs":["get","list"],"apiGroups":[""],"resources":["pods","pods/log"]})");
  CHECK(rule_allows(request(alice, "get", "ns", "", "pods"), pods));
  CHECK(rule_allows(request(alice, "get", "ns", "", "pods", "log"), pods));
  CHECK_FALSE(rule_allows(request(alice, "get", "ns", "", "pods", "status"), pods));
  CHECK_FALSE(rule_allows(request(alice, "delete", "ns", "", "pods"), pods));
  CHECK_FALSE(rule_allows(request(alice, "get", "ns", "apps", "pods"), pods));

  const auto any_status = rule(R"({"verbs":["*"],"apiGroups":["*"],"resources":["*/status"]})");
  CHECK(rule_allows(request(alice, "patch", "", "apps", "deployments", "status"), any_status));
  CHECK_FALSE(rule_allows(request(alice, "patch", "", "apps", "deployments"), any_status));

  const auto named = rule(R"({"verbs":["get"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["settings"]})");
  CHECK(rule_allows(request(alice, "get", "ns", "", "configmaps", "", "settings"), named));
  CHECK_FALSE(rule_allows(request(alice, "get", "ns", "", "configmaps", "", "other"), named));
  CHECK_FALSE(rule_allows(request(alice, "get", "ns", "", "configmaps"), named));

  const auto urls = rule(R"({"verbs":["get"],"nonResourceURLs":["/metrics","/logs/*"]})");
  CHECK(rule_allows(non_resource_attributes(alice, "GET", "/metrics"), urls));
  CHECK(rule_allows(non_resource_attributes(alice, "GET", "/logs/kube.log"), urls));
  CHECK_FALSE(rule_allows(non_resource_attributes(alice, "GET", "/metricsx"), urls));
  CHECK_FALSE(rule_allows(non_resource_attributes(alice, "POST", "/metrics"), urls));
  // A resource rule never allows a path and a URL rule never a resource.
  CHECK_FALSE(rule_allows(request(alice, "get", "", "", "metrics"), urls));
  CHECK_FALSE(rule_allows(non_resource_attributes(alice, "GET", "/api"), pods));
}

TEST_CASE("rbac rules: coverage, compaction and kube's compact wording") {
  const std::vector<PolicyRule> held = {rule(R"({"verbs":["get","list"],"apiGroups":[""],"resources":["pods","*/status"]})"),
                                        rule(R"({"verbs":["get"],"nonResourceURLs":["/logs/*"]})")};
  CHECK(uncovered_rules(held, {rule(R"({"verbs":["get"],"apiGroups":[""],"resources":["pods/status"]})")}).empty());
  CHECK(uncovered_rules(held, {rule(R"({"verbs":["get"],"nonResourceURLs":["/logs/a"]})")}).empty());
  CHECK(uncovered_rules(held, {rule(R"({"verbs":["get"],"apiGroups":[""],"resources":["pods"],"resourceNames":["x"]})")})
            .empty());
  const auto missing = uncovered_rules(
      held, {rule(R"({"verbs":["get","delete","watch"],"apiGroups":[""],"resources":["pods","secrets"]})")});
  CHECK(missing.size() == 5);  // one per resource and verb: all but get on pods
  const auto compact = compact_rules(
      uncovered_rules(held, {rule(R"({"verbs":["delete","watch"],"apiGroups":[""],"resources":["pods"]})")}));
  REQUIRE(compact.size() == 1);
  CHECK(compact_string(compact[0]) == R"({APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]})");
  CHECK(compact_string(rule(R"({"verbs":["get"],"nonResourceURLs":["/x"]})")) == R"({NonResourceURLs:["/x"], Verbs:["get"]})");
  CHECK(aggregate_errors({}).empty());
  CHECK(aggregate_errors({"a"}) == "a");
  CHECK(aggregate_errors({"a", "b", "a"}) == "[a, b]");
  CHECK(aggregate_errors({"a", "a"}) == "a");
  CHECK(util::go_quote_list({"a", "b\"c"}) == R"(["a" "b\"c"])");
  CHECK(util::go_quote("tab\there\x01\xff") == R"("tab\there\x01\xff")");
  CHECK(util::go_quote("\xc3\xa9") == "\"\xc3\xa9\"");
}

TEST_CASE("rbac policy: bindings by user, group and service account, with kube's reasons") {
  RbacPolicy policy;
  policy.apply(RbacKind::cluster_role, role("", "reader", json::parse(R"([{"verbs":["get","list"],"apiGroups":[""],"resources":["pods"]}])")));
  policy.apply(RbacKind::role, role("team", "deployer", json::parse(R"([{"verbs":["*"],"apiGroups":["apps"],"resources":["deployments"]}])")));
  policy.apply(RbacKind::cluster_role_binding,
               binding("", "readers", "ClusterRole", "reader", json::array({subject("Group", "team-a")})));
  policy.apply(RbacKind::role_binding,
               binding("team", "deployers", "Role", "deployer",
                       json::array({subject("User", "alice"), subject("ServiceAccount", "builder")})));
  policy.apply(RbacKind::role_binding,
               binding("team", "readers-here", "ClusterRole", "reader", json::array({subject("User", "carol")})));

  std::string reason;
  CHECK(policy.authorize(request(user("bob", {"team-a", "system:authenticated"}), "list", "", "", "pods"), reason) ==
        Verdict::allow);
  CHECK(reason == R"(RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "team-a")");
  CHECK(policy.authorize(request(user("alice"), "delete", "team", "apps", "deployments", "", "web"), reason) ==
        Verdict::allow);
  CHECK(reason == R"(RBAC: allowed by RoleBinding "deployers/team" of Role "deployer" to User "alice")");
  CHECK(policy.authorize(request(user("alice"), "delete", "other", "apps", "deployments"), reason) == Verdict::no_opinion);
  CHECK(reason.empty());
  const auto builder = user("system:serviceaccount:team:builder", {"system:serviceaccounts", "system:serviceaccounts:team"});
  CHECK(policy.authorize(request(builder, "create", "team", "apps", "deployments"), reason) == Verdict::allow);
  CHECK(reason == R"(RBAC: allowed by RoleBinding "deployers/team" of Role "deployer" to ServiceAccount "builder/team")");
  // A ClusterRole bound in a namespace grants only there.
  CHECK(policy.authorize(request(user("carol"), "get", "team", "", "pods"), reason) == Verdict::allow);
  CHECK(policy.authorize(request(user("carol"), "get", "other", "", "pods"), reason) == Verdict::no_opinion);
  CHECK(policy.authorize(request(user("carol"), "list", "", "", "pods"), reason) == Verdict::no_opinion);

  // A binding naming a missing role: no opinion, with kube's error as the reason.
  policy.apply(RbacKind::role_binding, binding("team", "ghost", "ClusterRole", "missing", json::array({subject("User", "dave")})));
  policy.apply(RbacKind::role_binding, binding("team", "ghost2", "Role", "gone", json::array({subject("User", "dave")})));
  CHECK(policy.authorize(request(user("dave"), "get", "team", "", "pods"), reason) == Verdict::no_opinion);
  CHECK(reason == R"(RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found])");

  // Changes and deletions reach the index.
  policy.apply(RbacKind::cluster_role_binding, binding("", "readers", "ClusterRole", "reader", json::array({subject("User", "erin")})));
  CHECK(policy.authorize(request(user("bob", {"team-a"}), "list", "", "", "pods"), reason) == Verdict::no_opinion);
  CHECK(policy.authorize(request(user("erin"), "list", "", "", "pods"), reason) == Verdict::allow);
  policy.remove(RbacKind::cluster_role, "", "reader");
  CHECK(policy.authorize(request(user("erin"), "list", "", "", "pods"), reason) == Verdict::no_opinion);
  CHECK(reason == R"(RBAC: clusterrole.rbac.authorization.k8s.io "reader" not found)");
  policy.remove(RbacKind::cluster_role_binding, "", "readers");
  CHECK(policy.authorize(request(user("erin"), "list", "", "", "pods"), reason) == Verdict::no_opinion);
  CHECK(reason.empty());

  const auto rules = policy.rules_for(user("alice"), "team");
  REQUIRE(rules.rules.size() == 1);
  CHECK(rules.rules[0].resources == std::vector<std::string>{"deployments"});
  CHECK(policy.rules_for(user("dave"), "team").errors.size() == 2);

  policy.replace(RbacKind::role_binding, {});
  CHECK(policy.size(RbacKind::role_binding) == 0);
  CHECK(policy.authorize(request(user("alice"), "delete", "team", "apps", "deployments"), reason) == Verdict::no_opinion);
}

// The decision cost with a cluster-sized policy (10,000 RoleBindings, 1,000 ClusterRoles). Not
// a timing assertion (those live in tests/bench): it checks that the index keeps a decision
// independent of the bindings that do not name the user.
TEST_CASE("rbac policy: 10,000 bindings, decisions through the subject index") {
  RbacPolicy policy;
  for (int i = 0; i < 1000; ++i)
    policy.apply(RbacKind::cluster_role,
                 role("", "role-" + std::to_string(i),
                      json::array({{{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"r" + std::to_string(i)}}}})));
  for (int i = 0; i < 10000; ++i)
    policy.apply(RbacKind::role_binding,
                 binding("ns-" + std::to_string(i % 100), "b-" + std::to_string(i), "ClusterRole",
                         "role-" + std::to_string(i % 1000), json::array({subject("User", "u" + std::to_string(i))})));
  CHECK(policy.size(RbacKind::role_binding) == 10000);
  std::string reason;
  CHECK(policy.authorize(request(user("u4242"), "get", "ns-42", "", "r242"), reason) == Verdict::allow);
  CHECK(policy.authorize(request(user("u4242"), "get", "ns-43", "", "r242"), reason) == Verdict::no_opinion);
  CHECK(policy.authorize(request(user("u4242"), "get", "ns-42", "", "r243"), reason) == Verdict::no_opinion);
}

}  // namespace kw::auth::test
