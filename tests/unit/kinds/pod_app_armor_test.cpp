// AppArmor on pods (server/registry/kinds/pod_app_armor.cpp), through the Pod row's hooks in the
// order the registry calls them on a create: warnings, prepare_create, validate_create.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

const KindSpec& pod_row() {
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  return *row;
}

json pod_with(json annotations, json pod_profile, json container_profile) {
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}}},
      {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}, {{"name", "side"}, {"image", "busybox"}}}}}}};
  if (!annotations.is_null()) pod["metadata"]["annotations"] = std::move(annotations);
  if (!pod_profile.is_null()) pod["spec"]["securityContext"]["appArmorProfile"] = std::move(pod_profile);
  if (!container_profile.is_null())
    pod["spec"]["containers"][0]["securityContext"]["appArmorProfile"] = std::move(container_profile);
  default_object(pod_row(), pod);
  return pod;
}

// A create's outcome: the warnings, the prepared pod, and its causes as "field|message" lines.
struct Created {
  std::vector<std::string> warnings;
  json pod;
  std::string causes;
};
Created create(json pod) {
  const Strategy& strategy = pod_row().strategy;
  REQUIRE(static_cast<bool>(strategy.create_warnings));
  REQUIRE(static_cast<bool>(strategy.validate_create));
  Created out;
  strategy.create_warnings(pod, out.warnings);
  strategy.prepare_create(pod);
  Causes causes = json::array();
  strategy.validate_create(pod, causes);
  for (const auto& cause : causes) out.causes += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  out.pod = std::move(pod);
  return out;
}

const std::string k_web = "container.apparmor.security.beta.kubernetes.io/web";
const std::string k_side = "container.apparmor.security.beta.kubernetes.io/side";

}  // namespace

TEST_CASE("apparmor: a create turns a container's annotation into its field, with a deprecation warning") {
  const auto made = create(pod_with({{k_web, "localhost/k8s-nginx"}}, nullptr, nullptr));
  CHECK(made.causes.empty());
  CHECK(made.pod["spec"]["containers"][0]["securityContext"]["appArmorProfile"] ==
        json{{"type", "Localhost"}, {"localhostProfile", "k8s-nginx"}});
  CHECK_FALSE(made.pod["spec"]["containers"][1].contains("securityContext"));
  REQUIRE(made.warnings.size() == 1);
  CHECK(made.warnings[0] ==
        "metadata.annotations[" + k_web + "]: deprecated since v1.30; use the \"appArmorProfile\" field instead");
}

TEST_CASE("apparmor: fields give every container its annotation, and an annotation the pod profile says stays alone") {
  const auto made =
      create(pod_with({{k_side, "runtime/default"}}, {{"type", "RuntimeDefault"}}, {{"type", "Unconfined"}}));
  CHECK(made.causes.empty());
  CHECK(made.pod["metadata"]["annotations"][k_web] == "unconfined");
  CHECK(made.pod["metadata"]["annotations"][k_side] == "runtime/default");
  // The side container's annotation is what the pod's profile says: no field, no warning.
  CHECK_FALSE(made.pod["spec"]["containers"][1].contains("securityContext"));
  CHECK(made.warnings.empty());
}

TEST_CASE("apparmor: an annotation with no valid field is warned about and left as it is") {
  const auto made = create(pod_with({{k_web, "localhost/"}}, nullptr, nullptr));
  REQUIRE(made.warnings.size() == 1);
  CHECK_FALSE(made.pod["spec"]["containers"][0].contains("securityContext"));
  CHECK(made.causes.empty());  // "localhost/" has a known form, though it names no profile
}

