#include <doctest/doctest.h>

#include <chrono>

#include "server/quota/evaluator.hpp"
#include "server/quota/resource_list.hpp"

using nlohmann::json;
using namespace kw::quota;

namespace {

const auto k_now = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

std::string sum(const char* a, const char* b) {
  return to_json(add(resource_list(json{{"x", a}}), resource_list(json{{"x", b}})))["x"].get<std::string>();
}

json printed(const ResourceList& list) { return to_json(list); }

json pod(json spec, json status = json::object()) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}, {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

json container(json requests, json limits = json::object()) {
  return {{"name", "c"}, {"image", "x"}, {"resources", {{"requests", std::move(requests)}, {"limits", std::move(limits)}}}};
}

}  // namespace

TEST_CASE("quantities add and subtract exactly, in the format Go keeps") {
  CHECK(sum("500m", "500m") == "1");
  CHECK(sum("512Mi", "512Mi") == "1Gi");
  CHECK(sum("0", "512Mi") == "512Mi");  // a zero takes the other's format
  CHECK(sum("1", "1Ki") == "1025");    // decimal stays decimal
  CHECK(sum("1Gi", "-2Gi") == "-1Gi");
  CHECK(sum("100m", "1.5") == "1600m");
  const auto left = subtract_non_negative(resource_list(json{{"a", "1"}, {"b", "5"}}),
                                          resource_list(json{{"a", "2"}, {"b", "2"}, {"c", "1"}}));
  CHECK(printed(left) == json{{"a", "0"}, {"b", "3"}, {"c", "0"}});
  CHECK(remove_zeros(left).size() == 1);
  CHECK(exceeded(resource_list(json{{"a", "2"}, {"b", "1"}, {"c", "9"}}), resource_list(json{{"a", "1"}, {"b", "1"}})) ==
        std::set<std::string>{"a"});
  CHECK(pretty_print(resource_list(json{{"requests.cpu", "0.5"}, {"limits.cpu", "1"}})) == "limits.cpu=1,requests.cpu=500m");
  CHECK(equals(resource_list(json{{"a", "1000m"}}), resource_list(json{{"a", "1"}})));
  CHECK_FALSE(equals(resource_list(json{{"a", "1"}}), resource_list(json{{"a", "1"}, {"b", "0"}})));
}

