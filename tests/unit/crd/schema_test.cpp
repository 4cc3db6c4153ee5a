#include <doctest/doctest.h>

#include "server/crd/schema.hpp"

using nlohmann::json;
using kw::crd::check_schema;
using kw::crd::prune_custom_object;
using kw::crd::validate_custom_object;

namespace {

const json k_schema = json::parse(R"({
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "required": ["cronSpec"],
      "properties": {
        "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
        "image": {"type": "string", "minLength": 1, "maxLength": 20},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
        "mode": {"type": "string", "enum": ["Fast", "Slow"]},
        "port": {"x-kubernetes-int-or-string": true},
        "note": {"type": "string", "nullable": true},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
        "ports": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                   "properties": {"level": {"type": "integer"}}}
      }
    },
    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
  }
})");

json object_with(json spec) {
  return {{"apiVersion", "stable.example.com/v1"},
          {"kind", "CronTab"},
          {"metadata", {{"name", "x"}, {"labels", {{"a", "b"}}}}},
          {"spec", std::move(spec)}};
}

json fields_of(const json& causes) {
  json out = json::array();
  for (const auto& c : causes) out.push_back(c["field"]);
  return out;
}

}  // namespace

TEST_CASE("a valid custom object has no causes") {
  const json object = object_with({{"cronSpec", "* * * * */5"}, {"image", "busybox"}, {"replicas", 3},
                                   {"mode", "Fast"}, {"port", "http"}, {"note", nullptr},
                                   {"tags", {"a", "bc"}}, {"labels", {{"k", "v"}}},
                                   {"config", {{"anything", {{"goes", true}}}, {"level", 2}}}});
  CHECK(validate_custom_object(k_schema, object).empty());
}

TEST_CASE("type errors name the field and both types") {
  const auto causes = validate_custom_object(k_schema, object_with({{"cronSpec", "* * * * *"}, {"replicas", "three"}}));
  REQUIRE(causes.size() == 1);
  CHECK(causes[0]["field"] == "spec.replicas");
  CHECK(causes[0]["reason"] == "FieldValueTypeInvalid");
  CHECK(causes[0]["message"] ==
        "Invalid value: \"three\": spec.replicas in body must be of type integer: \"string\"");
}

TEST_CASE("required, enum, bounds, lengths and pattern are checked") {
  const auto causes = validate_custom_object(
      k_schema, object_with({{"image", ""}, {"replicas", 11}, {"mode", "Medium"}, {"tags", {"long!"}}}));
  CHECK(fields_of(causes) == json({"spec.cronSpec", "spec.image", "spec.mode", "spec.replicas", "spec.tags[0]"}));
  CHECK(causes[0]["message"] == "Required value");
  CHECK(causes[1]["message"] == "Invalid value: \"\": spec.image in body should be at least 1 chars long");
  CHECK(causes[2]["message"] == "Unsupported value: \"Medium\": supported values: \"Fast\", \"Slow\"");
  CHECK(causes[3]["message"] == "Invalid value: 11: spec.replicas in body should be less than or equal to 10");
  CHECK(causes[4]["message"] == "Invalid value: \"long!\": spec.tags[0] in body should be at most 3 chars long");

  const auto low = validate_custom_object(k_schema, object_with({{"cronSpec", "nope"}, {"replicas", 0}}));
  CHECK(fields_of(low) == json({"spec.cronSpec", "spec.replicas"}));
  CHECK(low[1]["message"] == "Invalid value: 0: spec.replicas in body should be greater than or equal to 1");
}

TEST_CASE("nullable, int-or-string and map values") {
  auto causes = validate_custom_object(k_schema, object_with({{"cronSpec", "* * * * *"}, {"image", nullptr},
                                                              {"port", true}, {"labels", {{"k", 1}}}}));
  CHECK(fields_of(causes) == json({"spec.image", "spec.labels[k]", "spec.port"}));
  CHECK(causes[0]["message"] == "Invalid value: \"null\": spec.image in body must be of type string: \"null\"");
  CHECK(validate_custom_object(k_schema, object_with({{"cronSpec", "* * * * *"}, {"port", 8080}})).empty());
  CHECK(validate_custom_object(k_schema, object_with({{"cronSpec", "* * * * *"}, {"replicas", 2.0}})).empty());
}

