// The pod-specific annotations (server/registry/kinds/pod_annotations.cpp) on pods and pod
// templates, through the rows' hooks as the registry calls them.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

const KindSpec& kind_row(const char* group, const char* plural) {
  const KindSpec* found = find_kind(group, "v1", plural);
  REQUIRE(found != nullptr);
  return *found;
}

json annotated_pod(json annotations, json spec_extra = json::object()) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}, {"annotations", std::move(annotations)}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  pod["spec"].update(spec_extra, true);
  default_object(kind_row("", "pods"), pod);
  return pod;
}

// Causes as "field|message" lines.
std::string cause_lines(const Causes& causes) {
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

std::string pod_create_causes(json pod) {
  const Strategy& strategy = kind_row("", "pods").strategy;
  strategy.prepare_create(pod);
  Causes causes = json::array();
  strategy.validate_create(pod, causes);
  return cause_lines(causes);
}

// An update's causes (ValidatePodUpdate).
std::string pod_update_causes(const json& pod, const json& old) {
  const Strategy& strategy = kind_row("", "pods").strategy;
  Causes causes = json::array();
  strategy.validate_update(pod, old, causes);
  return cause_lines(causes);
}

std::string template_causes(json annotations, json spec_extra = json::object()) {
  const KindSpec& deployments = kind_row("apps", "deployments");
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                     {"spec",
                      {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                       {"template",
                        {{"metadata", {{"labels", {{"app", "web"}}}, {"annotations", std::move(annotations)}}},
                         {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}}}}}};
  deployment["spec"]["template"]["spec"].update(spec_extra, true);
  default_object(deployments, deployment);
  Causes causes = json::array();
  if (deployments.strategy.validate_create) deployments.strategy.validate_create(deployment, causes);
  else deployments.strategy.validate(deployment, causes);
  return cause_lines(causes);
}

const char* k_deletion_cost = "controller.kubernetes.io/pod-deletion-cost";
const char* k_tolerations_key = "scheduler.alpha.kubernetes.io/tolerations";

}  // namespace

TEST_CASE("pod annotations: a mirror pod must name its node") {
  CHECK(pod_create_causes(annotated_pod({{"kubernetes.io/config.mirror", "abc"}})) ==
        "metadata.annotations[kubernetes.io/config.mirror]|Invalid value: \"abc\": must set spec.nodeName if mirror "
        "pod annotation is set\n");
  CHECK(pod_create_causes(annotated_pod({{"kubernetes.io/config.mirror", "abc"}}, {{"nodeName", "n1"}})).empty());
  CHECK(template_causes({{"kubernetes.io/config.mirror", ""}}) ==
        "spec.template.annotations[kubernetes.io/config.mirror]|Invalid value: \"\": must set spec.nodeName if mirror "
        "pod annotation is set\n");
}

TEST_CASE("pod annotations: the deletion cost is a 32-bit integer without a plus sign or leading zeros") {
  for (const char* good : {"0", "-5", "2147483647", "-2147483648", "-01"})
    CHECK_MESSAGE(pod_create_causes(annotated_pod({{k_deletion_cost, good}})).empty(), good);
  for (const char* bad : {"", "+1", "01", "2147483648", "-2147483649", "1.5", "abc", "-", "99999999999999999999"})
    CHECK_MESSAGE(pod_create_causes(annotated_pod({{k_deletion_cost, bad}})) ==
                      "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]|Invalid value: \"" +
                          std::string(bad) + "\": must be a 32bit integer\n",
                  bad);
  CHECK(template_causes({{k_deletion_cost, "x"}}) ==
        "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]|Invalid value: \"x\": must be a 32bit "
        "integer\n");
}

TEST_CASE("pod annotations: an update keeps an invalid deletion cost the stored pod had, and refuses a new one") {
  const json invalid_before = annotated_pod({{k_deletion_cost, "x"}});
  CHECK(pod_update_causes(annotated_pod({{k_deletion_cost, "y"}}), invalid_before).empty());
  const json valid_before = annotated_pod({{k_deletion_cost, "1"}});
  // (said twice, as Kubernetes' causes say it: once for the pod, once for its annotation updates)
  const std::string cause =
      "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]|Invalid value: \"y\": must be a 32bit "
      "integer\n";
  CHECK(pod_update_causes(annotated_pod({{k_deletion_cost, "y"}}), valid_before) == cause + cause);
}

