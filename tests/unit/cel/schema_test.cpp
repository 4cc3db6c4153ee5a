// Declared schemas: compile-time field checks, property-name escaping, typed strings, and
// rules evaluated over a realistic Deployment viewed in place.
#include <doctest/doctest.h>

#include "unit/cel/support.hpp"

using cel_test::compile_error;
using nlohmann::json;

namespace {

json widget_schema() {
  return json::parse(R"json({
    "type": "object",
    "properties": {
      "spec": {
        "type": "object",
        "required": ["replicas"],
        "properties": {
          "replicas": {"type": "integer"},
          "ratio": {"type": "number"},
          "port": {"x-kubernetes-int-or-string": true},
          "created": {"type": "string", "format": "date-time"},
          "day": {"type": "string", "format": "date"},
          "timeout": {"type": "string", "format": "duration"},
          "blob": {"type": "string", "format": "byte"},
          "name": {"type": "string", "maxLength": 20},
          "tags": {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 10}},
          "labels": {"type": "object", "additionalProperties": {"type": "string"}},
          "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
          "foo-bar": {"type": "string"},
          "a.b": {"type": "string"},
          "x/y": {"type": "string"},
          "__x": {"type": "string"},
          "namespace": {"type": "string"},
          "in": {"type": "string"},
          "1abc": {"type": "string"},
          "a@b": {"type": "string"},
          "items": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "size": {"type": "integer"}}}},
          "nested": {"type": "object", "x-kubernetes-embedded-resource": true,
                     "properties": {"spec": {"type": "object"}}}
        }
      }
    }
  })json");
}

json widget() {
  return json::parse(R"json({
    "apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w", "labels": {"app": "web"}},
    "spec": {
      "replicas": 3, "ratio": 1, "port": "http",
      "created": "2024-01-02T03:04:05Z", "day": "2024-02-03", "timeout": "1m30s",
      "blob": "aGVsbG8=", "name": "widget", "tags": ["a", "b"],
      "labels": {"app": "web", "tier": "front"}, "free": {"anything": {"deep": 1}},
      "foo-bar": "dash", "a.b": "dot", "x/y": "slash", "__x": "under",
      "namespace": "ns", "in": "kw",
      "items": [{"name": "a", "size": 1}, {"name": "b", "size": 2}],
      "nested": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    }
  })json");
}

kw::cel::Env widget_env() {
  return {.variables = {{.name = "self", .schema = widget_schema(), .resource_root = true},
                        {.name = "oldSelf", .schema = widget_schema(), .resource_root = true}}};
}

std::string eval_widget(std::string_view source, const json& object) {
  auto program = kw::cel::compile(source, widget_env());
  if (!program) return "compile: " + program.error().message;
  kw::cel::MapActivation activation;
  activation.bind_json("self", object).bind_json("oldSelf", object);
  auto result = program->evaluate(activation);
  if (!result) return "error: " + result.error().message;
  return result->value.debug_string();
}

}  // namespace

TEST_CASE("property names are escaped as Kubernetes escapes them") {
  CHECK(kw::cel::escape_property("foo-bar") == "foo__dash__bar");
  CHECK(kw::cel::escape_property("a.b") == "a__dot__b");
  CHECK(kw::cel::escape_property("x/y") == "x__slash__y");
  CHECK(kw::cel::escape_property("__x") == "__underscores__x");
  CHECK(kw::cel::escape_property("a___b") == "a__underscores___b");
  CHECK(kw::cel::escape_property("namespace") == "__namespace__");
  CHECK(kw::cel::escape_property("in") == "__in__");
  CHECK(kw::cel::escape_property("int") == "int");
  CHECK(kw::cel::escape_property("self") == "self");
  CHECK_FALSE(kw::cel::escape_property("1abc"));
  CHECK_FALSE(kw::cel::escape_property(""));
  CHECK_FALSE(kw::cel::escape_property("a@b"));
  CHECK(kw::cel::unescape_property("foo__dash__bar") == "foo-bar");
  CHECK(kw::cel::unescape_property("__namespace__") == "namespace");
  CHECK(kw::cel::unescape_property("__underscores__x") == "__x");
  CHECK(kw::cel::unescape_property("a__dot__b__slash__c") == "a.b/c");
  CHECK_FALSE(kw::cel::unescape_property("a__bogus__b"));
}

