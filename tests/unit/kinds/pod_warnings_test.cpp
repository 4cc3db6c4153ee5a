// The warnings of a pod or pod template write (server/registry/kinds/pod_warnings.hpp), in
// kube's words and field paths.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/registry/kinds/pod_warnings.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

std::vector<std::string> warnings_of(const json& holder, const std::string& path = "") {
  std::vector<std::string> out;
  pod_warnings(holder, path, out);
  return out;
}

}  // namespace

TEST_CASE("a plain pod gets no warnings") {
  CHECK(warnings_of(json::parse(R"({"metadata": {"name": "p"}, "spec": {"containers": [
      {"name": "c", "image": "nginx", "ports": [{"containerPort": 80, "protocol": "TCP"}],
       "resources": {"requests": {"memory": "64Mi"}}}]}})"))
            .empty());
}

TEST_CASE("deprecated node labels in the node selector, affinity and topology spread") {
  const auto pod = json::parse(R"({"spec": {
      "nodeSelector": {"beta.kubernetes.io/os": "linux", "disk": "ssd"},
      "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "Exists"},
                                {"key": "failure-domain.beta.kubernetes.io/zone", "operator": "Exists"}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 1, "preference": {"matchExpressions": [{"key": "beta.kubernetes.io/arch", "operator": "Exists"}]}}]}},
      "topologySpreadConstraints": [{"topologyKey": "failure-domain.beta.kubernetes.io/region", "maxSkew": 1,
                                     "whenUnsatisfiable": "DoNotSchedule"}],
      "containers": [{"name": "c", "image": "i"}]}})");
  CHECK(warnings_of(pod) ==
        std::vector<std::string>{
            R"(spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead)",
            R"(spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead)",
            R"(spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: beta.kubernetes.io/arch is deprecated since v1.14; use "kubernetes.io/arch" instead)",
            R"(spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead)",
            "spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod"});
}

TEST_CASE("a template's warnings carry the template's path") {
  const auto pod_template = json::parse(R"({
      "metadata": {"annotations": {"scheduler.alpha.kubernetes.io/critical-pod": "",
                                   "container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}},
      "spec": {"volumes": [{"name": "g", "gitRepo": {"repository": "r"}}, {"name": "s", "storageos": {"volumeName": "v"}}],
               "terminationGracePeriodSeconds": -5,
               "containers": [{"name": "c", "image": "i"}]}})");
  CHECK(warnings_of(pod_template, "spec.template") ==
        std::vector<std::string>{
            R"(spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead)",
            "spec.template.spec.volumes[0].gitRepo: deprecated in v1.11",
            "spec.template.spec.volumes[1].storageOS: deprecated in v1.22, non-functional in v1.25+",
            R"(spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead)",
            "spec.template.spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"});
  // A Pod's own AppArmor annotation is not warned about here.
  CHECK(warnings_of(pod_template).size() == 4);
}

TEST_CASE("repeated env names, ports, host aliases and pull secrets, and fractional bytes") {
  const auto pod = json::parse(R"({"spec": {
      "hostAliases": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.1"}],
      "imagePullSecrets": [{"name": "a"}, {"name": "a"}, {"name": ""}],
      "initContainers": [{"name": "i", "image": "i", "resources": {"limits": {"memory": "500m"}}}],
      "containers": [
        {"name": "c", "image": "i",
         "env": [{"name": "A", "value": "1"}, {"name": "A", "value": "$(A)2"}, {"name": "A", "value": "3"}],
         "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "TCP", "hostPort": 8080},
                   {"containerPort": 81, "protocol": "TCP", "hostIP": "1.2.3.4"}]},
        {"name": "d", "image": "i", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}})");
  CHECK(warnings_of(pod) ==
        std::vector<std::string>{
            R"(spec.hostAliases[1].ip: duplicate ip "10.0.0.1")",
            R"(spec.imagePullSecrets[1].name: duplicate name "a")",
            R"(spec.imagePullSecrets[2].name: invalid empty name "")",
            R"(spec.initContainers[0].resources.limits[memory]: fractional byte value "500m" is invalid, must be an integer)",
            R"(spec.containers[0].env[2]: hides previous definition of "A", which may be dropped when using apply)",
            "spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]",
            "spec.containers[0].ports[2]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:81 Protocol:TCP HostIP:1.2.3.4}",
            "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]",
            "spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[1]"});
}

TEST_CASE("affinity terms without a label selector and seccomp annotations without the field") {
  const auto pod = json::parse(R"({
      "metadata": {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
                                   "container.seccomp.security.alpha.kubernetes.io/c": "runtime/default",
                                   "container.seccomp.security.alpha.kubernetes.io/d": "runtime/default"}},
      "spec": {"affinity": {"podAntiAffinity": {
                 "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}],
                 "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "zone"}}]}},
               "containers": [{"name": "c", "image": "i"},
                              {"name": "d", "image": "i", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}]}})");
  CHECK(warnings_of(pod) ==
        std::vector<std::string>{
            R"(metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead)",
            R"(metadata.annotations[container.seccomp.security.alpha.kubernetes.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead)",
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: a null labelSelector results in matching no pod",
            "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod"});
}

TEST_CASE("claims: the beta storage-class annotation and fractional storage, in claims and ephemeral volumes") {
  std::vector<std::string> out;
  claim_warnings(json::parse(R"({"metadata": {"name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "x"}},
      "spec": {"resources": {"requests": {"storage": "1500m"}, "limits": {"storage": "2Gi"}}}})"),
                 out);
  CHECK(out == std::vector<std::string>{
                   R"(metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead)",
                   R"(spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer)"});
  CHECK(warnings_of(json::parse(R"({"spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [
      {"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": {"resources": {"limits": {"storage": "0.5"}}}}}}]}})"),
                    "spec.template") ==
        std::vector<std::string>{
            R"(spec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.limits[storage]: fractional byte value "500m" is invalid, must be an integer)"});
}

TEST_CASE("volumes: the beta annotation, Recycle, deprecated node labels and plugins") {
  std::vector<std::string> out;
  volume_warnings(json::parse(R"({"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "x"}},
      "spec": {"persistentVolumeReclaimPolicy": "Recycle", "storageos": {}, "nodeAffinity": {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "beta.kubernetes.io/os", "operator": "In", "values": ["linux"]}]}]}}}})"),
                  out);
  REQUIRE(out.size() == 4);
  CHECK(out[0].starts_with("metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8"));
  CHECK(out[1].starts_with("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated."));
  CHECK(out[2] == R"(spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead)");
  CHECK(out[3] == "spec.storageOS: deprecated in v1.22, non-functional in v1.25+");
}

TEST_CASE("statefulsets: each claim template's fractional storage, at kube's paths for a create and an update") {
  const json sts = json::parse(R"({"metadata": {"name": "db"}, "spec": {"volumeClaimTemplates": [
      {"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1.5"}}}},
      {"metadata": {"name": "logs"}, "spec": {"resources": {"requests": {"storage": "1Gi"}, "limits": {"storage": "100m"}}}}]}})");
  std::vector<std::string> created;
  stateful_set_warnings(sts, nullptr, created);
  CHECK(created == std::vector<std::string>{
                       R"(spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer)",
                       R"(spec.volumeClaimTemplates[1].resources.limits[storage]: fractional byte value "100m" is invalid, must be an integer)"});
  std::vector<std::string> updated;
  stateful_set_warnings(sts, &sts, updated);
  REQUIRE(updated.size() == 2);
  CHECK(updated[0].starts_with("spec.volumeClaimTemplates[0].Spec.resources.requests[storage]: "));
}
