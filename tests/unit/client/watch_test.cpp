#include <doctest/doctest.h>

#include "cli/client/list.hpp"
#include "cli/client/watch.hpp"
#include "core/codec/frame.hpp"
#include "core/codec/protobuf.hpp"

using namespace kw::cli;
using nlohmann::json;

namespace {

Item pod(const std::string& name, const std::string& rv, const std::string& uid = "") {
  json object = {{"metadata", {{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}}};
  if (!uid.empty()) object["metadata"]["uid"] = uid;
  return Item{"", object, nullptr};
}

std::vector<std::string> summary(const std::vector<Item>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("relist diff emits only the differences") {
  SeenSet seen;
  seen.reset({pod("a", "1"), pod("b", "2"), pod("c", "3", "u1")});
  auto events = seen.diff({pod("a", "1"), pod("b", "5"), pod("c", "6", "u2"), pod("d", "7")});
  CHECK(summary(events) == std::vector<std::string>{"MODIFIED b", "DELETED c", "ADDED c", "ADDED d"});
  events = seen.diff({pod("b", "5")});
  CHECK(summary(events) == std::vector<std::string>{"DELETED a", "DELETED c", "DELETED d"});
  CHECK(seen.diff({pod("b", "5")}).empty());
}

TEST_CASE("stream events are applied once") {
  SeenSet seen;
  seen.reset({pod("a", "1")});
  Item modified = pod("a", "2");
  modified.type = "MODIFIED";
  CHECK(seen.apply(modified));
  CHECK_FALSE(seen.apply(modified));  // replayed after a reconnect
  Item deleted = pod("a", "3");
  deleted.type = "DELETED";
  CHECK(seen.apply(deleted));
  CHECK_FALSE(seen.apply(deleted));
  Item added = pod("b", "4");
  added.type = "ADDED";
  CHECK(seen.apply(added));
}

TEST_CASE("JSON watch events decode when fed byte by byte") {
  auto decoder = EventDecoder::create("application/json", false);
  REQUIRE(decoder.has_value());
  const std::string stream =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})"
      "\n"
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}})"
      "\n";
  std::vector<RawEvent> events;
  for (char c : stream) REQUIRE(decoder->feed(std::string_view(&c, 1), events).has_value());
  REQUIRE(decoder->finish(events).has_value());
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == "ADDED");
  CHECK(events[1].object["code"] == 410);
}

TEST_CASE("YAML watch events: each one is handed on at its type line, the last of a burst too") {
  auto decoder = EventDecoder::create("application/yaml;stream=watch", false);
  REQUIRE(decoder.has_value());
  const std::string first = "---\nobject:\n  metadata:\n    name: a\n  type: inner\ntype: ADDED\n";
  const std::string second = "---\nobject:\n  metadata:\n    name: a\ntype: DELETED\n";
  std::vector<RawEvent> events;
  for (char c : first) REQUIRE(decoder->feed(std::string_view(&c, 1), events).has_value());
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "ADDED");
  CHECK(events[0].object["type"] == "inner");
  for (char c : second) REQUIRE(decoder->feed(std::string_view(&c, 1), events).has_value());
  REQUIRE(events.size() == 2);  // before the stream ends and before another separator
  CHECK(events[1].type == "DELETED");
  CHECK(events[1].object["metadata"]["name"] == "a");
  REQUIRE(decoder->finish(events).has_value());
  CHECK(events.size() == 2);
}

TEST_CASE("YAML watch events with type first still decode, closed by the separator") {
  auto decoder = EventDecoder::create("application/yaml;stream=watch", false);
  REQUIRE(decoder.has_value());
  const std::string stream = "type: ADDED\nobject:\n  metadata:\n    name: a\n---\ntype: DELETED\nobject:\n  metadata:\n    name: a\n";
  std::vector<RawEvent> events;
  for (char c : stream) REQUIRE(decoder->feed(std::string_view(&c, 1), events).has_value());
  REQUIRE(decoder->finish(events).has_value());
  REQUIRE(events.size() == 2);
  CHECK(events[1].type == "DELETED");
  CHECK(events[1].object["metadata"]["name"] == "a");
}

