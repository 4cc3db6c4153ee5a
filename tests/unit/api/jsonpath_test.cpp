// kubectl's JSONPath dialect: cases from client-go's jsonpath_test.go, and the CRD printer
// columns of real installs (../shared/corpus) rendered as kube-apiserver's table convertor does.
#include <doctest/doctest.h>

#include "core/api/jsonpath.hpp"
#include "core/api/table.hpp"

using kw::api::ColumnDefinition;
using kw::api::JsonPath;
using kw::api::printer_column_cell;
using nlohmann::json;

namespace {

std::string render(std::string_view tmpl, const json& data, bool allow_missing = false) {
  auto path = JsonPath::parse(tmpl);
  if (!path) return "parse error: " + path.error().message;
  auto text = path->render(data, allow_missing);
  return text ? *text : "error: " + text.error().message;
}

const json k_types = json::parse(R"({
  "bools": [true, false, true, false], "integers": [1, 2, 3, 4], "floats": [1.0, 2.2, 3.3, 4.0],
  "strings": ["one", "two", "three", "four"], "interfaces": [true, "one", 1, 1.1],
  "maps": [{"name": "one", "value": 1}, {"name": "two", "value": 2.02},
           {"name": "three", "value": 3.03}, {"name": "four", "value": 4.04}]})");

const json k_nodes = json::parse(R"({
  "kind": "List",
  "items": [
    {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
     "status": {"capacity": {"cpu": "4"}, "ready": true,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
    {"kind": "None", "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
     "status": {"capacity": {"cpu": "8"}, "ready": false,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                              {"type": "another", "address": "127.0.0.3"}]}}],
  "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]})");

}  // namespace

TEST_CASE("jsonpath slices, indexes and value text follow client-go") {
  CHECK(render("{ .bools }", k_types) == "[true,false,true,false]");
  CHECK(render("{ .bools[-1] }", k_types) == "false");
  CHECK(render("{ .bools[:4:2] }", k_types) == "true true");
  CHECK(render("{ .integers[-2] }", k_types) == "3");
  CHECK(render("{ .integers[:4:2] }", k_types) == "1 3");
  CHECK(render("{ .floats }", k_types) == "[1,2.2,3.3,4]");
  CHECK(render("{ .floats[0:2] }", k_types) == "1 2.2");
  CHECK(render("{ .strings }", k_types) == R"(["one","two","three","four"])");
  CHECK(render("{ .strings[:4:2] }", k_types) == "one three");
  CHECK(render("{ .interfaces[0:2] }", k_types) == "true one");
  CHECK(render("{ .maps[-2] }", k_types) == R"({"name":"three","value":3.03})");
  CHECK(render("{ .maps[1::2] }", k_types) == R"({"name":"two","value":2.02} {"name":"four","value":4.04})");
}

TEST_CASE("jsonpath templates, unions, filters and recursion follow client-go") {
  CHECK(render("hello jsonpath", nullptr) == "hello jsonpath");
  CHECK(render("{..}", json::array({1, 2, 3})) == "[1,2,3]");
  CHECK(render("{[?(@<5)]}", json::array({2, 6, 3, 7})) == "2 3");
  CHECK(render(R"({"{"})", nullptr) == "{");
  CHECK(render("{[1,3,4]}", json::array({0, 1, 2, 3, 4})) == "1 3 4");
  CHECK(render(R"({range .items[*]}{.metadata.name}, {end}{.kind})", k_nodes) == "127.0.0.1, 127.0.0.2, List");
  CHECK(render(R"({range .items[*]}{.metadata.name}{"\t"}{end})", k_nodes) == "127.0.0.1\t127.0.0.2\t");
  CHECK(render("{.items[*].status.addresses[*].address}", k_nodes) == "127.0.0.1 127.0.0.2 127.0.0.3");
  CHECK(render("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", k_nodes) ==
        "127.0.0.1, 127.0.0.2, 127.0.0.3, ");
  CHECK(render("{.items[*]['metadata.name', 'status.capacity']}", k_nodes) ==
        R"(127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"})");
  CHECK(render("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}", k_nodes) ==
        R"([127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] )");
  CHECK(render(R"({.users[?(@.name=="e2e")].user.password})", k_nodes) == "secret");
  CHECK(render(R"({.items[0].metadata.labels.kubernetes\.io/hostname})", k_nodes) == "127.0.0.1");
  CHECK(render(R"({.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind})", k_nodes) == "None");
  CHECK(render("{.items[?(@..ready==true)].metadata.name}", k_nodes) == "127.0.0.1");
  CHECK(render("{..name}", k_nodes) == "127.0.0.1 127.0.0.2 myself e2e");
  CHECK(render("{...name}", k_nodes) == "127.0.0.1 127.0.0.2 myself e2e");
  const json points = json::parse(R"([{"id":"i1","x":4},{"id":"i2","z":1},{"id":"i5","z":false}])");
  CHECK(render("{[?(@.z)].id}", points) == "i2 i5");
  CHECK(render("{[0]['id']}", points) == "i1");
  CHECK(render("{range .items[*]}{.metadata.name}{end}", json::parse(R"({"items":[]})"), true) == "");
  // A range that is never closed runs to the end of the template.
  CHECK(render("{range .items[*]}{.metadata.name};", k_nodes) == "127.0.0.1;127.0.0.2;");
}

