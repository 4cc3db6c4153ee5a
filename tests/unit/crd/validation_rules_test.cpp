// x-kubernetes-validations: where each rule runs, which old value a transition rule sees, and the
// causes in kube's words.
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "server/crd/validation_rules.hpp"

namespace kw::crd::test {

namespace {

using nlohmann::json;
using Causes = std::set<std::pair<std::string, std::string>>;

Causes run(const json& schema, const json& object, const json* old = nullptr) {
  json causes = json::array();
  ValidationRules::compile(schema)->validate(object, old, causes);
  Causes out;
  for (const auto& cause : causes) out.emplace(cause["field"], cause["message"]);
  return out;
}

json rules(std::initializer_list<json> list) { return json(list); }

}  // namespace

TEST_CASE("validation rules: no rules, nothing compiled") {
  CHECK(ValidationRules::compile(json{{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}})->empty());
}

TEST_CASE("validation rules: the value at the rule's place is self") {
  const json schema = {{"type", "object"},
                       {"x-kubernetes-validations", rules({{{"rule", "self.a < self.b"}}})},
                       {"properties",
                        {{"a", {{"type", "integer"}}},
                         {"b", {{"type", "integer"}}},
                         {"s", {{"type", "string"}, {"x-kubernetes-validations", rules({{{"rule", "self != 'x'"}, {"message", "no x"}}})}}}}}};
  CHECK(run(schema, {{"a", 1}, {"b", 2}, {"s", "y"}}).empty());
  CHECK(run(schema, {{"a", 3}, {"b", 2}, {"s", "x"}}) ==
        Causes{{"<nil>", R"(Invalid value: "object": failed rule: self.a < self.b)"},
               {"s", R"(Invalid value: "string": no x)"}});
  CHECK(run(schema, {{"a", 1}}) ==
        Causes{{"<nil>", R"(Invalid value: "object": no such key: b evaluating rule: self.a < self.b)"}});
}

TEST_CASE("validation rules: null values are not checked") {
  const json schema = {{"type", "object"},
                       {"properties", {{"s", {{"type", "string"}, {"nullable", true},
                                              {"x-kubernetes-validations", rules({{{"rule", "self.size() > 3"}}})}}}}}};
  CHECK(run(schema, {{"s", nullptr}}).empty());
  CHECK(run(schema, {{"s", "ab"}}).size() == 1);
}

TEST_CASE("validation rules: transition rules see the correlated old value") {
  const json port = {{"type", "integer"}, {"x-kubernetes-validations", rules({{{"rule", "self >= oldSelf"}}})}};
  const json schema = {
      {"type", "object"},
      {"properties",
       {{"ports", {{"type", "array"}, {"x-kubernetes-list-type", "map"}, {"x-kubernetes-list-map-keys", {"name"}},
                   {"items", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}, {"port", port}}}}}}},
        {"byName", {{"type", "object"}, {"additionalProperties", port}}},
        {"plain", {{"type", "array"}, {"items", port}}}}}};
  const json old = {{"ports", {{{"name", "a"}, {"port", 10}}, {{"name", "b"}, {"port", 10}}}},
                    {"byName", {{"x", 5}}},
                    {"plain", {7}}};
  CHECK(run(schema, old).empty());  // a create: no old value, the rules do not run
  const json now = {{"ports", {{{"name", "b"}, {"port", 11}}, {{"name", "a"}, {"port", 9}}, {{"name", "c"}, {"port", 1}}}},
                    {"byName", {{"x", 4}, {"y", 1}}},
                    {"plain", {1}}};  // atomic list: nothing correlates
  CHECK(run(schema, now, &old) ==
        Causes{{"ports[1].port", R"(Invalid value: "integer": failed rule: self >= oldSelf)"},
               {"byName[x]", R"(Invalid value: "integer": failed rule: self >= oldSelf)"}});
}

