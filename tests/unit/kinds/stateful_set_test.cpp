// StatefulSet and ControllerRevision rules that a create checks and an update does not
// (server/registry/kinds/apps_v1.cpp).
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

// "field|message" lines of a create (`create`) or an update's own validation of `object`.
std::string apps_causes(const char* plural, json object, bool create) {
  const KindSpec* row = find_kind("apps", "v1", plural);
  REQUIRE(row != nullptr);
  default_object(*row, object);
  Causes causes = json::array();
  if (create && row->strategy.validate_create) row->strategy.validate_create(object, causes);
  else row->strategy.validate(object, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

json stateful_set(const char* service) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", {{"name", "db"}, {"namespace", "default"}}},
          {"spec",
           {{"serviceName", service},
            {"selector", {{"matchLabels", {{"app", "db"}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", "db"}}}, {"annotations", {{"kubernetes.io/config.mirror", "x"}}}}},
              {"spec", {{"containers", {{{"name", "db"}, {"image", "postgres"}}}}}}}}}}};
}

}  // namespace

TEST_CASE("statefulset: a new set's service name is a DNS label, an existing set keeps its own") {
  const std::string mirror =
      "spec.template.annotations[kubernetes.io/config.mirror]|Invalid value: \"x\": must set spec.nodeName if mirror "
      "pod annotation is set\n";
  CHECK(apps_causes("statefulsets", stateful_set("db"), true) == mirror);
  CHECK(apps_causes("statefulsets", stateful_set("db.svc"), true) ==
        "spec.serviceName|Invalid value: \"db.svc\": must not contain dots\n" + mirror);
  CHECK(apps_causes("statefulsets", stateful_set("db.svc"), false) == mirror);
}

TEST_CASE("controllerrevision: a new revision's data is a JSON object") {
  json revision = {{"apiVersion", "apps/v1"},
                   {"kind", "ControllerRevision"},
                   {"metadata", {{"name", "r"}, {"namespace", "default"}}},
                   {"revision", -1}};
  CHECK(apps_causes("controllerrevisions", revision, true) ==
        "revision|Invalid value: -1: must be greater than or equal to 0\n"
        "data|Required value: data is mandatory\n");
  revision["revision"] = 1;
  revision["data"] = json::array({1});
  CHECK(apps_causes("controllerrevisions", revision, true) == "data|Required value: data must be a valid JSON object\n");
  revision["data"] = {{"spec", json::object()}};
  CHECK(apps_causes("controllerrevisions", revision, true).empty());
}
