// apiextensions.k8s.io/v1: the JSON shapes of JSON, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool
// and JSONSchemaPropsOrStringArray (as the Go types marshal them), the json_name keys of
// JSONSchemaProps, and whole CustomResourceDefinitions, JSON -> protobuf -> JSON.
#include <doctest/doctest.h>
#include <google/protobuf/descriptor.h>

#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "test_support.hpp"

using nlohmann::json;

namespace {

constexpr std::string_view k_schema = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";
constexpr std::string_view k_crd = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition";

// `schema` as JSONSchemaProps, JSON -> protobuf -> JSON, strictly.
json schema_round_trip(const json& schema) {
  auto encoded = kw::codec::json_to_protobuf(schema, k_schema, kw::codec::FieldValidation::Strict);
  REQUIRE_MESSAGE(encoded, (encoded ? "" : encoded.error().message));
  CHECK(encoded->warnings.empty());
  auto decoded = kw::codec::protobuf_to_json(encoded->bytes, k_schema);
  REQUIRE_MESSAGE(decoded, (decoded ? "" : decoded.error().message));
  return *decoded;
}

std::string schema_bytes(const json& schema) {
  auto encoded = kw::codec::json_to_protobuf(schema, k_schema);
  REQUIRE_MESSAGE(encoded, (encoded ? "" : encoded.error().message));
  return *encoded;
}

constexpr std::string_view k_definition = R"json({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.com", "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.0"}},
  "spec": {
    "group": "example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
              "shortNames": ["wd"], "categories": ["all"]},
    "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
      "clientConfig": {"service": {"namespace": "system", "name": "webhook", "path": "/convert", "port": 9443},
                       "caBundle": "Y2E="}}},
    "versions": [{
      "name": "v1", "served": true, "storage": true, "deprecated": true, "deprecationWarning": "use v2",
      "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                                               "labelSelectorPath": ".status.selector"}},
      "additionalPrinterColumns": [{"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status",
                                    "priority": 1, "description": "readiness"}],
      "selectableFields": [{"jsonPath": ".spec.color"}],
      "schema": {"openAPIV3Schema": {
        "type": "object", "description": "A widget.",
        "required": ["spec"],
        "properties": {
          "spec": {"type": "object", "required": ["color"],
            "x-kubernetes-validations": [{"rule": "self.replicas <= 10", "message": "too many", "reason": "FieldValueForbidden",
                                          "fieldPath": ".replicas", "optionalOldSelf": true, "messageExpression": "'x'"}],
            "properties": {
              "color": {"type": "string", "enum": ["red", "green", null], "nullable": true, "default": "red"},
              "replicas": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "multipleOf": 0.5,
                           "exclusiveMaximum": true},
              "size": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}],
                       "pattern": "^[0-9]+$", "maxLength": 10, "minLength": 1},
              "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                        "maxItems": 4, "minItems": 1, "uniqueItems": true,
                        "items": {"type": "object", "required": ["port"], "properties": {"port": {"type": "integer"}}}},
              "labels": {"type": "object", "x-kubernetes-map-type": "atomic", "maxProperties": 8, "minProperties": 0,
                         "additionalProperties": {"type": "string"}},
              "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                           "x-kubernetes-preserve-unknown-fields": true},
              "config": {"type": "object", "default": {"mode": "fast", "limits": [1, 2.5]},
                         "example": {"mode": "slow"}, "additionalProperties": false,
                         "externalDocs": {"description": "more", "url": "https://example.com"}}
            }},
          "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }}}
    }],
    "preserveUnknownFields": false
  },
  "status": {"conditions": [{"type": "Established", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z",
                             "reason": "InitialNamesAccepted", "message": "the initial names have been accepted",
                             "observedGeneration": 1}],
             "acceptedNames": {"plural": "widgets", "kind": "Widget"}, "storedVersions": ["v1"], "observedGeneration": 1}
})json";

}  // namespace