TEST_CASE("validation rules: a rule without oldSelf ratchets on a value the update left as it was") {
  const json small = {{"type", "integer"}, {"x-kubernetes-validations", rules({{{"rule", "self < 5"}}})}};
  const json grow = {{"type", "integer"}, {"x-kubernetes-validations", rules({{{"rule", "self > oldSelf"}}})}};
  const json schema = {{"type", "object"}, {"properties", {{"a", small}, {"b", small}, {"c", grow}}}};
  const json old = {{"a", 9}, {"b", 9}, {"c", 3}};
  CHECK(run(schema, old).size() == 2);  // created today, a and b would be refused
  // a is unchanged and ratchets; b changed and is checked; the transition rule on c is not
  // ratcheted and runs on its unchanged value too.
  const json now = {{"a", 9}, {"b", 8}, {"c", 3}};
  CHECK(run(schema, now, &old) == Causes{{"b", R"(Invalid value: "integer": failed rule: self < 5)"},
                                         {"c", R"(Invalid value: "integer": failed rule: self > oldSelf)"}});
}

TEST_CASE("validation rules: optionalOldSelf runs without an old value too") {
  const json schema = {{"type", "object"},
                       {"properties",
                        {{"n", {{"type", "integer"},
                                {"x-kubernetes-validations",
                                 rules({{{"rule", "oldSelf.hasValue() ? self >= oldSelf.value() : self < 10"},
                                         {"optionalOldSelf", true}, {"message", "bad n"}}})}}}}}};
  CHECK(run(schema, {{"n", 5}}).empty());
  CHECK(run(schema, {{"n", 50}}) == Causes{{"n", R"(Invalid value: "integer": bad n)"}});
  const json old = {{"n", 60}};
  CHECK(run(schema, {{"n", 70}}, &old).empty());
  CHECK(run(schema, {{"n", 50}}, &old).size() == 1);

  json unset = schema;  // optionalOldSelf: null is false: a plain transition rule
  unset["properties"]["n"]["x-kubernetes-validations"][0]["rule"] = "self >= oldSelf";
  unset["properties"]["n"]["x-kubernetes-validations"][0]["optionalOldSelf"] = nullptr;
  CHECK(run(unset, {{"n", 50}}).empty());
  CHECK(run(unset, {{"n", 50}}, &old) == Causes{{"n", R"(Invalid value: "integer": bad n)"}});

  json causes = json::array();
  json unused = schema;
  unused["properties"]["n"]["x-kubernetes-validations"][0]["rule"] = "self > 0";
  check_rules(unused, "root", causes);
  REQUIRE(causes.size() == 1);
  CHECK(causes[0]["field"] == "root.properties[n].x-kubernetes-validations[0].optionalOldSelf");
  CHECK(causes[0]["message"] == "Invalid value: true: may not be set if oldSelf is not used in rule");
}

TEST_CASE("validation rules: reason, fieldPath and messageExpression") {
  const json schema = {
      {"type", "object"},
      {"x-kubernetes-validations",
       rules({{{"rule", "self.n <= 3"}, {"reason", "FieldValueForbidden"}, {"fieldPath", ".n"},
               {"messageExpression", "'n is ' + string(self.n)"}},
              {{"rule", "self.n != 5"}, {"reason", "FieldValueRequired"}, {"message", "not five"}},
              {{"rule", "self.n != 5"}, {"reason", "FieldValueDuplicate"}},
              {{"rule", "self.n != 5"}, {"messageExpression", "1"}, {"message", "fallback"}}})},
      {"properties", {{"n", {{"type", "integer"}}}}}};
  CHECK(run(schema, {{"n", 5}}) == Causes{{"n", "Forbidden: n is 5"},
                                          {"<nil>", "Required value: not five"},
                                          {"<nil>", R"(Duplicate value: "object")"},
                                          {"<nil>", R"(Invalid value: "object": fallback)"}});
}