TEST_CASE("jsonpath errors follow client-go") {
  const json store = json::parse(R"({"Labels":{"a":1},"Book":[{"Price":8.95}]})");
  CHECK(render("{hello}", store) == "error: unrecognized identifier hello");
  CHECK(render("{.hello}", store) == "error: hello is not found");
  CHECK(render("{.hello}", store, true) == "");
  CHECK(render("before-{.hello}after", store, true) == "before-after");
  CHECK(render("{.Labels[0]}", store).starts_with("error: "));
  CHECK(render("{.Book[?(@.Price<>10)]}", store) == "error: unrecognized filter operator <>");
  CHECK(render("{range .Labels.*}{@}{end}{end}", store) == "parse error: not in range, nothing to end");
  CHECK(render("{.Book[3]}", store) == "error: array index out of bounds: index 3, length 1");
  CHECK(render("{.Book[?(@.Price==8)]}", store) == "error: incompatible types for comparison");
  CHECK(render("{............Price}", store) == "parse error: invalid multiple recursive descent");
  CHECK(render("{.a", store) == "parse error: unclosed action");
  // ['k'] reads as .k, so a dot inside still separates fields unless escaped.
  const json dotted = json::parse(R"({"a":{"b.c":1,"b":{"c":2}}})");
  CHECK(render("{.a['b.c']}", dotted) == "2");
  CHECK(render(R"({.a['b\.c']})", dotted) == "1");
}

TEST_CASE("relaxed expressions and Go value text") {
  const json object = json::parse(R"({"metadata":{"name":"x","labels":{"b":"2","a":"1"}},"n":[1.5,1e6,null]})");
  for (std::string_view spec : {"metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"})
    CHECK(*JsonPath::parse_relaxed(spec)->render(object) == "x");
  CHECK_FALSE(JsonPath::parse_relaxed("{.a}{.b}").has_value());
  CHECK(*JsonPath::parse("{.n[*]}")->render(object) == "1.5 1e+06 <nil>");
  CHECK(*JsonPath::parse("{.n}")->render(object) == "[1.5,1000000,null]");
  CHECK(kw::api::go_value_text(object["metadata"]["labels"]) == "map[a:1 b:2]");
  CHECK(kw::api::go_value_text(object["n"]) == "[1.5 1e+06 <nil>]");
  CHECK(kw::api::go_float_text(0.0001) == "0.0001");
  CHECK(kw::api::go_float_text(0.00001) == "1e-05");
  CHECK(kw::api::go_float_text(123456) == "123456");
  CHECK(kw::api::go_float_text(1234567) == "1.234567e+06");
}

