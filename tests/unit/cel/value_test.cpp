// The Value type as callers see it: kinds, JSON views, equality and ordering.
#include <doctest/doctest.h>

#include "core/cel/cel.hpp"

using kw::cel::Value;
using nlohmann::json;

TEST_CASE("JSON values convert by kind") {
  json doc = json::parse(R"({"i": 1, "u": 18446744073709551615, "d": 1.5, "s": "x", "b": true,
                             "n": null, "l": [1, 2], "m": {"k": "v"}})");
  CHECK(Value::from_json(doc["i"]).kind() == Value::Kind::integer);
  CHECK(Value::from_json(doc["u"]).kind() == Value::Kind::uinteger);
  CHECK(Value::from_json(doc["d"]).kind() == Value::Kind::floating);
  CHECK(Value::from_json(doc["s"]).as_string() == "x");
  CHECK(Value::from_json(doc["b"]).as_bool());
  CHECK(Value::from_json(doc["n"]).kind() == Value::Kind::null);
  Value list = Value::from_json(doc["l"]);
  CHECK(list.kind() == Value::Kind::list);
  CHECK(list.size() == 2);
  CHECK(list.at(1).as_int() == 2);
  CHECK(list.json_node() == &doc["l"]);
  Value map = Value::from_json(doc);
  CHECK(map.kind() == Value::Kind::map);
  CHECK(map.find(Value("i"))->as_int() == 1);
  CHECK_FALSE(map.find(Value("zz")));
  CHECK_FALSE(map.find(Value(std::int64_t{1})));
  CHECK(map.elements().size() == 8);
}

TEST_CASE("owned values and their equality") {
  Value list(std::vector<Value>{Value(1), Value("a")});
  CHECK(list.size() == 2);
  CHECK(list.debug_string() == "[1, \"a\"]");
  Value map = Value::map({{Value("k"), Value(2.0)}});
  CHECK(map.find(Value("k"))->as_double() == 2.0);
  CHECK(*kw::cel::values_equal(Value(1), Value(1.0)));
  CHECK_FALSE(*kw::cel::values_equal(Value(1), Value("1")));
  CHECK_FALSE(kw::cel::values_equal(Value::error("e"), Value(1)));
  CHECK(kw::cel::compare_values(Value(1), Value(std::uint64_t{2})) == -1);
  CHECK(kw::cel::compare_values(Value("b"), Value("a")) == 1);
  CHECK_FALSE(kw::cel::compare_values(Value(1), Value("a")));
  json doc = {{"k", 2}};
  CHECK(*kw::cel::values_equal(map, Value::from_json(doc)));
  CHECK(Value::error("boom").error_message() == "boom");
  CHECK(Value::optional_of(Value(1)).optional_value().as_int() == 1);
  CHECK_FALSE(Value::optional_none().optional_has_value());
  CHECK(Value(kw::cel::Duration{1500000000}).debug_string() == "duration(\"1.5s\")");
  CHECK(Value(kw::cel::Timestamp{0, 0}).debug_string() == "timestamp(\"1970-01-01T00:00:00Z\")");
  CHECK(Value(kw::cel::Timestamp{-1, 0}).debug_string() == "timestamp(\"1969-12-31T23:59:59Z\")");
}

TEST_CASE("a program is reusable across activations") {
  auto program = kw::cel::compile("x * 2", {.variables = {{.name = "x"}}});
  REQUIRE(program);
  for (int i = 0; i < 3; ++i) {
    kw::cel::MapActivation a;
    a.bind("x", Value(std::int64_t{i}));
    CHECK(program->evaluate(a)->value.as_int() == 2 * i);
  }
  kw::cel::Program copy = *program;
  kw::cel::MapActivation a;
  a.bind("x", Value(std::int64_t{21}));
  CHECK(*copy.evaluate(a)->value.to_json() == json(42));
}
