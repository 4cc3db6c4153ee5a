// A new pod's PrepareForCreate and ValidatePodCreate rules (server/registry/kinds/pod_prepare.cpp
// and the Pod row): scheduling gates, pod affinity label keys, what a create may not set.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

struct PreparedPod {
  json pod;
  std::string causes;
};

PreparedPod prepared_pod(json spec_extra, json labels = json::object()) {
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}, {"labels", std::move(labels)}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  pod["spec"].update(spec_extra, true);
  default_object(*row, pod);
  row->strategy.prepare_create(pod);
  Causes causes = json::array();
  row->strategy.validate_create(pod, causes);
  PreparedPod out{std::move(pod), ""};
  for (const auto& cause : causes) out.causes += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("pod create: scheduling gates start the pod with a SchedulingGated condition") {
  const PreparedPod gated = prepared_pod({{"schedulingGates", {{{"name", "example.com/wait"}}}}});
  CHECK(gated.causes.empty());
  const json& conditions = gated.pod["status"]["conditions"];
  REQUIRE(conditions.size() == 1);
  CHECK(conditions[0]["type"] == "PodScheduled");
  CHECK(conditions[0]["status"] == "False");
  CHECK(conditions[0]["reason"] == "SchedulingGated");
  CHECK(conditions[0]["message"] == "Scheduling is blocked due to non-empty scheduling gates");
  CHECK(conditions[0]["lastTransitionTime"].is_string());
  CHECK_FALSE(prepared_pod(json::object()).pod["status"].contains("conditions"));
}

TEST_CASE("pod create: a node may not be named while scheduling gates remain, nor ephemeral containers given") {
  CHECK(prepared_pod({{"nodeName", "n1"}, {"schedulingGates", {{{"name", "g"}}}}}).causes ==
        "spec.nodeName|Forbidden: cannot be set until all schedulingGates have been cleared\n");
  CHECK(prepared_pod({{"ephemeralContainers", {{{"name", "debug"}, {"image", "busybox"}}}}}).causes ==
        "spec.ephemeralContainers|Forbidden: cannot be set on create\n");
}

TEST_CASE("pod create: matchLabelKeys and mismatchLabelKeys join the term's selector with the pod's labels") {
  json term = {{"topologyKey", "kubernetes.io/hostname"},
               {"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
               {"matchLabelKeys", {"pod-template-hash", "absent"}},
               {"mismatchLabelKeys", {"tenant"}}};
  json unselected = {{"topologyKey", "zone"}, {"matchLabelKeys", {"pod-template-hash"}}};
  const PreparedPod pod =
      prepared_pod({{"affinity",
                     {{"podAntiAffinity",
                       {{"requiredDuringSchedulingIgnoredDuringExecution", {term, unselected}},
                        {"preferredDuringSchedulingIgnoredDuringExecution",
                         {{{"weight", 10}, {"podAffinityTerm", term}}}}}}}}},
                   {{"app", "web"}, {"pod-template-hash", "abc"}, {"tenant", "t1"}});
  const json expected = json::array({{{"key", "pod-template-hash"}, {"operator", "In"}, {"values", {"abc"}}},
                                     {{"key", "tenant"}, {"operator", "NotIn"}, {"values", {"t1"}}}});
  const json& anti = pod.pod["spec"]["affinity"]["podAntiAffinity"];
  CHECK(anti["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]["matchExpressions"] == expected);
  CHECK(anti["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["labelSelector"]
            ["matchExpressions"] == expected);
  // A term without a selector selects nothing and stays so.
  CHECK_FALSE(anti["requiredDuringSchedulingIgnoredDuringExecution"][1].contains("labelSelector"));
}

TEST_CASE("pod create: pods, unlike templates, keep images unpadded and token volumes with a service account") {
  json containers = {{{"name", "web"}, {"image", " nginx"}}};
  json volumes = {{{"name", "token"}, {"projected", {{"sources", {{{"serviceAccountToken", {{"path", "t"}}}}}}}}}};
  CHECK(prepared_pod({{"containers", containers}, {"volumes", volumes}}).causes ==
        "spec.volumes[0].projected.sources[0].serviceAccountToken|Forbidden: must not be specified when "
        "serviceAccountName is not set\n"
        "spec.containers[0].image|Invalid value: \" nginx\": must not have leading or trailing whitespace\n");
  CHECK(prepared_pod({{"volumes", volumes}, {"serviceAccountName", "default"}}).causes.empty());
}