TEST_CASE("pruning drops undeclared fields and keeps preserved subtrees") {
  json object = object_with({{"cronSpec", "* * * * *"}, {"bogus", 1},
                             {"ports", {{{"name", "a"}, {"extra", 1}}}},
                             {"labels", {{"free", "form"}}},
                             {"config", {{"anything", {{"goes", true}}}}}});
  object["topLevel"] = "x";
  object["status"] = {{"ready", true}, {"phase", "Up"}};
  const auto pruned = prune_custom_object(k_schema, object);
  CHECK(pruned == std::vector<std::string>{"spec.ports[0].extra", "spec.bogus", "status.phase", "topLevel"});
  CHECK_FALSE(object.contains("topLevel"));
  CHECK_FALSE(object["spec"].contains("bogus"));
  CHECK(object["spec"]["ports"][0] == json({{"name", "a"}}));
  CHECK(object["spec"]["labels"]["free"] == "form");
  CHECK(object["spec"]["config"]["anything"]["goes"] == true);
  CHECK(object["metadata"]["labels"]["a"] == "b");
  CHECK(object["apiVersion"] == "stable.example.com/v1");
  CHECK(object["status"] == json({{"ready", true}}));
}

TEST_CASE("a preserve-unknown-fields root keeps everything") {
  json schema = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  json object = object_with({{"anything", 1}});
  CHECK(prune_custom_object(schema, object).empty());
  CHECK(object["spec"]["anything"] == 1);
}

TEST_CASE("schema problems are reported with their path") {
  CHECK(check_schema(k_schema, "schema").empty());
  json bad = {{"type", "object"}, {"properties", {{"a", {{"type", "strin"}}}, {"b", {{"type", "string"}, {"pattern", "("}}}}}};
  const auto problems = check_schema(bad, "schema");
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].starts_with("schema.properties[a].type: Unsupported value: \"strin\""));
  CHECK(problems[1].starts_with("schema.properties[b].pattern: Invalid value"));
}

TEST_CASE("defaults fill missing declared fields, recursively") {
  json schema = json::parse(R"({"type": "object", "properties": {"spec": {"type": "object", "default": {},
      "properties": {"size": {"type": "integer", "default": 3},
                     "items": {"type": "array", "items": {"type": "object",
                               "properties": {"weight": {"type": "integer", "default": 1}}}}}}}})");
  json object = {{"metadata", {{"name", "x"}}}};
  kw::crd::default_custom_object(schema, object);
  CHECK(object["spec"] == json({{"size", 3}}));
  object["spec"] = {{"size", 5}, {"items", {json::object(), {{"weight", 2}}}}};
  kw::crd::default_custom_object(schema, object);
  CHECK(object["spec"]["size"] == 5);
  CHECK(object["spec"]["items"] == json({{{"weight", 1}}, {{"weight", 2}}}));
}

TEST_CASE("an update ratchets the errors of values it leaves as they were") {
  const json keyed = json::parse(R"({
    "type": "object",
    "properties": {"spec": {"type": "object", "properties": {
      "size": {"type": "integer", "maximum": 5},
      "name": {"type": "string", "maxLength": 3},
      "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                "items": {"type": "object", "properties": {"key": {"type": "string"},
                                                            "value": {"type": "integer", "minimum": 0}}}},
      "plain": {"type": "array", "items": {"type": "integer", "minimum": 0}},
      "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 2}}
    }}}
  })");
  const json old = object_with({{"size", 9},
                                {"name", "toolong"},
                                {"items", {{{"key", "a"}, {"value", -1}}}},
                                {"plain", {-1}},
                                {"tags", {"xyz"}}});
  // Created today the object would be refused for every field.
  CHECK(fields_of(validate_custom_object(keyed, old)) ==
        json::array({"spec.items[0].value", "spec.name", "spec.plain[0]", "spec.size", "spec.tags[0]"}));
  // Unchanged values pass; items correlate by key in a map list (moved to index 1) and by value
  // in a set, never by index in an atomic list.
  json next = old;
  next["metadata"]["labels"]["changed"] = "yes";
  next["spec"]["items"] = {{{"key", "b"}, {"value", 1}}, {{"key", "a"}, {"value", -1}}};
  next["spec"]["tags"] = {"ok", "xyz"};
  next["spec"]["plain"] = {-1, 2};
  CHECK(fields_of(validate_custom_object(keyed, next, &old)) == json::array({"spec.plain[0]"}));
  // A changed value is checked: a new too-big size, or an item whose value changed.
  next["spec"]["size"] = 8;
  next["spec"]["items"][1]["value"] = -2;
  CHECK(fields_of(validate_custom_object(keyed, next, &old)) ==
        json::array({"spec.items[1].value", "spec.plain[0]", "spec.size"}));
  // Without an old object (a create) nothing ratchets.
  CHECK(validate_custom_object(keyed, next).size() == 5);
}