TEST_CASE("pod usage: containers summed, the largest init container, overhead, terminal pods") {
  const auto pods = Evaluator::of("", "pods");
  json spec = {{"containers", {container({{"cpu", "250m"}, {"memory", "64Mi"}}, {{"cpu", "1"}}),
                               container({{"cpu", "250m"}, {"example.com/gpu", "1"}, {"hugepages-2Mi", "4Mi"}})}},
               {"initContainers", {container({{"cpu", "2"}})}},
               {"overhead", {{"cpu", "100m"}}}};
  CHECK(printed(pods.usage(pod(spec), k_now)) == json{{"count/pods", "1"},
                                                     {"pods", "1"},
                                                     {"cpu", "2100m"},
                                                     {"requests.cpu", "2100m"},
                                                     {"limits.cpu", "1100m"},
                                                     {"memory", "64Mi"},
                                                     {"requests.memory", "64Mi"},
                                                     {"hugepages-2Mi", "4Mi"},
                                                     {"requests.hugepages-2Mi", "4Mi"},
                                                     {"requests.example.com/gpu", "1"}});
  CHECK(printed(pods.usage(pod(spec, {{"phase", "Succeeded"}}), k_now)) == json{{"count/pods", "1"}});
  json deleting = pod(spec);
  deleting["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";  // k_now, with 30 s of grace
  deleting["metadata"]["deletionGracePeriodSeconds"] = 30;
  CHECK(pods.usage(deleting, k_now).contains("pods"));
  deleting["metadata"]["deletionGracePeriodSeconds"] = 0;
  CHECK(!pods.usage(deleting, k_now + std::chrono::seconds(1)).contains("pods"));
  CHECK(pods.handles("CREATE"));
  CHECK_FALSE(pods.handles("UPDATE"));
}

TEST_CASE("pod constraints: a quota on cpu or memory needs every container to set them") {
  const auto pods = Evaluator::of("", "pods");
  const std::vector<std::string> required = {"limits.cpu", "requests.memory", "pods", "requests.storage"};
  json spec = {{"containers", {container({{"memory", "1Gi"}}, {{"cpu", "1"}})}}};
  CHECK(pods.constraints(required, pod(spec)) == "");
  spec["initContainers"] = json::array({container({{"cpu", "1"}})});
  CHECK(pods.constraints(required, pod(spec)) == "must specify limits.cpu,requests.memory");
  CHECK(Evaluator::of("", "services").constraints(required, pod(spec)) == "");
}

TEST_CASE("pod scopes: terminating, best effort, priority class, cross-namespace affinity") {
  const auto pods = Evaluator::of("", "pods");
  const json best_effort = pod({{"containers", {container(json::object())}}});
  const json burstable = pod({{"containers", {container({{"cpu", "1"}})}}, {"activeDeadlineSeconds", 10},
                              {"priorityClassName", "high"}});
  auto in = [&](const char* scope, const json& object, json extra = json::object()) {
    json requirement = {{"scopeName", scope}, {"operator", "Exists"}};
    requirement.update(extra);
    auto result = pods.in_scope(requirement, object);
    REQUIRE(result.has_value());
    return *result;
  };
  CHECK(in("BestEffort", best_effort));
  CHECK_FALSE(in("BestEffort", burstable));
  CHECK(in("NotBestEffort", burstable));
  CHECK(in("Terminating", burstable));
  CHECK(in("NotTerminating", best_effort));
  CHECK(in("PriorityClass", burstable, {{"operator", "In"}, {"values", {"high", "low"}}}));
  CHECK_FALSE(in("PriorityClass", best_effort, {{"operator", "In"}, {"values", {"high"}}}));
  CHECK(in("PriorityClass", best_effort, {{"operator", "DoesNotExist"}}));
  CHECK_FALSE(in("CrossNamespacePodAffinity", burstable));
  json affine = best_effort;
  affine["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = {
      {{"weight", 1}, {"podAffinityTerm", {{"topologyKey", "k"}, {"namespaceSelector", json::object()}}}}};
  CHECK(in("CrossNamespacePodAffinity", affine));
  CHECK_FALSE(pods.in_scope({{"scopeName", "PriorityClass"}, {"operator", "Gt"}}, burstable).has_value());
  // Only pods are in scopes: a scoped quota never covers a service.
  const json scoped = {{"spec", {{"scopes", {"BestEffort"}}}}, {"status", {{"hard", {{"services", "1"}}}}}};
  auto covered = Evaluator::of("", "services").matches(scoped, json::object());
  REQUIRE(covered.has_value());
  CHECK_FALSE(*covered);
}

TEST_CASE("services count node ports and load balancers, claims count storage per class") {
  const auto services = Evaluator::of("", "services");
  json svc = {{"spec", {{"type", "NodePort"}, {"ports", {{{"port", 80}}, {{"port", 443}}}}}}};
  CHECK(printed(services.usage(svc, k_now)) == json{{"count/services", "1"},
                                                   {"services", "1"},
                                                   {"services.loadbalancers", "0"},
                                                   {"services.nodeports", "2"}});
  svc["spec"]["type"] = "LoadBalancer";
  svc["spec"]["allocateLoadBalancerNodePorts"] = false;
  svc["spec"]["ports"][1]["nodePort"] = 30001;
  CHECK(printed(services.usage(svc, k_now))["services.nodeports"] == "1");
  CHECK(printed(services.usage(svc, k_now))["services.loadbalancers"] == "1");
  CHECK(services.handles("UPDATE"));

  const auto claims = Evaluator::of("", "persistentvolumeclaims");
  json claim = {{"metadata", {{"annotations", {{"volume.beta.kubernetes.io/storage-class", "gold"}}}}},
                {"spec", {{"storageClassName", "silver"}, {"resources", {{"requests", {{"storage", "1500m"}}}}}}}};
  CHECK(printed(claims.usage(claim, k_now)) == json{{"count/persistentvolumeclaims", "1"},
                                                   {"persistentvolumeclaims", "1"},
                                                   {"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "1"},
                                                   {"gold.storageclass.storage.k8s.io/requests.storage", "2"},
                                                   {"requests.storage", "2"}});
  CHECK(claims.matching_resources({"requests.storage", "gold.storageclass.storage.k8s.io/requests.storage", "pods"}) ==
        std::vector<std::string>{"requests.storage", "gold.storageclass.storage.k8s.io/requests.storage"});
}

TEST_CASE("object counts: count/RESOURCE.GROUP, and the legacy names of four core resources") {
  CHECK(printed(Evaluator::of("apps", "deployments").usage(json::object(), k_now)) ==
        json{{"count/deployments.apps", "1"}});
  CHECK(printed(Evaluator::of("", "configmaps").usage(json::object(), k_now)) ==
        json{{"configmaps", "1"}, {"count/configmaps", "1"}});
  CHECK_FALSE(Evaluator::of("apps", "deployments").handles("UPDATE"));
  const std::vector<std::string> hard = {"pods", "configmaps", "count/deployments.apps", "count/widgets.example.com",
                                         "count/pods", "requests.storage"};
  std::vector<std::string> resources;
  for (const auto& e : evaluators_for(hard)) resources.push_back(e.group() + "/" + e.resource());
  CHECK(resources == std::vector<std::string>{"/pods", "/persistentvolumeclaims", "/configmaps", "apps/deployments",
                                              "example.com/widgets"});
  CHECK(scope_selectors({{"spec", {{"scopes", {"BestEffort"}},
                                   {"scopeSelector", {{"matchExpressions", {{{"scopeName", "PriorityClass"},
                                                                             {"operator", "In"},
                                                                             {"values", {"x"}}}}}}}}}})
            .size() == 2);
}
