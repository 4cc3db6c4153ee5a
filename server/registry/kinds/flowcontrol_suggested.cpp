// The suggested API priority and fairness configuration kube-apiserver creates when missing
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap, Kubernetes 1.23's objects), in their
// flowcontrol.apiserver.k8s.io/v1 form.
#include <string_view>

#include "server/registry/kinds/flowcontrol_bootstrap.hpp"

namespace kw::kinds {
namespace {

using nlohmann::json;

json suggested(std::string_view kind, std::string_view name, json spec) {
  return {{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}, {"annotations", {{"apf.kubernetes.io/autoupdate-spec", "true"}}}}},
          {"spec", std::move(spec)}};
}

json queued_level(std::string_view name, int shares, int queues, int hand_size) {
  return suggested("PriorityLevelConfiguration", name,
                   {{"type", "Limited"},
                    {"limited",
                     {{"nominalConcurrencyShares", shares},
                      {"lendablePercent", 0},
                      {"limitResponse",
                       {{"type", "Queue"},
                        {"queuing", {{"queues", queues}, {"handSize", hand_size}, {"queueLengthLimit", 50}}}}}}}});
}

json schema(std::string_view name, std::string_view level, int precedence, std::string_view distinguisher,
            json rules) {
  json spec = {{"priorityLevelConfiguration", {{"name", level}}},
               {"matchingPrecedence", precedence},
               {"rules", json::array({std::move(rules)})}};
  if (!distinguisher.empty()) spec["distinguisherMethod"] = {{"type", distinguisher}};
  return suggested("FlowSchema", name, std::move(spec));
}

json groups(std::initializer_list<std::string_view> names) {
  json out = json::array();
  for (auto name : names) out.push_back({{"kind", "Group"}, {"group", {{"name", name}}}});
  return out;
}

json users(std::initializer_list<std::string_view> names) {
  json out = json::array();
  for (auto name : names) out.push_back({{"kind", "User"}, {"user", {{"name", name}}}});
  return out;
}

json kube_system_service_accounts() {
  return {{"kind", "ServiceAccount"}, {"serviceAccount", {{"namespace", "kube-system"}, {"name", "*"}}}};
}

json resource_rule(json verbs, json api_groups, json resources, json namespaces, bool cluster_scope) {
  json rule = {{"verbs", std::move(verbs)}, {"apiGroups", std::move(api_groups)}, {"resources", std::move(resources)}};
  if (cluster_scope) rule["clusterScope"] = true;
  if (!namespaces.empty()) rule["namespaces"] = std::move(namespaces);
  return rule;
}

// Every request of the subjects.
json everything(json subjects) {
  return {{"subjects", std::move(subjects)},
          {"resourceRules", json::array({resource_rule({"*"}, {"*"}, {"*"}, {"*"}, true)})},
          {"nonResourceRules", json::array({{{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}}})}};
}

// get, create and update of the leader election locks.
json leader_election(json subjects, json lock_namespaces) {
  return {{"subjects", std::move(subjects)},
          {"resourceRules", json::array({resource_rule({"get", "create", "update"}, {""}, {"endpoints", "configmaps"},
                                                       std::move(lock_namespaces), false),
                                         resource_rule({"get", "create", "update"}, {"coordination.k8s.io"},
                                                       {"leases"}, {"*"}, false)})}};
}

std::vector<json> make_suggested_objects() {
  json system_accounts = json::array({kube_system_service_accounts()});
  json leaders = users({"system:kube-controller-manager", "system:kube-scheduler"});
  leaders.push_back(kube_system_service_accounts());
  return {
      queued_level("system", 30, 64, 6),
      queued_level("node-high", 40, 64, 6),
      queued_level("leader-election", 10, 16, 4),
      queued_level("workload-high", 40, 128, 6),
      queued_level("workload-low", 100, 128, 6),
      queued_level("global-default", 20, 128, 6),
      schema("system-nodes", "system", 500, "ByUser", everything(groups({"system:nodes"}))),
      schema("system-node-high", "node-high", 400, "ByUser",
             {{"subjects", groups({"system:nodes"})},
              {"resourceRules",
               json::array({resource_rule({"*"}, {""}, {"nodes", "nodes/status"}, {"*"}, true),
                            resource_rule({"*"}, {"coordination.k8s.io"}, {"leases"}, {"*"}, false)})}}),
      schema("probes", "exempt", 2, "",
             {{"subjects", groups({"system:unauthenticated", "system:authenticated"})},
              {"nonResourceRules",
               json::array({{{"verbs", {"get"}}, {"nonResourceURLs", {"/healthz", "/readyz", "/livez"}}}})}}),
      schema("system-leader-election", "leader-election", 100, "ByUser",
             leader_election(std::move(leaders), {"kube-system"})),
      schema("workload-leader-election", "leader-election", 200, "ByUser", leader_election(system_accounts, {"*"})),
      schema("kube-controller-manager", "workload-high", 800, "ByNamespace",
             everything(users({"system:kube-controller-manager"}))),
      schema("kube-scheduler", "workload-high", 800, "ByNamespace", everything(users({"system:kube-scheduler"}))),
      schema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", everything(system_accounts)),
      schema("service-accounts", "workload-low", 9000, "ByUser", everything(groups({"system:serviceaccounts"}))),
      schema("global-default", "global-default", 9900, "ByUser",
             everything(groups({"system:unauthenticated", "system:authenticated"}))),
  };
}

}  // namespace

const std::vector<json>& flowcontrol_suggested_objects() {
  static const std::vector<json> k_objects = make_suggested_objects();
  return k_objects;
}

}  // namespace kw::kinds
