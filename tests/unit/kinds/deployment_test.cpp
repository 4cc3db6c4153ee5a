// ValidateDeploymentStrategy and ValidateRollingUpdateDeployment, through the Deployment row.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

// The causes of a Deployment with `strategy`, after its defaults, as "field|message" lines.
std::string causes_of(const json& strategy) {
  const KindSpec* row = find_kind("apps", "v1", "deployments");
  REQUIRE(row != nullptr);
  json container = {{"name", "web"}, {"image", "nginx"}};
  json pod_template = {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", {{"containers", json::array({container})}}}};
  json spec = {{"selector", {{"matchLabels", {{"app", "web"}}}}}, {"strategy", strategy}, {"template", pod_template}};
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                     {"spec", spec}};
  default_object(*row, deployment);
  Causes causes = json::array();
  row->strategy.validate_create(deployment, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("deployment strategy: Recreate takes no rollingUpdate, RollingUpdate's limits are checked") {
  CHECK(causes_of(json::object()).empty());  // defaulted: RollingUpdate, 25% and 25%
  CHECK(causes_of({{"type", "Recreate"}}).empty());
  CHECK(causes_of({{"type", "Recreate"}, {"rollingUpdate", {{"maxSurge", 1}}}}) ==
        "spec.strategy.rollingUpdate|Forbidden: may not be specified when strategy `type` is 'Recreate'\n");
  CHECK(causes_of({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", 0}, {"maxUnavailable", 0}}}}) ==
        "spec.strategy.rollingUpdate.maxUnavailable|Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}: "
        "may not be 0 when `maxSurge` is 0\n");
  CHECK(causes_of({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "150%"}, {"maxUnavailable", "150%"}}}}) ==
        "spec.strategy.rollingUpdate.maxUnavailable|Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
        "StrVal:\"150%\"}: must not be greater than 100%\n");
  CHECK(causes_of({{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", -1}}}}).starts_with(
      "spec.strategy.rollingUpdate.maxSurge|Invalid value: -1: must be greater than or equal to 0\n"));
}