TEST_CASE("protobuf watch frames decode byte by byte and as WebSocket messages") {
  json pod_json = {{"apiVersion", "v1"}, {"kind", "Pod"},
                   {"metadata", {{"name", "p"}, {"namespace", "ns"}, {"resourceVersion", "42"}}},
                   {"status", {{"phase", "Running"}}}};
  auto object = kw::codec::encode_object_protobuf(pod_json, kw::codec::builtin_message_for);
  REQUIRE(object.has_value());
  const std::string event = kw::codec::encode_watch_event_protobuf("MODIFIED", *object);
  const std::string framed = kw::codec::frame_length_prefixed(event) + kw::codec::frame_length_prefixed(event);

  auto decoder = EventDecoder::create("application/vnd.kubernetes.protobuf;stream=watch", false);
  REQUIRE(decoder.has_value());
  std::vector<RawEvent> events;
  for (char c : framed) REQUIRE(decoder->feed(std::string_view(&c, 1), events).has_value());
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == "MODIFIED");
  CHECK(events[0].object["metadata"]["resourceVersion"] == "42");
  CHECK(events[0].object["status"]["phase"] == "Running");

  auto ws = EventDecoder::create("application/vnd.kubernetes.protobuf;stream=watch", true);
  std::vector<RawEvent> ws_events;
  REQUIRE(ws->feed(event, ws_events).has_value());
  REQUIRE(ws_events.size() == 1);
  CHECK(ws_events[0].object["kind"] == "Pod");

  auto bad = EventDecoder::create("application/vnd.kubernetes.protobuf", false);
  std::vector<RawEvent> none;
  CHECK_FALSE(bad->feed(kw::codec::frame_length_prefixed("garbage"), none).has_value());
}

TEST_CASE("one-row Table events become items with cells, columns come from the first") {
  KindInfo kind{nullptr, "Pod", "", "v1", {}};
  std::vector<Item> items;
  collect_items(json::parse(R"({"kind":"Table","columnDefinitions":[{"name":"Name","type":"string"}],
      "rows":[{"cells":["x"],"object":{"metadata":{"name":"x","resourceVersion":"3"}}}]})"),
                kind, "ADDED", items);
  REQUIRE(items.size() == 1);
  CHECK(kind.columns.size() == 1);
  collect_items(json::parse(R"({"kind":"Table","rows":[{"cells":["y"],"object":{"metadata":{"name":"y"}}}]})"), kind,
                "MODIFIED", items);
  CHECK(kind.columns.size() == 1);
  CHECK(items[1].cells[0] == "y");
  CHECK(items[1].type == "MODIFIED");
}

TEST_CASE("a list is a list even when empty and decoded from protobuf (no items field)") {
  KindInfo kind{nullptr, "ConfigMap", "", "v1", {}};
  std::vector<Item> items;
  collect_items(json::parse(R"({"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"4"}})"), kind,
                "ADDED", items);
  CHECK(items.empty());
  collect_items(json::parse(R"({"kind":"ConfigMapList","items":[{"metadata":{"name":"a"}}]})"), kind, "ADDED", items);
  CHECK(items.size() == 1);
  // A named object whose kind merely ends in "List" is an object.
  collect_items(json::parse(R"({"kind":"ShoppingList","metadata":{"name":"weekly"}})"), kind, "ADDED", items);
  CHECK(items.size() == 2);
}

TEST_CASE("query strings and paths") {
  Query query;
  query.label_selector = "app=web,tier!=db";
  query.namespace_name = "ns";
  CHECK(query_string(query, true, "17", "") ==
        "?labelSelector=app%3Dweb%2Ctier%21%3Ddb&watch=1&allowWatchBookmarks=true&resourceVersion=17");
  CHECK(query_string(query, false, "", "tok") == "?labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=500&continue=tok");
}
