#include <doctest/doctest.h>

#include "server/crd/definition.hpp"

using nlohmann::json;

namespace {

json crontab_crd() {
  return json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs.stable.example.com"},
    "spec": {
      "group": "stable.example.com", "scope": "Namespaced",
      "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"], "categories": ["all"]},
      "versions": [
        {"name": "v1", "served": true, "storage": true,
         "schema": {"openAPIV3Schema": {"type": "object"}},
         "subresources": {"status": {}},
         "additionalPrinterColumns": [{"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
                                      {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1}]},
        {"name": "v1beta1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v0", "served": false, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}}
      ]}})");
}

}  // namespace

TEST_CASE("a CRD turns into one table entry per served version") {
  const json crd = crontab_crd();
  REQUIRE(kw::crd::validate_definition(crd).empty());
  const auto definition = kw::crd::parse_definition(crd);
  const auto infos = definition->resource_infos();
  REQUIRE(infos.size() == 2);
  CHECK(infos[0].api_version() == "stable.example.com/v1");
  CHECK(infos[1].api_version() == "stable.example.com/v1beta1");
  CHECK(infos[0].singular == "crontab");
  CHECK(infos[0].list_kind == "CronTabList");
  CHECK(infos[0].short_names == std::vector<std::string>{"ct"});
  CHECK(infos[0].categories == std::vector<std::string>{"all"});
  CHECK(infos[0].custom);
  CHECK(infos[1].storage_version == "v1");
  CHECK(infos[0].has_subresource("status"));
  CHECK_FALSE(infos[1].has_subresource("status"));
  REQUIRE(infos[0].columns.size() == 3);
  CHECK(infos[0].columns[0].name == "Name");
  CHECK(infos[0].columns[2].priority == 1);
  // No printer columns: NAME and AGE, as kube-apiserver serves them.
  REQUIRE(infos[1].columns.size() == 2);
  CHECK(infos[1].columns[1].name == "Age");
  CHECK(infos[1].columns[1].json_path == ".metadata.creationTimestamp");
}

TEST_CASE("CRD validation names the bad fields") {
  json crd = crontab_crd();
  crd["metadata"]["name"] = "wrong";
  crd["spec"]["scope"] = "Global";
  crd["spec"]["versions"][1]["storage"] = true;
  crd["spec"]["versions"][2]["schema"] = json::object();
  const auto causes = kw::crd::validate_definition(crd);
  std::vector<std::string> fields;
  for (const auto& c : causes) fields.push_back(c["field"]);
  CHECK(fields == std::vector<std::string>{"spec.scope", "spec.versions[2].schema.openAPIV3Schema", "spec.versions",
                                           "metadata.name"});
}

TEST_CASE("an established CRD has accepted names and conditions") {
  const json crd = kw::crd::with_established_status(crontab_crd(), "2024-01-01T00:00:00Z");
  CHECK(crd["status"]["acceptedNames"]["kind"] == "CronTab");
  CHECK(crd["status"]["acceptedNames"]["singular"] == "crontab");
  CHECK(crd["status"]["storedVersions"] == json({"v1"}));
  REQUIRE(crd["status"]["conditions"].size() == 2);
  CHECK(crd["status"]["conditions"][1]["type"] == "Established");
  CHECK(crd["status"]["conditions"][1]["status"] == "True");
}

TEST_CASE("the scale subresource: paths parsed into the table entry and validated") {
  json crd = crontab_crd();
  crd["spec"]["versions"][0]["subresources"]["scale"] = {
      {"specReplicasPath", ".spec.replicas"}, {"statusReplicasPath", ".status.replicas"},
      {"labelSelectorPath", ".status.selector"}};
  REQUIRE(kw::crd::validate_definition(crd).empty());
  const auto infos = kw::crd::parse_definition(crd)->resource_infos();
  REQUIRE(infos[0].has_subresource("scale"));
  REQUIRE(infos[0].scale.has_value());
  CHECK(infos[0].scale->spec_replicas == ".spec.replicas");
  CHECK(infos[0].scale->label_selector == ".status.selector");
  CHECK_FALSE(infos[0].scale->selector_from_spec);
  CHECK_FALSE(infos[1].scale.has_value());

  crd["spec"]["versions"][0]["subresources"]["scale"] = {
      {"specReplicasPath", ".status.replicas"}, {"statusReplicasPath", ".status.items[0]"},
      {"labelSelectorPath", ".metadata.labels"}};
  const auto causes = kw::crd::validate_definition(crd);
  std::vector<std::string> fields;
  for (const auto& cause : causes) fields.push_back(cause["field"]);
  CHECK(fields == std::vector<std::string>{"spec.versions[0].subresources.scale.specReplicasPath",
                                           "spec.versions[0].subresources.scale.statusReplicasPath",
                                           "spec.versions[0].subresources.scale.labelSelectorPath"});
  crd["spec"]["versions"][0]["subresources"]["scale"] = json::object();
  CHECK(kw::crd::validate_definition(crd).size() == 2);  // both replicas paths are required
}
