#include <doctest/doctest.h>

#include <sstream>

#include "cli/print/printers.hpp"

using namespace kw::cli;
using nlohmann::json;

namespace {

const json k_table = json::parse(R"({
  "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "10"},
  "columnDefinitions": [
    {"name": "Name", "type": "string", "format": "name", "priority": 0},
    {"name": "Ready", "type": "string", "priority": 0},
    {"name": "Status", "type": "string", "priority": 0},
    {"name": "Restarts", "type": "string", "priority": 0},
    {"name": "Age", "type": "string", "priority": 0},
    {"name": "IP", "type": "string", "priority": 1}
  ],
  "rows": [
    {"cells": ["web-1", "1/1", "Running", "0", "5m", "10.0.0.7"],
     "object": {"kind": "PartialObjectMetadata", "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web", "tier": "a"}}}},
    {"cells": ["db", "0/1", "Pending\u001b[31m\nmore", 3, "12d", null],
     "object": {"kind": "PartialObjectMetadata", "metadata": {"name": "db", "namespace": "prod"}}}
  ]})");

KindInfo pod_kind() { return KindInfo{nullptr, "Pod", "", "v1", {}}; }

std::vector<Item> rows_of(KindInfo& kind) {
  std::vector<Item> items;
  for (const auto& d : k_table["columnDefinitions"])
    kind.columns.push_back({.name = d["name"], .type = d["type"], .priority = d["priority"]});
  for (const auto& row : k_table["rows"]) items.push_back(Item{"", row["object"], row["cells"]});
  return items;
}

std::string print(PrintOptions options, bool single = false) {
  auto printer = make_printer(options);
  REQUIRE(printer.has_value());
  KindInfo kind = pod_kind();
  auto items = rows_of(kind);
  std::ostringstream out;
  REQUIRE((*printer)->print_list(kind, items, single, out).has_value());
  REQUIRE((*printer)->finish(out).has_value());
  return out.str();
}

}  // namespace

TEST_CASE("table output matches kubectl's layout") {
  CHECK(print({}) ==
        "NAME    READY   STATUS             RESTARTS   AGE\n"
        "web-1   1/1     Running            0          5m\n"
        "db      0/1     Pending^[[31m...   3          12d\n");
}

TEST_CASE("wide, namespace, labels and label columns") {
  CHECK(print({.output = "wide", .with_namespace = true}) ==
        "NAMESPACE   NAME    READY   STATUS             RESTARTS   AGE   IP\n"
        "default     web-1   1/1     Running            0          5m    10.0.0.7\n"
        "prod        db      0/1     Pending^[[31m...   3          12d   \n");
  CHECK(print({.no_headers = true, .show_labels = true, .label_columns = {"app"}}) ==
        "web-1   1/1   Running            0     5m    web   app=web,tier=a\n"
        "db      0/1   Pending^[[31m...   3     12d         <none>\n");
}

TEST_CASE("name, json, yaml, jsonpath and custom-columns") {
  CHECK(print({.output = "name"}) == "pod/web-1\npod/db\n");
  const std::string json_text = print({.output = "json"});
  auto parsed = json::parse(json_text);
  CHECK(parsed["kind"] == "List");
  CHECK(parsed["items"].size() == 2);
  CHECK(json_text.starts_with("{\n    \"apiVersion\": \"v1\",\n    \"items\": ["));
  CHECK(print({.output = "yaml"}).starts_with("apiVersion: v1\nitems:\n- apiVersion: v1\n"));
  CHECK(print({.output = "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"}) == "web-1\ndb\n");
  CHECK(print({.output = "jsonpath={.items[*].metadata.namespace}"}) == "default prod");
  CHECK(print({.output = "custom-columns=N:.metadata.name,APP:.metadata.labels.app"}) ==
        "N       APP\nweb-1   web\ndb      <none>\n");
}

TEST_CASE("unknown output format lists the valid ones") {
  auto printer = make_printer({.output = "xml"});
  REQUIRE_FALSE(printer.has_value());
  CHECK(printer.error().message.find("allowed formats are: custom-columns, go-template, go-template-file, json, "
                                     "jsonpath, jsonpath-as-json, jsonpath-file, name, template, templatefile, wide, "
                                     "yaml") != std::string::npos);
}

