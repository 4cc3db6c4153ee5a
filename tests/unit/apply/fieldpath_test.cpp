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