TEST_CASE("pod annotations: the tolerations annotation is decoded as Go decodes it, then validated") {
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, R"([{"key":"a","operator":"Exists","effect":"NoSchedule"}])"}}))
            .empty());
  // Member names match without regard to case; unknown ones are ignored.
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, R"([{"KEY":"a","Operator":"Exists","color":1}])"}})).empty());
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, "[{"}})) ==
        "metadata.annotations|Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": unexpected end of JSON "
        "input\n");
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, "{}"}})) ==
        "metadata.annotations|Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal "
        "object into Go value of type []core.Toleration\n");
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, R"([{"key":1}])"}})) ==
        "metadata.annotations|Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal "
        "number into Go struct field Toleration.Key of type string\n");
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, R"([{"key":"a","tolerationSeconds":1.5}])"}})) ==
        "metadata.annotations|Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal "
        "number 1.5 into Go struct field Toleration.TolerationSeconds of type int64\n");
  // Decoded tolerations are held to ValidateTolerations, under the annotation's name.
  CHECK(pod_create_causes(annotated_pod({{k_tolerations_key, R"([{"operator":"Equal"}])"}})) ==
        "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator|Invalid value: \"Equal\": "
        "operator must be Exists when `key` is empty, which means \"match all values and all keys\"\n");
}

TEST_CASE("pod annotations: seccomp annotations name a valid profile") {
  CHECK(pod_create_causes(annotated_pod({{"seccomp.security.alpha.kubernetes.io/pod", "runtime/default"},
                                {"container.seccomp.security.alpha.kubernetes.io/web", "localhost/a/b.json"}}))
            .empty());
  CHECK(pod_create_causes(annotated_pod({{"seccomp.security.alpha.kubernetes.io/pod", "foo"},
                                {"container.seccomp.security.alpha.kubernetes.io/web", "localhost//etc/x"},
                                {"container.seccomp.security.alpha.kubernetes.io/other", "localhost/../x"}})) ==
        "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod|Invalid value: \"foo\": must be a valid "
        "seccomp profile\n"
        "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/other|Invalid value: \"../x\": must not "
        "contain '..'\n"
        "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/web|Invalid value: \"/etc/x\": must be "
        "a relative path\n");
}

TEST_CASE("pod annotations: a create refuses a seccomp annotation that says another profile than its field") {
  const json runtime = {{"type", "RuntimeDefault"}};
  const json localhost = {{"type", "Localhost"}, {"localhostProfile", "p.json"}};
  CHECK(pod_create_causes(annotated_pod({{"seccomp.security.alpha.kubernetes.io/pod", "docker/default"}},
                               {{"securityContext", {{"seccompProfile", runtime}}}}))
            .empty());
  CHECK(pod_create_causes(annotated_pod({{"seccomp.security.alpha.kubernetes.io/pod", "unconfined"}},
                               {{"securityContext", {{"seccompProfile", runtime}}}})) ==
        "spec.securityContext.seccompProfile.type|Forbidden: seccomp type in annotation and field must match\n");
  json containers = {{{"name", "web"}, {"image", "nginx"}, {"securityContext", {{"seccompProfile", localhost}}}}};
  CHECK(pod_create_causes(annotated_pod({{"container.seccomp.security.alpha.kubernetes.io/web", "localhost/q.json"}},
                               {{"containers", containers}})) ==
        "spec.containers[0].securityContext.seccompProfile.localhostProfile|Forbidden: seccomp profile in annotation "
        "and field must match\n");
  CHECK(template_causes({{"container.seccomp.security.alpha.kubernetes.io/web", "runtime/default"}},
                          {{"containers", containers}}) ==
        "spec.template.spec.containers[0].securityContext.seccompProfile.type|Forbidden: seccomp type in annotation "
        "and field must match\n");
  // An update does not compare them (ValidatePodCreate only).
  const json pod = annotated_pod({{"seccomp.security.alpha.kubernetes.io/pod", "unconfined"}},
                            {{"securityContext", {{"seccompProfile", runtime}}}});
  CHECK(pod_update_causes(pod, pod).empty());
}
