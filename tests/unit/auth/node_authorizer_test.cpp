// The Node authorizer: which objects the graph relates to a node (pods' references, volumes
// through their claims, attachments), kept current as pods and volumes come and go, and the
// mode's answers and reasons in kube's words.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/auth/node_authorizer.hpp"

namespace kw::auth::test {

namespace {

using nlohmann::json;
using Verdict = AuthorizerMode::Verdict;

json pod(const std::string& name, const std::string& node, json spec_extra = json::object()) {
  json spec = {{"nodeName", node}, {"serviceAccountName", "builder"}, {"containers", json::array({{{"name", "c"}}})}};
  spec.update(spec_extra);
  return {{"metadata", {{"namespace", "team"}, {"name", name}, {"uid", name + "-uid"}}}, {"spec", spec}};
}

// A pod on node1 using one of each kind of reference.
json web_pod() {
  return pod("web", "node1",
             {{"imagePullSecrets", json::array({{{"name", "pull"}}})},
              {"containers", json::array({{{"name", "c"},
                                           {"env", json::array({{{"name", "A"},
                                                                 {"valueFrom", {{"secretKeyRef", {{"name", "env"}}}}}},
                                                                {{"name", "B"},
                                                                 {"valueFrom", {{"configMapKeyRef", {{"name", "cm-env"}}}}}}})},
                                           {"envFrom", json::array({{{"secretRef", {{"name", "env-from"}}}}})}}})},
              {"volumes", json::array({{{"name", "v"}, {"secret", {{"secretName", "vol"}}}},
                                       {{"name", "p"},
                                        {"projected",
                                         {{"sources", json::array({{{"configMap", {{"name", "cm-projected"}}}}})}}}},
                                       {{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "claim"}}}},
                                       {{"name", "scratch"}, {"ephemeral", json::object()}}})}});
}

json volume(const std::string& name, const std::string& claim, const std::string& secret) {
  json object = {{"metadata", {{"name", name}}},
                 {"spec", {{"csi", {{"nodePublishSecretRef", {{"namespace", "team"}, {"name", secret}}}}}}}};
  if (!claim.empty()) object["spec"]["claimRef"] = {{"namespace", "team"}, {"name", claim}};
  return object;
}

UserInfo node_user(const std::string& node) {
  return UserInfo{.name = "system:node:" + node, .groups = {"system:nodes", "system:authenticated"}, .uid = {}, .extra = {}};
}

Attributes request(const UserInfo& who, std::string verb, std::string ns, std::string group, std::string resource,
                   std::string name, std::string subresource = "") {
  return resource_attributes(who, std::move(verb), std::move(ns), std::move(group), std::move(resource),
                             std::move(subresource), std::move(name), "");
}

}  // namespace

TEST_CASE("node graph: a bound pod relates its node to what it references, and only that node") {
  NodeGraph graph;
  graph.apply("pods", web_pod());
  for (const char* secret : {"pull", "env", "env-from", "vol"}) {
    CHECK(graph.related("node1", NodeObject::secret, "team", secret));
    CHECK_FALSE(graph.related("node2", NodeObject::secret, "team", secret));
  }
  CHECK(graph.related("node1", NodeObject::config_map, "team", "cm-env"));
  CHECK(graph.related("node1", NodeObject::config_map, "team", "cm-projected"));
  CHECK(graph.related("node1", NodeObject::claim, "team", "claim"));
  CHECK(graph.related("node1", NodeObject::claim, "team", "web-scratch"));  // the ephemeral volume's claim
  CHECK(graph.related("node1", NodeObject::service_account, "team", "builder"));
  CHECK_FALSE(graph.related("node1", NodeObject::secret, "other", "env"));
  CHECK_FALSE(graph.related("node1", NodeObject::secret, "team", "unused"));
  CHECK_FALSE(graph.related("node1", NodeObject::config_map, "team", "vol"));  // a secret's name, not a ConfigMap's
}

TEST_CASE("node graph: pods not bound and mirror pods relate nothing but themselves") {
  NodeGraph graph;
  graph.apply("pods", pod("pending", "", {{"volumes", json::array({{{"name", "v"}, {"secret", {{"secretName", "s"}}}}})}}));
  CHECK_FALSE(graph.related("node1", NodeObject::secret, "team", "s"));
  json mirror = pod("static", "node2", {{"volumes", json::array({{{"name", "v"}, {"secret", {{"secretName", "s"}}}}})}});
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "x"}};
  graph.apply("pods", mirror);
  CHECK_FALSE(graph.related("node2", NodeObject::secret, "team", "s"));
  CHECK_FALSE(graph.related("node2", NodeObject::service_account, "team", "builder"));
}

TEST_CASE("node graph: a reference shared by two pods stays until the last one goes") {
  NodeGraph graph;
  graph.apply("pods", pod("a", "node1"));
  graph.apply("pods", pod("b", "node1"));
  graph.remove("pods", "team", "a");
  CHECK(graph.related("node1", NodeObject::service_account, "team", "builder"));
  graph.remove("pods", "team", "b");
  CHECK_FALSE(graph.related("node1", NodeObject::service_account, "team", "builder"));
  // A pod made again under the same name on another node (a new uid) moves its references.
  graph.apply("pods", pod("a", "node1"));
  json moved = pod("a", "node2");
  moved["metadata"]["uid"] = "second";
  graph.apply("pods", moved);
  CHECK_FALSE(graph.related("node1", NodeObject::service_account, "team", "builder"));
  CHECK(graph.related("node2", NodeObject::service_account, "team", "builder"));
}

