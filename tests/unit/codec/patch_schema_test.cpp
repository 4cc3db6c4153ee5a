#include <doctest/doctest.h>

#include <string>

#include "core/codec/strategic_merge.hpp"

using kw::codec::SchemaNode;
using kw::codec::strategic_merge;
using nlohmann::json;

namespace {

json pod_with(json containers) {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", std::move(containers)}}}};
}

// The containers of `pod` after the strategic merge of `patched` (the patch's containers).
json merged_containers(const json& pod, json patched) {
  const json patch = {{"spec", {{"containers", std::move(patched)}}}};
  const auto merged = strategic_merge(pod, patch, SchemaNode::of_object(pod));
  REQUIRE(merged.has_value());
  return (*merged)["spec"]["containers"];
}

// The error of a strategic merge of `patched` into the containers of `pod`.
kw::codec::PatchError refused_containers(const json& pod, json patched) {
  const json patch = {{"spec", {{"containers", std::move(patched)}}}};
  const auto merged = strategic_merge(pod, patch, SchemaNode::of_object(pod));
  REQUIRE_FALSE(merged.has_value());
  return merged.error();
}

json container(const std::string& name, const std::string& image) { return json{{"name", name}, {"image", image}}; }

}  // namespace

TEST_CASE("strategic merge of a keyed list: patch items in patch order, placed before old items they do not follow") {
  const json pod = pod_with({container("a", "1"), container("b", "1"), container("c", "1")});
  const json result = merged_containers(pod, {container("new1", "2"),
                                              {{"name", "c"}, {"image", "2"}},
                                              {{"name", "a"}, {"$patch", "delete"}},
                                              container("new2", "2")});
  // As kube's mergeSortedSlice orders them: an item only the object has comes first only when
  // it stood before the patch item in the object.
  CHECK(result == json{container("new1", "2"), container("b", "1"), container("c", "2"), container("new2", "2")});
}

TEST_CASE("strategic merge of a keyed list: deletions first, then merges that see appended items") {
  const json pod = pod_with({container("a", "1"), container("a", "dup"), container("b", "1")});
  // A deletion removes every item with its key, before any item of the patch is merged.
  CHECK(merged_containers(pod, {{{"name", "a"}, {"$patch", "delete"}}, {{"name", "a"}, {"image", "2"}}}) ==
        json{container("a", "2"), container("b", "1")});
  // An item the patch adds is merged into by a later patch item.
  CHECK(merged_containers(pod, {container("n", "1"), {{"name", "n"}, {"args", {"x"}}}}) ==
        json{{{"name", "n"}, {"image", "1"}, {"args", {"x"}}},
             container("a", "1"),
             container("a", "dup"),
             container("b", "1")});
  CHECK(merged_containers(pod, {{{"name", "b"}, {"$patch", "delete"}}, container("b", "again")}) ==
        json{container("b", "again"), container("a", "1"), container("a", "dup")});
  // A deletion that matches nothing does nothing.
  CHECK(merged_containers(pod, {{{"name", "zz"}, {"$patch", "delete"}}}) ==
        json{container("a", "1"), container("a", "dup"), container("b", "1")});
}

TEST_CASE("strategic merge of a keyed list: an item without the merge key is refused") {
  const json pod = pod_with(json::array({container("a", "1")}));
  const auto error = refused_containers(pod, {{{"image", "anonymous"}}});
  CHECK(error.kind == kw::codec::PatchErrorKind::internal);
  CHECK(error.message == "map: map[image:anonymous] does not contain declared merge key: name");
  CHECK(refused_containers(pod, {{{"$patch", "delete"}}}).message ==
        "map: map[$patch:delete] does not contain declared merge key: name");
}

TEST_CASE("strategic merge of a keyed list: numeric keys match by value, nested lists merge by their own key") {
  const json pod =
      pod_with({{{"name", "c"},
                 {"ports", {{{"containerPort", 80}, {"name", "http"}}, {{"containerPort", 443}, {"name", "https"}}}}}});
  const json result = merged_containers(pod, {{{"name", "c"},
                                               {"ports",
                                                {{{"containerPort", 443.0}, {"protocol", "TCP"}},
                                                 {{"containerPort", 80}, {"$patch", "delete"}},
                                                 {{"containerPort", 8080}}}}}});
  CHECK(result ==
        json{{{"name", "c"},
              {"ports",
               {{{"containerPort", 443.0}, {"name", "https"}, {"protocol", "TCP"}}, {{"containerPort", 8080}}}}}});
}

TEST_CASE("strategic merge of a 40000-item keyed list patched in many places") {
  constexpr int k_items = 40000;
  json containers = json::array();
  for (int i = 0; i < k_items; ++i) {
    json c = container("c" + std::to_string(i), "nginx");
    c["ports"] = {{{"containerPort", 80}}, {{"containerPort", 443}}};
    containers.push_back(std::move(c));
  }
  // Every odd item changes (in reverse order, and one port of each), every fourth one goes,
  // and 10000 new ones come.
  json patch = json::array();
  for (int i = k_items - 1; i >= 0; i -= 2)
    patch.push_back({{"name", "c" + std::to_string(i)},
                     {"image", "busybox"},
                     {"ports", {{{"containerPort", 443}, {"name", "https"}}}}});
  for (int i = 0; i < k_items; i += 4) patch.push_back({{"name", "c" + std::to_string(i)}, {"$patch", "delete"}});
  for (int i = 0; i < k_items / 4; ++i) patch.push_back(container("new" + std::to_string(i), "x"));

  const json result = merged_containers(pod_with(std::move(containers)), std::move(patch));
  // The items only the object has (every fourth, offset 2) all stood before the first patch
  // item (c39999), so they come first; then the patch's items in patch order.
  json expected = json::array();
  for (int i = 2; i < k_items; i += 4) {
    json c = container("c" + std::to_string(i), "nginx");
    c["ports"] = {{{"containerPort", 80}}, {{"containerPort", 443}}};
    expected.push_back(std::move(c));
  }
  for (int i = k_items - 1; i >= 0; i -= 2) {
    json c = container("c" + std::to_string(i), "busybox");
    c["ports"] = {{{"containerPort", 80}}, {{"containerPort", 443}, {"name", "https"}}};
    expected.push_back(std::move(c));
  }
  for (int i = 0; i < k_items / 4; ++i) expected.push_back(container("new" + std::to_string(i), "x"));
  REQUIRE(result.size() == expected.size());
  CHECK(result == expected);
}
