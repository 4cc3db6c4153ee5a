// Authorization: the modes, their union, system:masters, and ABAC decisions as kube makes them.
#include <doctest/doctest.h>

#include "auth_test_support.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::auth::test {

namespace {

constexpr const char* k_policy = R"(# kube-apiserver ABAC policies, one per line
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "kubelet", "namespace": "*", "resource": "pods", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "kubelet", "namespace": "*", "resource": "events"}}

{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "projectCaribou", "resource": "pods", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "readonly": true, "nonResourcePath": "*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "devs", "nonResourcePath": "/logs/*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "*", "apiGroup": "apps", "namespace": "shared", "resource": "deployments"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:unauthenticated", "readonly": true, "nonResourcePath": "/healthz"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "nodeadmin", "namespace": "", "resource": "nodes", "apiGroup": ""}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "ops", "group": "oncall", "namespace": "*", "resource": "*", "apiGroup": "*"}}
  {"user": "legacy", "readonly": true}
)";

UserInfo user(std::string name, std::vector<std::string> groups = {"system:authenticated"}) {
  return UserInfo{.name = std::move(name), .groups = std::move(groups), .uid = {}, .extra = {}};
}

UserInfo anonymous() { return user("system:anonymous", {"system:unauthenticated"}); }

Attributes res(UserInfo who, std::string verb, std::string ns, std::string group, std::string resource) {
  return resource_attributes(std::move(who), std::move(verb), std::move(ns), std::move(group), std::move(resource), "",
                             "", "/");
}

Attributes path(UserInfo who, std::string method, std::string url) {
  return non_resource_attributes(std::move(who), method, std::move(url));
}

struct Case {
  std::string what;
  Attributes attributes;
  bool allowed;
};

Authorizer load_ok(const std::string& mode, const std::string& file) {
  auto loaded = Authorizer::load({.mode = mode, .policy_file = file, .rbac = nullptr});
  REQUIRE_MESSAGE(loaded, (loaded ? "" : loaded.error().message));
  return std::move(*loaded);
}

std::string load_error(const std::string& mode, const std::string& file) {
  auto loaded = Authorizer::load({.mode = mode, .policy_file = file, .rbac = nullptr});
  REQUIRE_FALSE(loaded);
  return loaded.error().message;
}

}  // namespace

TEST_CASE("abac: decisions table") {
  TempDir tmp;
  write_text(tmp.file("policy.jsonl"), k_policy);
  const Authorizer authz = load_ok("ABAC", tmp.file("policy.jsonl"));

  const std::vector<Case> cases = {
      {"alice: any resource, any group, any namespace", res(user("alice"), "create", "default", "", "pods"), true},
      {"alice: apps in kube-system", res(user("alice"), "delete", "kube-system", "apps", "deployments"), true},
      {"alice: cluster-scoped", res(user("alice"), "create", "", "", "namespaces"), true},
      {"alice: read a path via the user * readonly rule", path(user("alice"), "GET", "/version"), true},
      {"alice: write a path: no rule", path(user("alice"), "POST", "/version"), false},
      {"kubelet: list pods", res(user("kubelet"), "list", "ns1", "", "pods"), true},
      {"kubelet: watch pods", res(user("kubelet"), "watch", "ns1", "", "pods"), true},
      {"kubelet: create pods (readonly rule)", res(user("kubelet"), "create", "ns1", "", "pods"), false},
      {"kubelet: pods of another API group", res(user("kubelet"), "get", "ns1", "metrics.k8s.io", "pods"), false},
      {"kubelet: write events", res(user("kubelet"), "create", "ns1", "", "events"), true},
      {"kubelet: secrets", res(user("kubelet"), "get", "ns1", "", "secrets"), false},
      {"bob: list pods in projectCaribou", res(user("bob"), "list", "projectCaribou", "", "pods"), true},
      {"bob: get pods in projectCaribou", res(user("bob"), "get", "projectCaribou", "", "pods"), true},
      {"bob: pods in default", res(user("bob"), "list", "default", "", "pods"), false},
      {"bob: delete pods in projectCaribou", res(user("bob"), "delete", "projectCaribou", "", "pods"), false},
      {"bob: pods across namespaces", res(user("bob"), "list", "", "", "pods"), false},
      {"devs: write under /logs/", path(user("carol", {"devs", "system:authenticated"}), "POST", "/logs/kube.log"),
       true},
      {"devs: deeper under /logs/", path(user("carol", {"devs"}), "PUT", "/logs/a/b"), true},
      {"devs: /logs itself is not under /logs/", path(user("carol", {"devs"}), "POST", "/logs"), false},
      {"devs: /logsx", path(user("carol", {"devs"}), "POST", "/logsx"), false},
      {"devs: a path rule never matches a resource", res(user("carol", {"devs"}), "get", "logs", "", "logs"), false},
      {"group *: any authenticated user", res(user("dave"), "create", "shared", "apps", "deployments"), true},
      {"group *: not another namespace", res(user("dave"), "create", "other", "apps", "deployments"), false},
      {"group *: not another API group", res(user("dave"), "create", "shared", "extensions", "deployments"), false},
      {"group *: anonymous is not authenticated", res(anonymous(), "create", "shared", "apps", "deployments"), false},
      {"user *: without system:authenticated", path(user("eve", {}), "GET", "/version"), false},
      {"anonymous: get /healthz", path(anonymous(), "GET", "/healthz"), true},
      {"anonymous: post /healthz", path(anonymous(), "POST", "/healthz"), false},
      {"anonymous: /healthz/etcd is not /healthz", path(anonymous(), "GET", "/healthz/etcd"), false},
      {"anonymous: get /version", path(anonymous(), "GET", "/version"), false},
      {"anonymous: resources", res(anonymous(), "get", "default", "", "pods"), false},
      {"nodeadmin: cluster-scoped nodes", res(user("nodeadmin"), "delete", "", "", "nodes"), true},
      {"nodeadmin: namespace \"\" means cluster scope only", res(user("nodeadmin"), "list", "default", "", "nodes"),
       false},
      {"user and group: both must match", res(user("ops", {"oncall"}), "delete", "x", "", "pods"), true},
      {"user and group: user alone", res(user("ops", {"devs"}), "delete", "x", "", "pods"), false},
      {"user and group: group alone", res(user("someone", {"oncall"}), "delete", "x", "", "pods"), false},
      {"v0 policy: reads any resource", res(user("legacy"), "get", "x", "apps", "deployments"), true},
      {"v0 policy: reads any path", path(user("legacy", {}), "GET", "/metrics"), true},
      {"v0 policy: readonly", res(user("legacy"), "update", "x", "", "pods"), false},
      {"unknown user", res(user("mallory"), "get", "default", "", "pods"), false},
      {"system:masters: always", res(user("root", {"system:masters"}), "delete", "kube-system", "", "secrets"), true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const Decision decision = authz.authorize(c.attributes);
    CHECK(decision.allowed == c.allowed);
    if (!decision.allowed) CHECK(decision.reason == "no ABAC policy matched");
  }
}

TEST_CASE("authorizer: modes and their union") {
  const Attributes pods = res(user("bob"), "list", "default", "", "pods");
  const Attributes masters = res(user("root", {"system:masters"}), "list", "default", "", "pods");
  CHECK(load_ok("AlwaysAllow", "").authorize(pods).allowed);
  const Decision denied = load_ok("AlwaysDeny", "").authorize(pods);
  CHECK_FALSE(denied.allowed);
  CHECK(denied.reason == "Everything is forbidden.");
  CHECK(load_ok("AlwaysDeny", "").authorize(masters).allowed);
  // AlwaysDeny has no opinion: a later mode may still allow.
  CHECK(load_ok("AlwaysDeny,AlwaysAllow", "").authorize(pods).allowed);
  TempDir tmp;
  write_text(tmp.file("policy.jsonl"), k_policy);
  const Authorizer both = load_ok("ABAC, AlwaysDeny", tmp.file("policy.jsonl"));
  CHECK(both.authorize(res(user("alice"), "get", "x", "", "pods")).allowed);
  const Decision neither = both.authorize(pods);
  CHECK_FALSE(neither.allowed);
  CHECK(neither.reason == "no ABAC policy matched\nEverything is forbidden.");
}

TEST_CASE("authorizer: attribute helpers") {
  const Attributes a = non_resource_attributes(user("x"), "GET", "/healthz");
  CHECK(a.verb == "get");
  CHECK(a.read_only);
  CHECK_FALSE(a.resource_request);
  CHECK_FALSE(non_resource_attributes(user("x"), "HEAD", "/").read_only);
  const Attributes r =
      resource_attributes(user("x"), "watch", "ns", "apps", "deployments", "status", "web", "/apis/apps/v1");
  CHECK(r.read_only);
  CHECK(r.resource_request);
  CHECK(r.subresource == "status");
  CHECK_FALSE(resource_attributes(user("x"), "patch", "", "", "nodes", "", "n1", "/").read_only);
}

TEST_CASE("authorizer: load errors name the file and line") {
  TempDir tmp;
  const std::string file = tmp.file("policy.jsonl");
  const std::string good =
      R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "a", "namespace": "*", "resource": "*"}})";
  auto error_for = [&](const std::string& bad_line) {
    write_text(file, "# comment\n" + good + "\n\n" + bad_line + "\n");
    return load_error("ABAC", file);
  };
  CHECK(error_for("{not json").starts_with("policy file " + file + ", line 4: not valid JSON"));
  CHECK(error_for(R"({"apiVersion": "abac.authorization.kubernetes.io/v1", "kind": "Policy", "spec": {}})")
            .find("line 4: apiVersion must be \"abac.authorization.kubernetes.io/v1beta1\"") != std::string::npos);
  CHECK(error_for(R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Rule", "spec": {}})")
            .find("line 4: kind must be \"Policy\"") != std::string::npos);
  CHECK(
      error_for(
          R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "a", "namspace": "*"}})")
          .find("line 4: unknown field \"namspace\"") != std::string::npos);
  CHECK(
      error_for(
          R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "a", "readonly": "yes"}})")
          .find("line 4: \"readonly\" must be true or false") != std::string::npos);
  CHECK(error_for(R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy"})")
            .find("line 4: \"spec\" must be an object") != std::string::npos);
  CHECK(error_for("[1,2]").find("line 4: expected a JSON object") != std::string::npos);
  CHECK(error_for(R"({"user": 7})").find("line 4: \"user\" must be a string") != std::string::npos);

  CHECK(load_error("ABAC", "").find("needs a policy file") != std::string::npos);
  CHECK(load_error("ABAC", tmp.file("missing.jsonl")).find(tmp.file("missing.jsonl")) != std::string::npos);
  CHECK(load_error("RBAC", "").find("RBAC needs the server's RBAC policy") != std::string::npos);
  CHECK(load_error("Webhook", "").find("unknown authorization mode \"Webhook\"") != std::string::npos);
  CHECK(load_error("", "").find("unknown authorization mode \"\"") != std::string::npos);
  CHECK(load_error("AlwaysAllow,AlwaysAllow", "").find("given twice") != std::string::npos);
  CHECK(load_error("AlwaysAllow", file).find("does not include ABAC") != std::string::npos);
}

}  // namespace kw::auth::test