TEST_CASE("node graph: volumes through their claims, attachments and replace") {
  NodeGraph graph;
  graph.apply("pods", web_pod());
  graph.apply("persistentvolumes", volume("pv-a", "claim", "pv-secret"));
  graph.apply("persistentvolumes", volume("pv-free", "", "free-secret"));
  CHECK(graph.related("node1", NodeObject::volume, "", "pv-a"));
  CHECK(graph.related("node1", NodeObject::secret, "team", "pv-secret"));
  CHECK_FALSE(graph.related("node2", NodeObject::secret, "team", "pv-secret"));
  CHECK_FALSE(graph.related("node1", NodeObject::volume, "", "pv-free"));
  CHECK_FALSE(graph.related("node1", NodeObject::secret, "team", "free-secret"));
  graph.apply("volumeattachments", {{"metadata", {{"name", "va"}}}, {"spec", {{"nodeName", "node1"}}}});
  CHECK(graph.related("node1", NodeObject::attachment, "", "va"));
  CHECK_FALSE(graph.related("node2", NodeObject::attachment, "", "va"));
  graph.remove("pods", "team", "web");
  CHECK_FALSE(graph.related("node1", NodeObject::volume, "", "pv-a"));
  CHECK_FALSE(graph.related("node1", NodeObject::secret, "team", "pv-secret"));
  const json other = pod("other", "node2");
  graph.replace("pods", [&](const std::function<void(const json&)>& take) { take(other); });
  CHECK(graph.related("node2", NodeObject::service_account, "team", "builder"));
  graph.replace("persistentvolumes", [](const std::function<void(const json&)>&) {});
  graph.apply("pods", web_pod());
  CHECK_FALSE(graph.related("node1", NodeObject::volume, "", "pv-a"));
}

TEST_CASE("node mode: answers and reasons as kube's Node authorizer gives them") {
  auto graph = std::make_shared<NodeGraph>();
  graph->apply("pods", web_pod());
  const auto rules = std::vector<PolicyRule>{
      PolicyRule::from_json(json::parse(R"({"verbs":["get","list","watch"],"apiGroups":[""],"resources":["nodes"]})"))};
  const auto mode = node_mode(graph, rules);
  const auto node1 = node_user("node1");
  auto verdict = [&](const Attributes& a, std::string expected_reason = "") {
    std::string reason;
    const auto v = mode->authorize(a, reason, false);
    CHECK(reason == expected_reason);
    return v;
  };
  CHECK(verdict(request(node1, "get", "team", "", "secrets", "vol")) == Verdict::allow);
  CHECK(verdict(request(node1, "watch", "team", "", "secrets", "vol")) == Verdict::allow);
  CHECK(verdict(request(node1, "get", "team", "", "secrets", "unused"),
                "no relationship found between node 'node1' and this object") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "list", "team", "", "secrets", ""), "No Object name found") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "create", "team", "", "secrets", ""), "can only read resources of this type") ==
        Verdict::no_opinion);
  CHECK(verdict(request(node1, "list", "team", "", "persistentvolumeclaims", ""),
                "can only get individual resources of this type") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "patch", "team", "", "persistentvolumeclaims", "claim", "status")) == Verdict::allow);
  CHECK(verdict(request(node1, "create", "team", "", "serviceaccounts", "builder", "token")) == Verdict::allow);
  CHECK(verdict(request(node1, "get", "team", "", "serviceaccounts", "builder"),
                "can only create tokens for individual service accounts") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "update", "kube-node-lease", "coordination.k8s.io", "leases", "node1")) == Verdict::allow);
  CHECK(verdict(request(node1, "get", "kube-node-lease", "coordination.k8s.io", "leases", "node2"),
                "can only access node lease with the same name as the requesting node") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "create", "default", "coordination.k8s.io", "leases", ""),
                "can only access leases in the \"kube-node-lease\" system namespace") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "get", "", "storage.k8s.io", "csinodes", "node2"),
                "can only access CSINode with the same name as the requesting node") == Verdict::no_opinion);
  CHECK(verdict(request(node1, "list", "", "", "nodes", "")) == Verdict::allow);       // the node rules
  CHECK(verdict(request(node1, "delete", "", "", "nodes", "node1")) == Verdict::no_opinion);
  const UserInfo nameless{.name = "system:node:", .groups = {"system:nodes"}, .uid = {}, .extra = {}};
  CHECK(verdict(request(nameless, "get", "team", "", "secrets", "vol"), "unknown node for user \"system:node:\"") ==
        Verdict::no_opinion);
  const UserInfo impostor{.name = "system:node:node1", .groups = {"tenants"}, .uid = {}, .extra = {}};
  CHECK(verdict(request(impostor, "get", "team", "", "secrets", "vol")) == Verdict::no_opinion);
  CHECK(mode->rules_for(node1, "team").incomplete);
  CHECK_FALSE(mode->rules_for(impostor, "team").incomplete);
}

}  // namespace kw::auth::test
