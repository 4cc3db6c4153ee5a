#include <doctest/doctest.h>

#include "cli/client/openapi_schemas.hpp"

using nlohmann::json;

TEST_CASE("unknown fields are found through $ref, allOf, lists and maps, in kubectl's wording") {
  const json document = json::parse(R"({"components": {"schemas": {
    "io.k8s.api.core.v1.Pod": {
      "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "Pod"}],
      "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                     "metadata": {"allOf": [{"$ref": "#/components/schemas/Meta"}]},
                     "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
    "Meta": {"properties": {"name": {"type": "string"},
                            "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
    "io.k8s.api.core.v1.PodSpec": {"properties": {
      "containers": {"type": "array", "items": {"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}},
      "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
    "io.k8s.api.core.v1.Container": {"properties": {"name": {"type": "string"}}}}}})");
  const kw::cli::Schemas schemas(document);
  std::string name;
  const json* schema = schemas.of_kind("", "v1", "Pod", &name);
  REQUIRE(schema != nullptr);
  CHECK(name == "io.k8s.api.core.v1.Pod");
  const json pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "extra": 1,
    "metadata": {"name": "p", "labels": {"any": "x"}, "bad": 2},
    "spec": {"containers": [{"name": "a"}, {"name": "b", "foo": 1}], "free": {"anything": 1}}})");
  CHECK(kw::cli::unknown_fields(schemas, *schema, pod, "Pod", name) ==
        std::vector<std::string>{"ValidationError(Pod): unknown field \"extra\" in io.k8s.api.core.v1.Pod",
                                 "ValidationError(Pod.metadata): unknown field \"bad\" in Meta",
                                 "ValidationError(Pod.spec.containers[1]): unknown field \"foo\" in "
                                 "io.k8s.api.core.v1.Container"});
}