TEST_CASE("watch events: compact JSON per line, EVENT column, yaml separators") {
  KindInfo kind = pod_kind();
  auto items = rows_of(kind);
  {
    auto printer = make_printer({.output = "json", .watch_events = true});
    std::ostringstream out;
    REQUIRE((*printer)->print_event(kind, Item{"ADDED", json{{"metadata", {{"name", "a<b"}}}}, nullptr}, out));
    REQUIRE((*printer)->print_event(kind, Item{"DELETED", json{{"metadata", {{"name", "c\xe2\x80\xa8"}}}}, nullptr}, out));
    // As Go's encoding/json writes them: <, >, & and the line terminators U+2028, U+2029 escaped.
    CHECK(out.str() ==
          "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\\u003cb\"}}}\n"
          "{\"type\":\"DELETED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"c\\u2028\"}}}\n");
  }
  {
    auto printer = make_printer({.watch_events = true});
    std::ostringstream out;
    items[0].type = "MODIFIED";
    REQUIRE((*printer)->print_event(kind, items[0], out));
    CHECK(out.str() ==
          "EVENT      NAME    READY   STATUS    RESTARTS   AGE\n"
          "MODIFIED   web-1   1/1     Running   0          5m\n");
  }
  {
    auto printer = make_printer({.output = "yaml"});
    std::ostringstream out;
    REQUIRE((*printer)->print_event(kind, Item{"ADDED", json{{"metadata", {{"name", "a"}}}}, nullptr}, out));
    REQUIRE((*printer)->print_event(kind, Item{"ADDED", json{{"metadata", {{"name", "b"}}}}, nullptr}, out));
    CHECK(out.str() == "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: b\n");
  }
}

TEST_CASE("tabulate follows Go tabwriter minimum width and padding") {
  CHECK(tabulate({{"A", "B", "C"}, {"longer", "x", ""}}) == "A        B     C\nlonger   x     \n");
}

TEST_CASE("custom-columns: the rows of every kind share one table, as kubectl prints them") {
  auto printer = make_printer({.output = "custom-columns=NAME:.metadata.name,N:.spec.replicas"});
  REQUIRE(printer.has_value());
  KindInfo kind = pod_kind();
  std::ostringstream out;
  const json first = {{"metadata", {{"name", "a-long-name"}}}, {"spec", {{"replicas", 3}}}};
  const json second = {{"metadata", {{"name", "b"}}}, {"spec", {{"replicas", 1}}}};
  REQUIRE((*printer)->print_list(kind, {Item{"", first, nullptr}}, false, out));
  REQUIRE((*printer)->print_list(kind, {Item{"", second, nullptr}}, false, out));
  CHECK(out.str().empty());
  REQUIRE((*printer)->finish(out));
  CHECK(out.str() == "NAME          N\na-long-name   3\nb             1\n");
}

TEST_CASE("typed JSON keeps the Go struct's key order, maps sorted") {
  const json config_map = {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", {{"name", "c"}, {"creationTimestamp", nullptr}, {"labels", {{"b", "1"}, {"a", "2"}}}}},
                           {"data", {{"y", "1"}, {"x", "2"}}}};
  CHECK(to_kubectl_typed_json(config_map) ==
        "{\n    \"kind\": \"ConfigMap\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {\n        \"name\": \"c\",\n"
        "        \"creationTimestamp\": null,\n        \"labels\": {\n            \"a\": \"2\",\n            \"b\": \"1\"\n"
        "        }\n    },\n    \"data\": {\n        \"x\": \"2\",\n        \"y\": \"1\"\n    }\n}");
  // A kind kw has no Go type for keeps kubectl's sorted keys.
  CHECK(to_kubectl_typed_json(json{{"kind", "Widget"}, {"apiVersion", "example.com/v1"}}) ==
        "{\n    \"apiVersion\": \"example.com/v1\",\n    \"kind\": \"Widget\"\n}");
}

TEST_CASE("go-template: -o go-template=T, -o template with --template, --template alone") {
  CHECK(print({.output = "go-template={{range .items}}{{.metadata.name}} {{end}}"}) == "web-1 db ");
  CHECK(print({.output = "template", .template_text = "{{len .items}}"}) == "2");
  CHECK(print({.template_text = "{{.kind}}"}) == "List");
  CHECK(make_printer({.output = "go-template"}).error().message == "template format specified but no template given");
  CHECK(make_printer({.output = "go-template={{.a"}).error().message ==
        "error parsing template {{.a, template: output:1: unclosed action");
  CHECK(make_printer({.output = "templatefile=/nonexistent/t"}).error().message ==
        "error reading --template /nonexistent/t, open /nonexistent/t: no such file or directory");
}