TEST_CASE("validation rules: a rule over its cost limit stops the rest") {
  const json schema = {{"type", "object"},
                       {"properties", {{"l", {{"type", "array"}, {"items", {{"type", "integer"}}},
                                              {"x-kubernetes-validations",
                                               rules({{{"rule", "self.all(x, self.all(y, true))"}}, {{"rule", "false"}}})}}}}}};
  json many = json::array();
  for (int i = 0; i < 2000; ++i) many.push_back(i);
  const auto causes = run(schema, {{"l", many}});
  REQUIRE(causes.size() == 1);
  CHECK(causes.begin()->second.find("no further validation rules will be run due to call cost exceeds limit") !=
        std::string::npos);
}

TEST_CASE("validation rules: a definition's rule problems") {
  const json schema = {{"type", "object"},
                       {"properties", {{"a", {{"type", "integer"}}}}},
                       {"x-kubernetes-validations", rules({{{"rule", "self.b > 0"}}, {{"rule", "self.a > 0"}, {"messageExpression", "1 +"}}})}};
  json causes = json::array();
  check_rules(schema, "root", causes);
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["field"] == "root.x-kubernetes-validations[0].rule");
  CHECK(causes[0]["message"].get<std::string>().find(": compilation failed: ERROR: <input>:1:5: undefined field 'b'") !=
        std::string::npos);
  CHECK(causes[1]["field"] == "root.x-kubernetes-validations[1].messageExpression");
  CHECK(causes[1]["message"].get<std::string>().find(": messageExpression compilation failed: ERROR: <input>:1:4") !=
        std::string::npos);

  // Field problems at a level or below it keep the rules there from being compiled.
  json broken = schema;
  broken["properties"]["a"]["x-kubernetes-validations"] = rules({{{"rule", " "}}});
  causes = json::array();
  check_rules(broken, "root", causes);
  REQUIRE(causes.size() == 1);
  CHECK(causes[0] == json{{"reason", "FieldValueRequired"},
                          {"message", "Required value: rule is not specified"},
                          {"field", "root.properties[a].x-kubernetes-validations[0].rule"}});
}

TEST_CASE("validation rules: fieldPath is read against the schema, as kube reads it") {
  const json schema = {
      {"type", "object"},
      {"x-kubernetes-validations",
       rules({{{"rule", "self.spec.n <= 3"}, {"fieldPath", ".spec.n"}},
              {{"rule", "!('bad' in self.spec.labels)"}, {"fieldPath", ".spec.labels['bad']"}},
              {{"rule", "self.spec.n != 5"}, {"fieldPath", "['spec']['odd.name']"}}})},
      {"properties",
       {{"spec",
         {{"type", "object"},
          {"properties",
           {{"n", {{"type", "integer"}}},
            {"odd.name", {{"type", "string"}}},
            {"labels", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}}}}}}};
  CHECK(run(schema, {{"spec", {{"n", 5}, {"labels", {{"bad", "x"}}}}}}) ==
        // (The value is named by the type of the schema holding the rule, as in kube.)
        Causes{{"spec.n", R"(Invalid value: "object": failed rule: self.spec.n <= 3)"},
               {"spec.labels[bad]", R"(Invalid value: "object": failed rule: !('bad' in self.spec.labels))"},
               {"spec.odd.name", R"(Invalid value: "object": failed rule: self.spec.n != 5)"}});

  json causes = json::array();
  json invalid = schema;
  auto& list = invalid["x-kubernetes-validations"];
  list[0]["fieldPath"] = ".spec.nosuch";
  list[1]["fieldPath"] = "spec.n";
  list[2]["fieldPath"] = ".spec.labels[0]";
  check_rules(invalid, "root", causes);
  REQUIRE(causes.size() == 3);
  CHECK(causes[0]["field"] == "root.x-kubernetes-validations[0].fieldPath");
  CHECK(causes[0]["message"] == R"(Invalid value: ".spec.nosuch": fieldPath must be a valid path)");
  CHECK(causes[1]["message"] == R"(Invalid value: "spec.n": fieldPath must be a valid path)");
  CHECK(causes[2]["message"] == R"(Invalid value: ".spec.labels[0]": fieldPath must be a valid path)");
}

}  // namespace kw::crd::test
