// The CustomResourceDefinition schemas: kube-apiserver's definition names (the Go path's
// dashes), the JSON keys of JSONSchemaProps, the description-only schemas of the JSON shapes
// OpenAPI cannot state, and the required fields and list markers kubectl validates against.
#include <doctest/doctest.h>

#include "core/proto/schema_notes.hpp"
#include "openapi_test_support.hpp"
#include "server/http/openapi_build.hpp"

namespace {

using nlohmann::json;
using namespace kw::http::openapi::test;

constexpr std::string_view k_prefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.";
constexpr std::string_view k_package = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.";

std::string name(std::string_view message) { return std::string(k_prefix) + std::string(message); }

const json& apiextensions_v3() {
  static const json doc = kw::http::openapi_v3_document(table(), "apis/apiextensions.k8s.io/v1");
  return doc;
}

}  // namespace

TEST_CASE("definition names keep the dashes of the Go import path") {
  using kw::http::openapi::definition_name;
  CHECK(definition_name("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition") ==
        name("CustomResourceDefinition"));
  CHECK(definition_name("k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService") ==
        "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService");
  CHECK(definition_name("k8s.io.api.core.v1.Pod") == "io.k8s.api.core.v1.Pod");
  CHECK(definition_name("k8s.io.apimachinery.pkg.util.intstr.IntOrString") ==
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  for (const json* doc : {&v2(), &apiextensions_v3()}) {
    const json& crd = schema(*doc, name("CustomResourceDefinition"));
    CHECK(crd["x-kubernetes-group-version-kind"] ==
          json::array({{{"group", "apiextensions.k8s.io"}, {"kind", "CustomResourceDefinition"}, {"version", "v1"}}}));
    CHECK(crd["required"] == json{"spec"});
    CHECK(crd["properties"].contains("spec"));
    CHECK(crd["properties"].contains("status"));
    CHECK(schema(*doc, name("CustomResourceDefinitionList"))["required"] == json{"items"});
  }
  CHECK(v2()["definitions"].contains("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"));
  CHECK_FALSE(v2()["definitions"].contains("io.k8s.apiextensions.v1.CustomResourceDefinition"));
}

TEST_CASE("JSONSchemaProps properties are its JSON keys, with their markers") {
  for (const json* doc : {&v2(), &apiextensions_v3()}) {
    const json& properties = schema(*doc, name("JSONSchemaProps"))["properties"];
    for (const char* key : {"$ref", "$schema", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
                            "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
                            "x-kubernetes-map-type", "x-kubernetes-validations", "default", "enum", "not", "items"}) {
      CHECK_MESSAGE(properties.contains(key), key);
    }
    for (const char* key : {"ref", "schema", "xKubernetesPreserveUnknownFields", "xKubernetesValidations"})
      CHECK_MESSAGE(!properties.contains(key), key);
    CHECK(properties["$ref"]["type"] == "string");
    CHECK(properties["maximum"]["type"] == "number");
    CHECK(properties["maximum"]["format"] == "double");
    CHECK(properties["properties"]["type"] == "object");
    const json& validations = properties["x-kubernetes-validations"];
    CHECK(validations["x-kubernetes-list-type"] == "map");
    CHECK(validations["x-kubernetes-list-map-keys"] == json{"rule"});
    CHECK(validations["x-kubernetes-patch-merge-key"] == "rule");
    CHECK(validations["x-kubernetes-patch-strategy"] == "merge");
    CHECK(properties["enum"]["x-kubernetes-list-type"] == "atomic");
  }
}

TEST_CASE("JSON and the schema-or-something messages are published with their description only") {
  for (const char* message :
       {"JSON", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray"}) {
    CAPTURE(message);
    const std::string_view description = kw::proto::comment_of(std::string(k_package) + message);
    REQUIRE_FALSE(description.empty());
    CHECK(schema(v2(), name(message)) == json{{"description", description}});
    CHECK(schema(apiextensions_v3(), name(message)) == json{{"description", description}});
  }
  // The v2 protobuf form kubectl parses carries them as description-only schemas too.
  kw::http::OpenApiDocuments documents;
  const std::string& document = documents.documents(table())->v2_protobuf.body;
  const auto definitions = fields(fields(document, 9).at(0), 1);
  const std::string json_schema = named(definitions, name("JSON"));
  CHECK(fields(json_schema, 4) ==
        std::vector<std::string>{std::string(kw::proto::comment_of(std::string(k_package) + "JSON"))});
  CHECK(fields(json_schema, 22).empty());
}

TEST_CASE("CustomResourceDefinition required fields are kube-apiserver's") {
  const json& doc = apiextensions_v3();
  CHECK(schema(doc, name("CustomResourceDefinitionSpec"))["required"] == json{"group", "names", "scope", "versions"});
  CHECK(schema(doc, name("CustomResourceDefinitionNames"))["required"] == json{"plural", "kind"});
  CHECK(schema(doc, name("CustomResourceDefinitionVersion"))["required"] == json{"name", "served", "storage"});
  CHECK(schema(doc, name("CustomResourceColumnDefinition"))["required"] == json{"name", "type", "jsonPath"});
  CHECK(schema(doc, name("CustomResourceSubresourceScale"))["required"] ==
        json{"specReplicasPath", "statusReplicasPath"});
  CHECK(schema(doc, name("CustomResourceConversion"))["required"] == json{"strategy"});
  CHECK(schema(doc, name("WebhookConversion"))["required"] == json{"conversionReviewVersions"});
  CHECK(schema(doc, name("ServiceReference"))["required"] == json{"namespace", "name"});
  CHECK(schema(doc, name("ValidationRule"))["required"] == json{"rule"});
  CHECK(schema(doc, name("SelectableField"))["required"] == json{"jsonPath"});
  CHECK_FALSE(schema(doc, name("CustomResourceDefinitionStatus")).contains("required"));
  CHECK_FALSE(schema(doc, name("JSONSchemaProps")).contains("required"));
  const json& conditions = schema(doc, name("CustomResourceDefinitionStatus"))["properties"]["conditions"];
  CHECK(conditions["x-kubernetes-list-type"] == "map");
  CHECK(conditions["x-kubernetes-list-map-keys"] == json{"type"});
  CHECK(schema(doc, name("CustomResourceDefinitionSpec"))["properties"]["versions"]["x-kubernetes-list-type"] ==
        "atomic");
}
