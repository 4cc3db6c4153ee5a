#include <doctest/doctest.h>

#include "server/apply/fieldpath.hpp"

using kw::apply::Path;
using kw::apply::PathElement;
using kw::apply::Set;
using json = nlohmann::json;

namespace {

Set parse(const char* fields) {
  auto set = Set::from_json(json::parse(fields));
  REQUIRE(set.has_value());
  return *set;
}

}  // namespace

TEST_CASE("FieldsV1 reads members, children and items marked with a dot, and writes them back") {
  const json fields = json::parse(R"({
    "f:data": {".": {}, "f:a": {}},
    "f:spec": {"f:containers": {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}},
               "f:finalizers": {"v:\"x\"": {}}}})");
  const Set set = parse(fields.dump().c_str());
  const auto f = PathElement::field_named;
  CHECK(set.has({f("data")}));
  CHECK(set.has({f("data"), f("a")}));
  CHECK_FALSE(set.has({f("spec")}));
  const auto item = PathElement::with_key({{"name", "c"}});
  CHECK(set.has({f("spec"), f("containers"), item}));
  CHECK(set.has({f("spec"), f("containers"), item, f("image")}));
  CHECK(set.has({f("spec"), f("finalizers"), PathElement::with_value("x")}));
  CHECK(set.to_json() == fields);
  CHECK(set.size() == 5);  // data, data.a, the container, its image, the finalizer
}

TEST_CASE("path elements order by kind then content, numbers by value") {
  CHECK(PathElement::field_named("z") < PathElement::with_key({{"a", 1}}));
  CHECK(PathElement::with_key({{"port", 9}}) < PathElement::with_key({{"port", 10}}));
  CHECK(PathElement::with_value(2) < PathElement::with_value("a"));
  CHECK(PathElement::with_key({{"protocol", "TCP"}, {"port", 80}}).serialize() == R"(k:{"port":80,"protocol":"TCP"})");
  CHECK(kw::apply::to_string({PathElement::field_named("spec"), PathElement::field_named("ports"),
                              PathElement::with_key({{"port", 80}, {"protocol", "TCP"}})}) ==
        R"(.spec.ports[port=80,protocol="TCP"])");
  CHECK(PathElement::with_value("a").to_string() == R"([="a"])");
  CHECK_FALSE(PathElement::deserialize("x:1").has_value());
  CHECK(PathElement::deserialize("i:3")->index == 3);
}

TEST_CASE("set algebra: union, intersection, difference and recursive difference") {
  const Set a = parse(R"({"f:data": {"f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})");
  const Set b = parse(R"({"f:data": {"f:b": {}, "f:c": {}}})");
  CHECK(a.union_with(b).to_json() == json::parse(R"({"f:data": {"f:a": {}, "f:b": {}, "f:c": {}},
                                                      "f:metadata": {"f:labels": {"f:x": {}}}})"));
  CHECK(a.intersection(b).to_json() == json::parse(R"({"f:data": {"f:b": {}}})"));
  CHECK(a.difference(b).to_json() == json::parse(R"({"f:data": {"f:a": {}}, "f:metadata": {"f:labels": {"f:x": {}}}})"));
  // A member of the other set takes everything below it.
  const Set status = parse(R"({"f:metadata": {}})");
  CHECK(a.difference(status) == a);
  CHECK(a.recursive_difference(status).to_json() == json::parse(R"({"f:data": {"f:a": {}, "f:b": {}}})"));
  CHECK(Set().empty());
  CHECK(a.difference(a).empty());
}

TEST_CASE("FieldsV1 that is not an object is refused, unknown element kinds are skipped") {
  CHECK_FALSE(Set::from_json(json::array()).has_value());
  CHECK(Set::from_json(json::parse(R"({"z:x": {}, "f:a": {}})"))->size() == 1);
  CHECK_FALSE(Set::from_json(json::parse(R"({"k:not json": {}})")).has_value());
}

TEST_CASE("a set of 40000 list items is the same whatever order its paths come in") {
  constexpr int k_items = 40000;
  const auto f = PathElement::field_named;
  auto item_path = [&](int i) {
    return Path{f("spec"), f("containers"), PathElement::with_key({{"name", "c" + std::to_string(i)}})};
  };
  Set in_list_order;
  Set reversed;
  for (int i = 0; i < k_items; ++i) {
    Path path = item_path(i);
    in_list_order.insert(path);
    path.push_back(f("image"));
    in_list_order.insert(path);
  }
  for (int i = k_items - 1; i >= 0; --i) {
    Path path = item_path(i);
    path.push_back(f("image"));
    reversed.insert(path);
    path.pop_back();
    reversed.insert(path);
    reversed.insert(path);  // again: still one member
  }
  CHECK(in_list_order == reversed);
  CHECK(in_list_order.size() == 2 * k_items);
  CHECK(in_list_order.has(item_path(12345)));
  // Items are kept in element order: "c0" < "c1" < "c10" < ... < "c9999".
  const auto paths = in_list_order.paths();
  REQUIRE(paths.size() == 2 * k_items);
  CHECK(paths.front().back() == PathElement::with_key({{"name", "c0"}}));
  CHECK(paths[k_items - 1].back() == PathElement::with_key({{"name", "c9999"}}));
  const json fields = in_list_order.to_json();
  CHECK(fields["f:spec"]["f:containers"].size() == k_items);
  CHECK(parse(fields.dump().c_str()) == in_list_order);
}

TEST_CASE("FieldsV1 keys read in text order come back in element order") {
  // As text "k:{\"port\":10}" sorts before "k:{\"port\":9}"; as elements 9 comes first.
  const Set set = parse(R"({"f:ports": {"k:{\"port\":10}": {".": {}}, "k:{\"port\":9}": {".": {}}}})");
  const auto paths = set.paths();
  REQUIRE(paths.size() == 2);
  CHECK(paths[0].back() == PathElement::with_key({{"port", 9}}));
  CHECK(paths[1].back() == PathElement::with_key({{"port", 10}}));
}