TEST_CASE("CRD printer columns from the corpus render as kube-apiserver renders them") {
  // 2024-05-01T12:00:00Z
  const auto now = std::chrono::system_clock::time_point(std::chrono::sys_days(std::chrono::year(2024) / 5 / 1)) +
                   std::chrono::hours(12);
  // Each cell is made twice: with the path parsed per cell, and parsed once ahead (as a CRD's
  // columns are): the two must agree.
  auto cell = [&](std::string type, std::string path, const json& object) {
    ColumnDefinition column{"C", std::move(type), "", "", 0, std::move(path)};
    const json per_cell = printer_column_cell(column, object, now);
    const json parsed_ahead = printer_column_cell(ColumnDefinition(column).with_parsed_path(), object, now);
    CHECK(per_cell == parsed_ahead);
    return per_cell;
  };
  // cert-manager's Certificate (cert-manager.io_certificates.yaml).
  const json certificate = json::parse(R"({
    "metadata": {"name": "web-tls", "creationTimestamp": "2024-05-01T10:00:00Z"},
    "spec": {"secretName": "web-tls", "issuerRef": {"name": "letsencrypt"}},
    "status": {"notAfter": "2024-07-30T10:00:00Z", "conditions": [
      {"type": "Issuing", "status": "False", "message": "done"},
      {"type": "Ready", "status": "True", "message": "Certificate is up to date and has not expired"}]}})");
  CHECK(cell("string", R"(.status.conditions[?(@.type == "Ready")].status)", certificate) == "True");
  CHECK(cell("string", R"(.status.conditions[?(@.type == "Ready")].message)", certificate) ==
        "Certificate is up to date and has not expired");
  CHECK(cell("string", ".spec.issuerRef.name", certificate) == "letsencrypt");
  CHECK(cell("string", ".status.notAfter", certificate) == "2024-07-30T10:00:00Z");
  CHECK(cell("date", ".metadata.creationTimestamp", certificate) == "120m");
  // Without the condition, or without a status at all, the cell is empty.
  CHECK(cell("string", R"(.status.conditions[?(@.type == "Denied")].status)", certificate).is_null());
  CHECK(cell("string", R"(.status.conditions[?(@.type == "Ready")].status)", json{{"spec", json::object()}}).is_null());

  // prometheus-operator's Prometheus (single-quoted filter literals, integer columns).
  const json prometheus = json::parse(R"({"spec": {"version": "v2.45.0", "replicas": 2},
    "status": {"availableReplicas": 2, "paused": false, "conditions": [
      {"type": "Available", "status": "True"}, {"type": "Reconciled", "status": "False"}]}})");
  CHECK(cell("string", ".status.conditions[?(@.type == 'Reconciled')].status", prometheus) == "False");
  CHECK(cell("string", ".status.conditions[?(@.type == 'Available')].status", prometheus) == "True");
  CHECK(cell("integer", ".status.availableReplicas", prometheus) == 2);
  CHECK(cell("boolean", ".status.paused", prometheus) == false);

  // Gateway API's Gateway ADDRESS: only the first of several values.
  const json gateway = json::parse(R"({"status": {"addresses": [{"type": "IPAddress", "value": "10.1.1.1"},
    {"type": "IPAddress", "value": "10.1.1.2"}], "conditions": [{"type": "Programmed", "status": "True"}]}})");
  CHECK(cell("string", ".status.addresses[*].value", gateway) == "10.1.1.1");
  CHECK(cell("string", R"(.status.conditions[?(@.type=="Programmed")].status)", gateway) == "True");

  // Type conversions of the table convertor's cellForJSONValue.
  const json typed = json::parse(R"({"f": 2.7, "i": 3, "s": "x", "n": null, "o": {"k": [1, 2]}, "bad": "yesterday"})");
  CHECK(cell("integer", ".f", typed) == 2);
  CHECK(cell("number", ".i", typed) == 3.0);
  CHECK(cell("integer", ".s", typed).is_null());
  CHECK(cell("boolean", ".i", typed).is_null());
  CHECK(cell("string", ".i", typed) == "3");
  CHECK(cell("string", ".f", typed) == "2.7");
  CHECK(cell("string", ".o", typed) == R"({"k":[1,2]})");
  CHECK(cell("string", ".n", typed) == "<no value>");
  CHECK(cell("integer", ".n", typed).is_null());
  CHECK(cell("date", ".bad", typed) == "<invalid>");
  CHECK(cell("date", ".i", typed).is_null());
  // A path that errors (an index past the end, a filter on a map) or does not parse is empty.
  CHECK(cell("string", ".o.k[5]", typed).is_null());
  CHECK(cell("string", ".o[?(@.a)]", typed).is_null());
  CHECK(cell("string", ".o[", typed).is_null());
}
