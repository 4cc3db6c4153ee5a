#include <doctest/doctest.h>

#include <sstream>

#include "cli/client/list.hpp"
#include "cli/print/printers.hpp"
#include "cli/print/table_event.hpp"

using namespace kw::cli;
using nlohmann::json;

namespace {

// A Table watch event as kube-apiserver and kw serve write it, with the metadata a real
// object carries (managedFields, annotations) that kw get -w never prints.
json table_event(const std::string& type, const std::string& name, json cells) {
  json metadata = {
      {"name", name},
      {"namespace", "team-a"},
      {"uid", "0b6c1c5e-1f7a-4a4e-9d5e-" + name},
      {"resourceVersion", "1042"},
      {"creationTimestamp", "2026-11-23T10:00:00Z"},
      {"labels", {{"app", "web"}, {"tier", "front\"end"}, {"k8s.io/ünï", "ç"}}},
      {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{\"a\":[1,2,{\"b\":\"}\"}]}\n"}}},
      {"managedFields", json::array({{{"manager", "kubectl"}, {"fieldsV1", {{"f:spec", {{"f:x", json::object()}}}}}}})},
      {"ownerReferences", json::array({{{"kind", "ReplicaSet"}, {"name", "web-1"}}})},
  };
  json table = {{"kind", "Table"},
                {"apiVersion", "meta.k8s.io/v1"},
                {"metadata", {{"resourceVersion", "1042"}}},
                {"columnDefinitions", nullptr},
                {"rows", json::array({{{"cells", std::move(cells)},
                                       {"object", {{"kind", "PartialObjectMetadata"},
                                                   {"apiVersion", "meta.k8s.io/v1"},
                                                   {"metadata", std::move(metadata)}}}}})}};
  return {{"type", type}, {"object", std::move(table)}};
}

json sample_cells(const std::string& name) {
  return json::array({name, "1/1", "Running", 3, "5m", "10.0.0.7", "node-\u00e9", nullptr, "<none>",
                      "tab\there\nsecond line", 2.5, true, json::object({{"nested", 1}})});
}

std::vector<Item> full_items(const std::string& frame, KindInfo& kind) {
  json document = json::parse(frame);
  std::vector<Item> items;
  collect_items(std::move(document["object"]), kind, document["type"].get<std::string>(), items);
  return items;
}

KindInfo pod_kind_with_columns() {
  KindInfo kind;
  kind.kind = "Pod";
  kind.api_version = "v1";
  for (const char* name : {"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node",
                           "Readiness Gates", "Note", "Ratio", "Flag", "Extra"})
    kind.columns.push_back(kw::api::ColumnDefinition{.name = name, .type = "string", .format = "", .description = "",
                                                     .priority = 0, .json_path = {}});
  return kind;
}

std::string print(const std::vector<Item>& items, KindInfo& kind, PrintOptions options) {
  auto printer = make_printer(options);
  REQUIRE(printer.has_value());
  std::ostringstream out;
  for (const auto& item : items) REQUIRE((*printer)->print_event(kind, item, out).has_value());
  return out.str();
}

}  // namespace

TEST_CASE("thin table events keep the cells and the metadata the printer and seen-set read") {
  for (const char* type : {"ADDED", "MODIFIED", "DELETED"}) {
    CAPTURE(type);
    const std::string frame = table_event(type, "web-7f9c", sample_cells("web-7f9c")).dump();
    auto thin = decode_thin_table_event(frame);
    REQUIRE(thin.has_value());
    CHECK(thin->type == type);
    REQUIRE(thin->rows.has_value());
    KindInfo kind = pod_kind_with_columns();
    const auto full = full_items(frame, kind);
    REQUIRE(thin->rows->size() == full.size());
    const Item& got = thin->rows->front();
    const Item& want = full.front();
    CHECK(got.type == want.type);
    CHECK(got.cells == want.cells);
    const json& meta = got.object["metadata"];
    for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp", "labels"})
      CHECK(meta[key] == want.object["metadata"][key]);
    CHECK_FALSE(meta.contains("managedFields"));
    CHECK_FALSE(meta.contains("annotations"));
    CHECK(got.object["kind"] == "PartialObjectMetadata");
    // What a user sees is the same either way, in every table layout.
    for (PrintOptions options : {PrintOptions{}, PrintOptions{.output = "wide", .show_labels = true},
                                 PrintOptions{.with_namespace = true, .watch_events = true,
                                              .label_columns = {"tier", "k8s.io/ünï"}}}) {
      KindInfo a = pod_kind_with_columns(), b = pod_kind_with_columns();
      CHECK(print(*thin->rows, a, options) == print(full, b, options));
    }
  }
}