TEST_CASE("fields are checked against the schema") {
  auto env = widget_env();
  CHECK(compile_error("self.spec.replicas > 1", env) == "");
  CHECK(compile_error("self.spec.replicass > 1", env) ==
        "ERROR: <input>:1:10: undefined field 'replicass'\n"
        " | self.spec.replicass > 1\n"
        " | .........^");
  CHECK(compile_error("has(self.spec.nope)", env).find("undefined field 'nope'") != std::string::npos);
  CHECK(compile_error("self.spec.foo-bar == ''", env).find("undefined field 'foo'") != std::string::npos);
  CHECK(compile_error("self.spec.foo__dash__bar == ''", env) == "");
  CHECK(compile_error("self.spec.__namespace__ == ''", env) == "");
  CHECK(compile_error("self.spec.labels.anything == ''", env) == "");  // a map, any key
  CHECK(compile_error("self.spec.free.anything.deep == 1", env) == "");  // unknown fields kept
  CHECK(compile_error("self.spec.tags.all(t, t.size() < 5)", env) == "");
  CHECK(compile_error("self.spec.tags[0].x", env) == "");  // a string: found at run time
  CHECK(compile_error("self.metadata.name == 'x'", env) == "");
  CHECK(compile_error("self.metadata.generateName == 'x'", env) == "");
  CHECK(compile_error("self.metadata.labels == {}", env).find("undefined field 'labels'") !=
        std::string::npos);
  CHECK(compile_error("self.apiVersion + self.kind", env) == "");
  CHECK(compile_error("self.spec.nested.kind + self.spec.nested.metadata.name", env) == "");
  CHECK(compile_error("self.spec.nested.spec.x", env).find("undefined field 'x'") !=
        std::string::npos);
  CHECK(compile_error("self.spec.replicas == oldSelf.spec.replicas", env) == "");
  CHECK(compile_error("self.spec.items.all(i, i.name != '')", env) == "");
  CHECK(compile_error("self.spec.items.all(i, i.nme != '')", env).find("undefined field 'nme'") !=
        std::string::npos);
  CHECK(compile_error("self.spec.items[0].sise", env).find("undefined field 'sise'") != std::string::npos);
  CHECK(compile_error("self.spec.__1abc__", env).find("undefined field") != std::string::npos);
  CHECK(compile_error("object.spec", env) ==
        "ERROR: <input>:1:1: undeclared reference to 'object' (in container '')\n"
        " | object.spec\n"
        " | ^");
}

TEST_CASE("escaped and reserved property names reach their JSON members") {
  json w = widget();
  CHECK(eval_widget("self.spec.foo__dash__bar", w) == "\"dash\"");
  CHECK(eval_widget("self.spec.a__dot__b", w) == "\"dot\"");
  CHECK(eval_widget("self.spec.x__slash__y", w) == "\"slash\"");
  CHECK(eval_widget("self.spec.__underscores__x", w) == "\"under\"");
  CHECK(eval_widget("self.spec.__namespace__", w) == "\"ns\"");
  CHECK(eval_widget("self.spec.__in__", w) == "\"kw\"");
  CHECK(eval_widget("has(self.spec.foo__dash__bar)", w) == "true");
  CHECK(eval_widget("self.spec.labels['app']", w) == "\"web\"");
}

TEST_CASE("schema formats type the strings") {
  json w = widget();
  CHECK(eval_widget("type(self.spec.created)", w) == "google.protobuf.Timestamp");
  CHECK(eval_widget("self.spec.created.getFullYear()", w) == "2024");
  CHECK(eval_widget("self.spec.day == timestamp('2024-02-03T00:00:00Z')", w) == "true");
  CHECK(eval_widget("self.spec.timeout == duration('90s')", w) == "true");
  CHECK(eval_widget("self.spec.blob == b'hello'", w) == "true");
  CHECK(eval_widget("type(self.spec.ratio)", w) == "double");  // a JSON 1 under "number"
  CHECK(eval_widget("type(self.spec.port) == string", w) == "true");
  CHECK(eval_widget("type(self.spec.replicas)", w) == "int");
  CHECK(eval_widget("self.spec.tags.all(t, t.size() == 1)", w) == "true");
  CHECK(eval_widget("self.spec.items.map(i, i.size).sum()", w) == "3");
  CHECK(eval_widget("self.spec.items.exists(i, i.name == 'b')", w) == "true");
  w["spec"]["port"] = 8080;
  CHECK(eval_widget("type(self.spec.port) == int ? self.spec.port < 9000 : false", w) == "true");
  w["spec"]["timeout"] = "soon";
  CHECK(eval_widget("self.spec.timeout", w) == "error: time: invalid duration \"soon\"");
}

TEST_CASE("missing fields are errors, has() is the guard") {
  json w = widget();
  w["spec"].erase("name");
  CHECK(eval_widget("self.spec.name == 'x'", w) == "error: no such key: name");
  CHECK(eval_widget("!has(self.spec.name) || self.spec.name == 'x'", w) == "true");
  CHECK(eval_widget("self.spec.?name.orValue('none')", w) == "\"none\"");
}