TEST_CASE("apparmor: a create whose annotation and field disagree is refused") {
  CHECK(create(pod_with({{k_web, "runtime/default"}}, nullptr, {{"type", "Unconfined"}})).causes ==
        "spec.containers[0].securityContext.appArmorProfile.type|Forbidden: apparmor type in annotation and field "
        "must match\n");
  CHECK(
      create(pod_with({{k_web, "localhost/a"}}, nullptr, {{"type", "Localhost"}, {"localhostProfile", "b"}})).causes ==
      "spec.containers[0].securityContext.appArmorProfile.localhostProfile|Forbidden: apparmor profile in annotation "
      "and field must match\n");
  // The pod's profile counts for a container without its own.
  CHECK(
      create(pod_with({{k_side, "unconfined"}}, {{"type", "Localhost"}, {"localhostProfile", "p"}}, nullptr)).causes ==
      "");  // the annotation became the side container's field
}

TEST_CASE("apparmor: annotations name a container of the pod and a known profile form") {
  Causes causes = json::array();
  const json pod =
      pod_with({{"container.apparmor.security.beta.kubernetes.io/gone", "docker-default"}}, nullptr, nullptr);
  pod_row().strategy.validate_create(pod, causes);
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["field"] == "metadata.annotations[container.apparmor.security.beta.kubernetes.io/gone]");
  CHECK(causes[0]["message"] == "Invalid value: \"gone\": container not found");
  CHECK(causes[1]["message"] == "Invalid value: \"docker-default\": invalid AppArmor profile name: \"docker-default\"");
}

TEST_CASE("apparmor: profile fields") {
  const auto causes_for = [](json profile) {
    Causes causes = json::array();
    pod_row().strategy.validate_create(pod_with(nullptr, std::move(profile), nullptr), causes);
    std::string out;
    for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
    return out;
  };
  const std::string at = "spec.securityContext.appArmorProfile";
  CHECK(causes_for({{"type", "Localhost"}}) ==
        at + ".localhostProfile|Required value: must be set when AppArmor type is Localhost\n");
  CHECK(causes_for({{"type", "Localhost"}, {"localhostProfile", " p"}}) ==
        at + ".localhostProfile|Invalid value: \" p\": must not be padded with whitespace\n");
  CHECK(causes_for({{"type", "Unconfined"}, {"localhostProfile", "p"}}) ==
        at + ".localhostProfile|Invalid value: \"p\": can only be set when AppArmor type is Localhost\n");
  CHECK(causes_for(json::object()) == at + ".type|Required value: type is required when appArmorProfile is set\n");
  CHECK(
      causes_for({{"type", "Strict"}}) ==
      at +
          ".type|Unsupported value: \"Strict\": supported values: \"Localhost\", \"RuntimeDefault\", \"Unconfined\"\n");
  CHECK(causes_for({{"type", "RuntimeDefault"}}).empty());
}

TEST_CASE("apparmor: an update may not add, change or remove a pod's AppArmor annotations") {
  const json old = create(pod_with({{k_web, "runtime/default"}}, nullptr, nullptr)).pod;
  const auto update_causes = [&](const json& pod) {
    Causes causes = json::array();
    pod_row().strategy.validate_update(pod, old, causes);
    std::string out;
    for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
    return out;
  };
  json changed = old;
  changed["metadata"]["annotations"][k_web] = "unconfined";
  CHECK(update_causes(changed) ==
        "metadata.annotations[" + k_web + "]|Forbidden: may not remove or update AppArmor annotations\n");
  json added = old;
  added["metadata"]["annotations"][k_side] = "unconfined";
  CHECK(update_causes(added) == "metadata.annotations[" + k_side + "]|Forbidden: may not add AppArmor annotations\n");
  json other = old;
  other["metadata"]["annotations"]["note"] = "x";
  CHECK(update_causes(other).empty());
}

TEST_CASE("apparmor: Windows pods are left alone") {
  json pod = pod_with({{k_web, "localhost/p"}}, nullptr, nullptr);
  pod["spec"]["os"] = {{"name", "windows"}};
  const auto made = create(pod);
  CHECK(made.warnings.empty());
  CHECK_FALSE(made.pod["spec"]["containers"][0].contains("securityContext"));
}
