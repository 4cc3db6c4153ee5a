// What a write to pods/{name}/status may change (server/registry/kinds/pod_status.cpp) and the
// ephemeral containers subresource's pod-level rules, through the Pod row's subresource hook.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

json status_pod(const char* restart_policy = "Never") {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec",
               {{"restartPolicy", restart_policy},
                {"initContainers",
                 {{{"name", "init"}, {"image", "busybox"}},
                  {{"name", "sidecar"}, {"image", "envoy"}, {"restartPolicy", "Always"}}}},
                {"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  default_object(*find_kind("", "v1", "pods"), pod);
  return pod;
}

std::string subresource_causes(const char* subresource, const json& pod, const json& old) {
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  Causes causes = json::array();
  row->strategy.validate_subresource(subresource, pod, old, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

json terminated(const char* name, int exit_code) {
  return {{"name", name}, {"state", {{"terminated", {{"exitCode", exit_code}}}}}};
}
json running(const char* name) { return {{"name", name}, {"state", {{"running", json::object()}}}}; }

}  // namespace

TEST_CASE("pod status: terminated containers stay terminated unless the restart policy restarts them") {
  json old = status_pod("Never");
  old["status"]["containerStatuses"] = json::array({terminated("web", 0)});
  old["status"]["initContainerStatuses"] = {terminated("init", 0), terminated("sidecar", 1)};
  json pod = old;
  pod["status"]["containerStatuses"] = json::array({running("web")});
  pod["status"]["initContainerStatuses"] = {running("init"), running("sidecar")};
  CHECK(subresource_causes("status", pod, old) ==
        "status.containerStatuses[0].state|Forbidden: may not be transitioned to non-terminated state\n"
        "status.initContainerStatuses[0].state|Forbidden: may not be transitioned to non-terminated state\n");
  json on_failure = status_pod("OnFailure");
  on_failure["status"]["containerStatuses"] = json::array({terminated("web", 2)});
  json restarted = on_failure;
  restarted["status"]["containerStatuses"] = json::array({running("web")});
  CHECK(subresource_causes("status", restarted, on_failure).empty());
}

TEST_CASE("pod status: condition types, nominated node and IPs") {
  const json old = status_pod();
  json pod = old;
  pod["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}}, {{"type", "bad type"}, {"status", "True"}}};
  pod["status"]["nominatedNodeName"] = "Node_1";
  pod["status"]["podIPs"] = {{{"ip", "10.0.0.1"}}, {{"ip", "10.0.0.1"}}};
  pod["status"]["hostIP"] = "192.168.0.1";
  pod["status"]["hostIPs"] = {{{"ip", "192.168.0.2"}}};
  const std::string got = subresource_causes("status", pod, old);
  CHECK(got.starts_with("metadata.conditions[1].Type|Invalid value: \"bad type\": name part must consist of"));
  CHECK(got.find("status.nominatedNodeName|Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain") !=
        std::string::npos);
  CHECK(got.find("status.podIPs|Invalid value: []core.PodIP{core.PodIP{IP:\"10.0.0.1\"}, core.PodIP{IP:\"10.0.0.1\"}}: "
                 "may specify no more than one IP for each IP family\n"
                 "status.podIPs[1]|Duplicate value: core.PodIP{IP:\"10.0.0.1\"}\n") != std::string::npos);
  CHECK(got.ends_with("status.hostIPs[0].ip|Invalid value: \"192.168.0.2\": must be equal to `hostIP`\n"));
  json dual = old;
  dual["status"]["podIPs"] = {{{"ip", "10.0.0.1"}}, {{"ip", "fd00::1"}}};
  CHECK(subresource_causes("status", dual, old).empty());
}

TEST_CASE("pod ephemeral containers: a static pod takes none") {
  json old = status_pod();
  old["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  old["spec"]["nodeName"] = "n1";
  json pod = old;
  pod["spec"]["ephemeralContainers"] = {{{"name", "debug"},
                                         {"image", "busybox"},
                                         {"imagePullPolicy", "IfNotPresent"},
                                         {"terminationMessagePolicy", "File"}}};
  CHECK(subresource_causes("ephemeralcontainers", pod, old) ==
        "|Forbidden: static pods do not support ephemeral containers\n");
}