TEST_CASE("thin table events: escaped keys and strings decode as in a full parse") {
  const std::string frame =
      R"({"type":"ADDED","object":{"kind":"Table","rows":[{"cells":["a\u0062c","\ud83d\ude00"],)"
      R"("object":{"metadata":{"n\u0061me":"x\/y","labels":{"k\"ey":"v\\al"}}}}]}})";
  auto thin = decode_thin_table_event(frame);
  REQUIRE(thin.has_value());
  const Item& item = thin->rows->front();
  CHECK(item.cells == json::array({"abc", "\U0001F600"}));
  CHECK(item.object["metadata"]["name"] == "x/y");
  CHECK(item.object["metadata"]["labels"]["k\"ey"] == "v\\al");
}

TEST_CASE("thin table events hand anything else to the full decoder") {
  const char* const others[] = {
      // An ERROR Status, a BOOKMARK, column definitions, a plain object.
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}})",
      R"({"type":"BOOKMARK","object":{"kind":"Table","metadata":{"resourceVersion":"9"},"rows":[]}})",
      R"({"type":"ADDED","object":{"kind":"Table","columnDefinitions":[{"name":"Name"}],"rows":[]}})",
      R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}})",
      R"({"type":"ADDED","type":"ADDED","object":{"kind":"Table","rows":[]}})",
      // Malformed or not a row layout this reader knows.
      R"({"type":"ADDED","object":{"kind":"Table","rows":[{"cells":["a",],"object":{}}]}})",
      R"({"type":"ADDED","object":{"kind":"Table","rows":[{"cells":null}]}})",
      R"({"type":"ADDED","object":{"kind":"Table","rows":[]}} trailing)",
      R"({"type":"ADDED","object":{"kind":"Table","rows":[]},"object":{"kind":"Table","rows":[]}})",
      R"({"type":"ADDED"})",
      "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Table\",\"rows\":[{\"cells\":[\"a\nb\"]}]}}",
  };
  for (const char* frame : others) {
    CAPTURE(frame);
    CHECK_FALSE(decode_thin_table_event(frame).has_value());
  }
}

TEST_CASE("an event decoder reading tables thin gives the full decoder's events for everything else") {
  const std::string stream = table_event("ADDED", "a", sample_cells("a")).dump() + "\n" +
                             R"({"type":"BOOKMARK","object":{"kind":"Table","metadata":{"resourceVersion":"77"}}})" +
                             "\n" + R"({"type":"ERROR","object":{"kind":"Status","code":410}})" + "\n";
  auto decoder = EventDecoder::create("application/json;stream=watch", false);
  REQUIRE(decoder.has_value());
  decoder->read_tables_thin(true);
  std::vector<RawEvent> events;
  REQUIRE(decoder->feed(stream, events).has_value());
  REQUIRE(events.size() == 3);
  CHECK(events[0].rows.has_value());
  CHECK_FALSE(events[1].rows.has_value());
  CHECK(events[1].object["metadata"]["resourceVersion"] == "77");
  CHECK(events[2].type == "ERROR");
  CHECK(events[2].object["code"] == 410);
}

TEST_CASE("a LIST's row object cut down by thin_row_object equals the thin decoder's") {
  for (const char* name : {"web-7f9c", "db-0"}) {
    CAPTURE(name);
    const json event = table_event("ADDED", name, sample_cells(name));
    auto thin = decode_thin_table_event(event.dump());
    REQUIRE(thin.has_value());
    REQUIRE(thin->rows->size() == 1);
    json object = event["object"]["rows"][0]["object"];
    thin_row_object(object);
    CHECK(object == thin->rows->front().object);
    CHECK_FALSE(object["metadata"].contains("managedFields"));
    CHECK(object["metadata"]["labels"].size() == 3);
  }
  json odd = {{"kind", "PartialObjectMetadata"}, {"metadata", {{"name", 7}, {"labels", "none"}}}, {"extra", 1}};
  thin_row_object(odd);
  CHECK(odd == json{{"kind", "PartialObjectMetadata"}, {"metadata", json::object()}});
}