TEST_CASE("JSON: any value, its compact text in raw on the wire") {
  for (const char* text : {R"({"a": {"b": [1, "x", true]}})", R"([1, 2.5, "three", null])", R"("text")", "42", "-7",
                           "2.5", "true", "false", "{}", "[]"}) {
    CAPTURE(text);
    const json value = json::parse(text);
    CHECK(schema_round_trip({{"default", value}, {"example", value}}) == json{{"default", value}, {"example", value}});
    // JSONSchemaProps{default = 8 JSON{raw = 1 "<text>"}}.
    const std::string raw = value.dump();
    CHECK(schema_bytes({{"default", value}}) == kw::test::ld(0x42, kw::test::ld(0x0a, raw)));
  }
  // A null default is no default, as a nil *JSON in Go; a null enum member stays.
  CHECK(schema_round_trip({{"default", nullptr}}) == json::object());
  CHECK(schema_round_trip({{"enum", {nullptr, "a", 1}}}) == json{{"enum", {nullptr, "a", 1}}});
  // Raw bytes that are not JSON are an error, not a crash.
  auto bad = kw::codec::protobuf_to_json(kw::test::ld(0x42, kw::test::ld(0x0a, "{nope")), k_schema);
  CHECK_FALSE(bad);
}

TEST_CASE("JSONSchemaPropsOrArray: a schema object or an array of schemas") {
  const json one = {{"items", {{"type", "string"}}}};
  CHECK(schema_round_trip(one) == one);
  // items{schema = 1 {type "string"}}.
  CHECK(schema_bytes(one) == std::string("\xc2\x01\x0a", 3) + kw::test::ld(0x0a, kw::test::ld(0x2a, "string")));
  const json tuple = {{"items", json::array({{{"type", "string"}}, {{"type", "integer"}}})}};
  CHECK(schema_round_trip(tuple) == tuple);
  // items{jSONSchemas = 2, twice}.
  CHECK(schema_bytes(tuple).find(kw::test::ld(0x12, kw::test::ld(0x2a, "integer"))) != std::string::npos);
  // Go reads other values and empty arrays as an empty OrArray, which it writes as null.
  CHECK(schema_round_trip({{"items", json::array()}}) == json{{"items", nullptr}});
  CHECK(schema_round_trip({{"items", "string"}}) == json{{"items", nullptr}});
  // A schema inside is checked like any other.
  auto typo =
      kw::codec::json_to_protobuf(json{{"items", {{"tpye", "string"}}}}, k_schema, kw::codec::FieldValidation::Strict);
  REQUIRE_FALSE(typo);
  CHECK(typo.error().message.find("items.tpye") != std::string::npos);
}

TEST_CASE("JSONSchemaPropsOrBool: a boolean or a schema object") {
  for (bool allows : {true, false}) {
    const json value = {{"additionalProperties", allows}, {"additionalItems", allows}};
    CHECK(schema_round_trip(value) == value);
  }
  // additionalProperties{allows = 1 false}: Go writes the boolean even when false.
  CHECK(schema_bytes({{"additionalProperties", false}}) == std::string("\xf2\x01\x02\x08\x00", 5));
  const json nested = {{"additionalProperties", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}};
  CHECK(schema_round_trip(nested) == nested);
  // A schema allows: additionalProperties{allows = 1 true, schema = 2 {type "string"}}.
  const std::string inner = std::string("\x08\x01", 2) + kw::test::ld(0x12, kw::test::ld(0x2a, "string"));
  CHECK(schema_bytes({{"additionalProperties", {{"type", "string"}}}}) ==
        std::string("\xf2\x01", 2) + static_cast<char>(inner.size()) + inner);
  // Anything else is refused, as Go's UnmarshalJSON refuses it.
  auto wrong = kw::codec::json_to_protobuf(json{{"additionalProperties", "yes"}}, k_schema);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message.find("additionalProperties: expected a boolean or a schema object") != std::string::npos);
  // Go-written bytes with neither field read as false.
  CHECK(*kw::codec::protobuf_to_json(std::string("\xf2\x01\x00", 3), k_schema) ==
        json{{"additionalProperties", false}});
}

TEST_CASE("JSONSchemaPropsOrStringArray: a schema object or an array of property names") {
  const json value = {{"dependencies", {{"billing", {"address", "card"}}, {"card", {{"required", {"billing"}}}}}}};
  CHECK(schema_round_trip(value) == value);
  // dependencies is a map: entry{key = 1 "billing", value = 2 {property = 2 "address", "card"}}.
  const std::string names = kw::test::ld(0x12, "address") + kw::test::ld(0x12, "card");
  CHECK(schema_bytes({{"dependencies", {{"billing", {"address", "card"}}}}}) ==
        std::string("\x82\x02", 2) + static_cast<char>(names.size() + 11) + kw::test::ld(0x0a, "billing") +
            kw::test::ld(0x12, names));
  // Empty or other values come back null, as Go writes an empty OrStringArray.
  CHECK(schema_round_trip({{"dependencies", {{"a", json::array()}, {"b", nullptr}}}}) ==
        json{{"dependencies", {{"a", nullptr}, {"b", nullptr}}}});
}

