// LIST bodies concatenated from each object's memoised JSON must equal a full re-encode.
#include <doctest/doctest.h>

#include "core/codec/protobuf.hpp"
#include "server/cache/list_json.hpp"

namespace {

using namespace kw;

cache::ObjectPtr object(const std::string& name, const std::string& value) {
  auto o = std::make_shared<cache::StoredObject>();
  o->name = name;
  o->set_object({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", {{"name", name}, {"namespace", "ns"}, {"resourceVersion", "7"}}},
                 {"data", {{"k", value}, {"quote\"d", "line\nbreak \u00e9"}}}});
  return o;
}

}  // namespace

TEST_CASE("list_json equals dumping the whole list, for zero, one and many items") {
  for (int count : {0, 1, 3}) {
    std::vector<cache::ObjectPtr> items;
    nlohmann::json expected_items = nlohmann::json::array();
    for (int i = 0; i < count; ++i) {
      items.push_back(object("cm-" + std::to_string(i), std::string(static_cast<std::size_t>(i) * 10, 'x')));
      expected_items.push_back(items.back()->object());
    }
    const nlohmann::json meta = {{"resourceVersion", "42"}, {"continue", "abc"}};
    const nlohmann::json expected = {
        {"kind", "ConfigMapList"}, {"apiVersion", "v1"}, {"metadata", meta}, {"items", expected_items}};
    CHECK(cache::list_json("ConfigMapList", "v1", meta, items) == expected.dump());
  }
}

TEST_CASE("an object's JSON is made once and a changed copy gets its own") {
  auto original = object("a", "1");
  const std::string& first = original->json();
  CHECK(&first == &original->json());
  CHECK(nlohmann::json::parse(first) == original->object());
  auto copy = std::make_shared<cache::StoredObject>(*original);
  copy->set_revision(8);
  CHECK(nlohmann::json::parse(copy->json())["metadata"]["resourceVersion"] == "8");
  CHECK(nlohmann::json::parse(original->json())["metadata"]["resourceVersion"] == "7");
}

TEST_CASE("list_protobuf joins stored messages and encodes the objects that have none, in order") {
  std::vector<cache::ObjectPtr> items;
  nlohmann::json expected_items = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) {
    auto o = std::make_shared<cache::StoredObject>(*object("cm-" + std::to_string(i), std::string(3, 'x')));
    if (i != 1) o->protobuf = *codec::json_to_protobuf(o->object(), "k8s.io.api.core.v1.ConfigMap");
    expected_items.push_back(o->object());
    items.push_back(std::move(o));
  }
  const nlohmann::json expected = {{"kind", "ConfigMapList"},
                                   {"apiVersion", "v1"},
                                   {"metadata", {{"resourceVersion", "42"}}},
                                   {"items", expected_items}};
  auto joined = cache::list_protobuf("ConfigMapList", "v1", {.resource_version = "42", .continue_token = {},
                                                             .remaining_item_count = {}},
                                     items, "k8s.io.api.core.v1.ConfigMap");
  REQUIRE(joined);
  CHECK(*joined == *codec::encode_object_protobuf(expected, codec::builtin_message_for));
  // A stored message stands for its object: what is joined is those bytes, not a new encoding.
  auto marked = std::make_shared<cache::StoredObject>(*items[0]);
  marked->protobuf = *codec::json_to_protobuf({{"metadata", {{"name", "from-store"}}}}, "k8s.io.api.core.v1.ConfigMap");
  auto from_store = cache::list_protobuf("ConfigMapList", "v1", {.resource_version = "1", .continue_token = {},
                                                                 .remaining_item_count = {}},
                                         {marked}, "k8s.io.api.core.v1.ConfigMap");
  REQUIRE(from_store);
  CHECK(from_store->find("from-store") != std::string::npos);
}