namespace {

json deployment() {
  json d = json::parse(R"json({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default",
                 "labels": {"app": "web", "tier": "frontend"},
                 "creationTimestamp": "2024-05-06T07:08:09Z"},
    "spec": {
      "replicas": 3,
      "selector": {"matchLabels": {"app": "web"}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
      "template": {
        "metadata": {"labels": {"app": "web"}},
        "spec": {
          "containers": [
            {"name": "app", "image": "registry/app:1.2",
             "ports": [{"containerPort": 8080, "protocol": "TCP"}],
             "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}},
            {"name": "sidecar", "image": "registry/proxy:3",
             "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}
          ]
        }
      }
    }
  })json");
  // Enough containers that a copy per evaluation would show.
  for (int i = 0; i < 200; ++i) {
    d["spec"]["template"]["spec"]["containers"].push_back(
        {{"name", "extra" + std::to_string(i)}, {"image", "registry/extra:" + std::to_string(i)}});
  }
  return d;
}

}  // namespace

TEST_CASE("rules over a Deployment viewed in place") {
  const json d = deployment();
  const json none = nullptr;
  kw::cel::Env env{.variables = {{.name = "self"}, {.name = "object"}, {.name = "oldObject"}}};
  kw::cel::MapActivation activation;
  activation.bind_json("self", d).bind_json("object", d).bind_json("oldObject", none);
  auto check = [&](std::string_view source) {
    auto program = kw::cel::compile(source, env);
    REQUIRE_MESSAGE(program, program.error().message);
    auto result = program->evaluate_bool(activation);
    REQUIRE_MESSAGE(result, result.error().message);
    return *result;
  };
  CHECK(check("self.spec.replicas <= 10"));
  CHECK_FALSE(check("self.spec.replicas > 10"));
  CHECK(check("self.spec.template.spec.containers.all(c, c.image.startsWith('registry/'))"));
  CHECK(check("has(self.metadata.labels) && 'app' in self.metadata.labels"));
  CHECK_FALSE(check("has(self.metadata.annotations)"));
  CHECK(check("self.metadata.labels.app == self.spec.selector.matchLabels.app"));
  CHECK(check("self.spec.template.spec.containers.exists_one(c, c.name == 'sidecar')"));
  CHECK(check("self.spec.template.spec.containers.filter(c, has(c.ports)).size() == 1"));
  CHECK(check("self.spec.template.spec.containers.map(c, c.name)[1] == 'sidecar'"));
  CHECK(check("self.spec.template.spec.containers.filter(c, has(c.resources)).all(c, "
              "quantity(c.resources.limits.cpu).isLessThan(quantity('1')))"));
  CHECK(check("self.spec.template.spec.containers[0].ports[0].containerPort in [80, 8080]"));
  CHECK(check("self.spec.strategy.rollingUpdate.maxSurge.endsWith('%')"));
  CHECK(check("type(self.spec.strategy.rollingUpdate.maxUnavailable) == int"));
  CHECK(check("timestamp(self.metadata.creationTimestamp).getFullYear() == 2024"));
  CHECK(check("oldObject == null"));
  CHECK(check("object.metadata.name.matches('^[a-z]+$')"));
  auto program = kw::cel::compile("self.spec.template.spec.containers.all(c, c.image != '')", env);
  auto cost = program->evaluate(activation)->cost;
  CHECK(cost > 202);
  CHECK(program->evaluate(activation, cost / 2).error().message ==
        "operation cancelled: actual cost limit exceeded");
}

TEST_CASE("a static cost estimate from the schema bounds") {
  auto env = widget_env();
  auto bounded = kw::cel::compile("self.spec.tags.all(t, t.startsWith('a'))", env);
  REQUIRE(bounded);
  auto estimate = bounded->estimate_cost();
  CHECK(estimate.max >= 5);
  CHECK(estimate.max < 1000);
  kw::cel::Env unbounded_env{.variables = {{.name = "self",
      .schema = json::parse(R"({"type": "array", "items": {"type": "string"}})")}}};
  auto unbounded = kw::cel::compile("self.all(t, t.startsWith('a'))", unbounded_env);
  REQUIRE(unbounded);
  CHECK(unbounded->estimate_cost().max > estimate.max * 1000);
  auto nested = kw::cel::compile("self.all(a, self.all(b, a == b))", unbounded_env);
  CHECK(nested->estimate_cost().max > unbounded->estimate_cost().max);
  CHECK(kw::cel::compile("1 + 1")->estimate_cost().max <= 2);
}