TEST_CASE("JSONSchemaProps keys that are not field names: $ref, $schema and the x-kubernetes extensions") {
  const json value =
      json::parse(R"({"$ref": "#/definitions/a", "$schema": "http://json-schema.org/draft-04/schema#", "id": "x",
    "x-kubernetes-preserve-unknown-fields": false, "x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true,
    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "protocol"], "x-kubernetes-map-type": "granular",
    "x-kubernetes-validations": [{"rule": "self.a > 0"}]})");
  CHECK(schema_round_trip(value) == value);
  // Field 3 (ref) and 38 (xKubernetesPreserveUnknownFields) on the wire.
  CHECK(schema_bytes({{"$ref", "r"}}) == kw::test::ld(0x1a, "r"));
  CHECK(schema_bytes({{"x-kubernetes-preserve-unknown-fields", true}}) == std::string("\xb0\x02\x01", 3));
  // The proto names are not JSON keys.
  for (const char* key : {"ref", "schema", "xKubernetesPreserveUnknownFields", "xKubernetesValidations"}) {
    CAPTURE(key);
    auto strict = kw::codec::json_to_protobuf(json{{key, true}}, k_schema, kw::codec::FieldValidation::Strict);
    REQUIRE_FALSE(strict);
    CHECK(strict.error().message.find(std::string("unknown field \"") + key + "\"") != std::string::npos);
  }
  // json_key is the explicit json_name only: other fields keep their proto names.
  const auto* schema = kw::proto::find_message(k_schema);
  REQUIRE(schema != nullptr);
  CHECK(kw::codec::json_key(*schema->FindFieldByName("xKubernetesListMapKeys")) == "x-kubernetes-list-map-keys");
  CHECK(kw::codec::json_key(*schema->FindFieldByName("maxLength")) == "maxLength");
  CHECK(kw::codec::json_field(*schema, "$ref") == schema->FindFieldByName("ref"));
  CHECK(kw::codec::json_field(*schema, "ref") == nullptr);
  const auto* pod = kw::proto::find_message("k8s.io.api.core.v1.Pod");
  for (int i = 0; i < pod->field_count(); ++i) CHECK_FALSE(pod->field(i)->has_json_name());
}

TEST_CASE("JSONSchemaProps numbers: doubles come back as Go writes a float64") {
  const json value = json::parse(R"({"minimum": 0, "maximum": 65535, "multipleOf": 0.01})");
  const json back = schema_round_trip(value);
  CHECK(back == value);
  CHECK(back["maximum"].is_number_integer());
  CHECK(back.dump() == R"({"maximum":65535,"minimum":0,"multipleOf":0.01})");
  CHECK(schema_round_trip({{"minimum", -1.5e300}})["minimum"] == -1.5e300);
}

TEST_CASE("a whole CustomResourceDefinition round trips, and a misspelled field is caught") {
  const json definition = json::parse(k_definition);
  REQUIRE(kw::codec::builtin_message_for("apiextensions.k8s.io/v1", "CustomResourceDefinition") == std::string(k_crd));
  auto encoded =
      kw::codec::encode_object_protobuf(definition, kw::test::k_builtin_lookup, kw::codec::FieldValidation::Strict);
  REQUIRE_MESSAGE(encoded, (encoded ? "" : encoded.error().message));
  CHECK(encoded->warnings.empty());
  auto decoded = kw::codec::decode_object_protobuf(encoded->bytes, kw::test::k_builtin_lookup);
  REQUIRE_MESSAGE(decoded, (decoded ? "" : decoded.error().message));
  if (*decoded != definition) MESSAGE("diff: " << json::diff(definition, *decoded).dump());
  CHECK(*decoded == definition);

  json typo = definition;
  typo["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"]["defualt"] =
      "x";
  auto strict = kw::codec::encode_object_protobuf(typo, kw::test::k_builtin_lookup, kw::codec::FieldValidation::Strict);
  REQUIRE_FALSE(strict);
  CHECK(strict.error().message.find(
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[color].defualt") != std::string::npos);
  auto warned = kw::codec::encode_object_protobuf(typo, kw::test::k_builtin_lookup, kw::codec::FieldValidation::Warn);
  REQUIRE(warned);
  CHECK(warned->warnings.size() == 1);
}
