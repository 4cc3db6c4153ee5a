// Operators, error values, macros, variables and cost.
#include <doctest/doctest.h>

#include "unit/cel/support.hpp"

using cel_test::compile_error;
using cel_test::is_true;
using cel_test::run;
using nlohmann::json;

TEST_CASE("int arithmetic and its errors") {
  CHECK(run("2 + 3") == "5");
  CHECK(run("2 - 3") == "-1");
  CHECK(run("6 * 7") == "42");
  CHECK(run("7 / 2") == "3");
  CHECK(run("-7 / 2") == "-3");
  CHECK(run("7 % 3") == "1");
  CHECK(run("-7 % 3") == "-1");
  CHECK(run("9223372036854775807 + 1") == "error: integer overflow");
  CHECK(run("-9223372036854775808 - 1") == "error: integer overflow");
  CHECK(run("9223372036854775807 * 2") == "error: integer overflow");
  CHECK(run("-9223372036854775808 / -1") == "error: integer overflow");
  CHECK(run("-9223372036854775808 % -1") == "error: integer overflow");
  CHECK(run("-(-9223372036854775808)") == "error: integer overflow");
  CHECK(run("1 / 0") == "error: division by zero");
  CHECK(run("1 % 0") == "error: modulus by zero");
}

TEST_CASE("uint and double arithmetic") {
  CHECK(run("2u + 3u") == "5u");
  CHECK(run("2u - 3u") == "error: unsigned integer overflow");
  CHECK(run("18446744073709551615u + 1u") == "error: unsigned integer overflow");
  CHECK(run("18446744073709551615u * 2u") == "error: unsigned integer overflow");
  CHECK(run("7u / 2u") == "3u");
  CHECK(run("7u % 2u") == "1u");
  CHECK(run("1u / 0u") == "error: division by zero");
  CHECK(run("1u % 0u") == "error: modulus by zero");
  CHECK(run("-(1u)") == "error: no such overload");
  CHECK(run("1.5 + 2.25") == "3.75");
  CHECK(run("1.0 / 0.0") == "inf");
  CHECK(run("-1.0 / 0.0") == "-inf");
  CHECK(run("5.0 % 2.0") == "error: no such overload");
  CHECK(run("-(2.5)") == "-2.5");
}

TEST_CASE("no implicit numeric conversion in arithmetic") {
  CHECK(run("1 + 1.0") == "error: no such overload");
  CHECK(run("1 + 1u") == "error: no such overload");
  CHECK(run("1u * 2.0") == "error: no such overload");
  CHECK(run("'a' + 1") == "error: no such overload");
  CHECK(run("[1] + 'a'") == "error: no such overload");
}

TEST_CASE("concatenation") {
  CHECK(run("'ab' + 'cd'") == "\"abcd\"");
  CHECK(run("b'ab' + b'cd'") == "b\"abcd\"");
  CHECK(run("[1, 2] + [3]") == "[1, 2, 3]");
  CHECK(run("[] + []") == "[]");
  CHECK(run("'a' - 'b'") == "error: no such overload");
}

TEST_CASE("equality is heterogeneous across numbers") {
  CHECK(is_true("1 == 1.0"));
  CHECK(is_true("1 == 1u"));
  CHECK(is_true("1u == 1.0"));
  CHECK(is_true("-1 != 18446744073709551615u"));
  CHECK(is_true("1 != 'a'"));
  CHECK(is_true("null == null"));
  CHECK(is_true("[1, 2] == [1.0, 2u]"));
  CHECK(is_true("[1, 2] != [2, 1]"));
  CHECK(is_true("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}"));
  CHECK(is_true("{'a': 1} != {'a': 2}"));
  CHECK(is_true("{1: 'a'} == {1u: 'a'}"));
  CHECK(is_true("b'a' == b'a'"));
  CHECK(is_true("'a' != b'a'"));
  CHECK(is_true("[] != {}"));
  CHECK(is_true("0.0 / 0.0 != 0.0 / 0.0"));
  CHECK(run("1 == 1 / 0") == "error: division by zero");
}

TEST_CASE("ordering") {
  CHECK(is_true("1 < 2"));
  CHECK(is_true("2 <= 2"));
  CHECK(is_true("3 > 2"));
  CHECK(is_true("3 >= 3"));
  CHECK(is_true("1 < 1.5"));
  CHECK(is_true("2u > 1"));
  CHECK(is_true("-1 < 0u"));
  CHECK(is_true("1.5 < 2u"));
  CHECK(is_true("9223372036854775807 < 18446744073709551615u"));
  CHECK(is_true("'a' < 'b'"));
  CHECK(is_true("'abc' < 'abd'"));
  CHECK(is_true("'' < 'a'"));
  CHECK(is_true("b'\\x01' < b'\\x02'"));
  CHECK(is_true("false < true"));
  CHECK(run("0.0 / 0.0 < 1.0") == "false");
  CHECK(run("1 < 'a'") == "error: no such overload");
  CHECK(run("[1] < [2]") == "error: no such overload");
  CHECK(run("null < null") == "error: no such overload");
}

TEST_CASE("logical operators absorb errors when the other side decides") {
  CHECK(run("false && 1 / 0 == 1") == "false");
  CHECK(run("1 / 0 == 1 && false") == "false");
  CHECK(run("true || 1 / 0 == 1") == "true");
  CHECK(run("1 / 0 == 1 || true") == "true");
  CHECK(run("true && 1 / 0 == 1") == "error: division by zero");
  CHECK(run("1 / 0 == 1 && true") == "error: division by zero");
  CHECK(run("false || 1 / 0 == 1") == "error: division by zero");
  CHECK(run("1 / 0 == 1 || 2 % 0 == 1") == "error: division by zero");
  CHECK(run("true && true") == "true");
  CHECK(run("true && false") == "false");
  CHECK(run("false || false") == "false");
  CHECK(run("1 && true") == "error: no such overload");
  CHECK(run("1 || false") == "error: no such overload");
  CHECK(run("1 || true") == "true");
  CHECK(run("!1") == "error: no such overload");
  CHECK(run("!(1 / 0 == 1)") == "error: division by zero");
}

TEST_CASE("the conditional evaluates one branch") {
  CHECK(run("true ? 1 : 1 / 0") == "1");
  CHECK(run("false ? 1 / 0 : 2") == "2");
  CHECK(run("1 / 0 == 0 ? 1 : 2") == "error: division by zero");
  CHECK(run("1 ? 2 : 3") == "error: no such overload");
  CHECK(run("true ? 'a' : 1") == "\"a\"");
}

TEST_CASE("in over lists and maps") {
  CHECK(is_true("2 in [1, 2, 3]"));
  CHECK(is_true("!(4 in [1, 2, 3])"));
  CHECK(is_true("2.0 in [1, 2, 3]"));
  CHECK(is_true("'a' in {'a': 1}"));
  CHECK(is_true("!('b' in {'a': 1})"));
  CHECK(is_true("1u in {1: 'x'}"));
  CHECK(is_true("[1] in [[1], [2]]"));
  CHECK(run("1 in 1") == "error: no such overload");
  CHECK(run("'a' in 'abc'") == "error: no such overload");
}

TEST_CASE("indexing lists and maps") {
  CHECK(run("[1, 2, 3][0]") == "1");
  CHECK(run("[1, 2, 3][2u]") == "3");
  CHECK(run("[1, 2, 3][1.0]") == "2");
  CHECK(run("[1, 2, 3][3]") == "error: index '3' out of range in list size '3'");
  CHECK(run("[1, 2, 3][-1]") == "error: index '-1' out of range in list size '3'");
  CHECK(run("[1][1.5]") == "error: unsupported index type 'double' in list");
  CHECK(run("{'a': 1}['a']") == "1");
  CHECK(run("{'a': 1}['b']") == "error: no such key: b");
  CHECK(run("{1: 'x'}[2]") == "error: no such key: 2");
  CHECK(run("{1: 'x'}[1.0]") == "\"x\"");
  CHECK(run("'abc'[0]") == "error: no such overload");
}

TEST_CASE("map literals") {
  CHECK(run("{'a': 1, 'a': 2}") == "error: Failed with repeated key: a");
  CHECK(run("{1.5: 1}") == "error: unsupported key type: double");
  CHECK(run("{true: 1, 1: 2, 2u: 3}[true]") == "1");
  CHECK(run("{'a': 1 / 0}") == "error: division by zero");
  CHECK(run("[1, 1 / 0]") == "error: division by zero");
}

TEST_CASE("field selection and has") {
  json vars = {{"obj", {{"a", 1}, {"b", {{"c", "x"}}}, {"n", nullptr}}}};
  CHECK(run("obj.a", vars) == "1");
  CHECK(run("obj.b.c", vars) == "\"x\"");
  CHECK(run("obj.z", vars) == "error: no such key: z");
  CHECK(run("obj.b.z.y", vars) == "error: no such key: z");
  CHECK(run("has(obj.a)", vars) == "true");
  CHECK(run("has(obj.z)", vars) == "false");
  CHECK(run("has(obj.n)", vars) == "true");
  CHECK(run("has(obj.b.c)", vars) == "true");
  CHECK(run("has(obj.z.c)", vars) == "error: no such key: z");
  CHECK(run("has(obj.a.b)", vars) == "error: invalid type for field selection.");
  CHECK(run("obj.a.b", vars) == "error: type 'int' does not support field selection");
  CHECK(run("{'k': 2}.k") == "2");
  CHECK(run("obj.n == null", vars) == "true");
}

TEST_CASE("undeclared references are compile errors") {
  CHECK(compile_error("x + 1") ==
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
        " | x + 1\n"
        " | ^");
  CHECK(compile_error("1 + foo(2)") ==
        "ERROR: <input>:1:8: undeclared reference to 'foo' (in container '')\n"
        " | 1 + foo(2)\n"
        " | .......^");
  CHECK(compile_error("[1].all(x, y)").find("undeclared reference to 'y'") != std::string::npos);
  CHECK(compile_error("[1].all(x, x > 0) && x").find("undeclared reference to 'x'") !=
        std::string::npos);
  CHECK(compile_error("size(1, 2)").find("found no matching overload for 'size'") !=
        std::string::npos);
  CHECK(compile_error("self.size()", {.variables = {{.name = "self"}}}) == "");
}

TEST_CASE("type values") {
  CHECK(is_true("type(1) == int"));
  CHECK(is_true("type(1u) == uint"));
  CHECK(is_true("type(1.0) == double"));
  CHECK(is_true("type('a') == string"));
  CHECK(is_true("type(b'a') == bytes"));
  CHECK(is_true("type(true) == bool"));
  CHECK(is_true("type(null) == null_type"));
  CHECK(is_true("type([]) == list"));
  CHECK(is_true("type({}) == map"));
  CHECK(is_true("type(int) == type"));
  CHECK(is_true("type(duration('1s')) == google.protobuf.Duration") == false);
  CHECK(run("type(duration('1s'))") == "google.protobuf.Duration");
  CHECK(run("type(timestamp('2023-01-01T00:00:00Z'))") == "google.protobuf.Timestamp");
  CHECK(is_true("type(1) != string"));
  CHECK(run("dyn(1) + 1") == "2");
}

TEST_CASE("the all and exists macros") {
  CHECK(run("[1, 2, 3].all(x, x > 0)") == "true");
  CHECK(run("[1, 2, 3].all(x, x > 1)") == "false");
  CHECK(run("[].all(x, x > 1)") == "true");
  CHECK(run("[1, 2, 3].exists(x, x == 2)") == "true");
  CHECK(run("[1, 2, 3].exists(x, x == 5)") == "false");
  CHECK(run("[].exists(x, true)") == "false");
  // Errors are absorbed when another element decides.
  CHECK(run("[0, 1].all(x, 1 / x > 5)") == "false");
  CHECK(run("[0, 1].all(x, 1 / x > 0)") == "error: division by zero");
  CHECK(run("[0, 1].exists(x, 1 / x == 1)") == "true");
  CHECK(run("[0, 2].exists(x, 1 / x == 1)") == "error: division by zero");
  CHECK(run("{'a': 1, 'b': 2}.all(k, k in ['a', 'b'])") == "true");
  CHECK(run("{'a': 1, 'b': 2}.exists(k, k == 'b')") == "true");
  CHECK(run("[1].all(x, 1)") == "error: no such overload");
  CHECK(run("1.all(x, true)") == "error: no such overload");
}

TEST_CASE("exists_one, map and filter") {
  CHECK(run("[1, 2, 3].exists_one(x, x > 2)") == "true");
  CHECK(run("[1, 2, 3].exists_one(x, x > 1)") == "false");
  CHECK(run("[].exists_one(x, true)") == "false");
  CHECK(run("[0, 1].exists_one(x, 1 / x == 1)") == "error: division by zero");
  CHECK(run("[1, 2, 3].map(x, x * 2)") == "[2, 4, 6]");
  CHECK(run("[1, 2, 3].map(x, x > 1, x * 10)") == "[20, 30]");
  CHECK(run("[1, 2, 3, 4].filter(x, x % 2 == 0)") == "[2, 4]");
  CHECK(run("{'a': 1, 'b': 2}.map(k, k + k)") == "[\"aa\", \"bb\"]");
  CHECK(run("{'a': 1, 'b': 2}.filter(k, k != 'a')") == "[\"b\"]");
  CHECK(run("[1, 0].map(x, 1 / x)") == "error: division by zero");
  CHECK(run("[[1, 2], [3]].map(l, l.map(x, x + 1))") == "[[2, 3], [4]]");
  CHECK(run("[1, 2].map(x, [3, 4].map(y, x * y))") == "[[3, 4], [6, 8]]");
  CHECK(run("[1, 2].exists(x, [1, 2].exists(x, x == 2))") == "true");  // shadowing
}

TEST_CASE("variables bound to JSON") {
  json vars = {{"n", 3}, {"d", 2.5}, {"big", 18446744073709551615ULL}, {"s", "str"},
               {"l", {1, "two", 3.0}}, {"b", true}, {"z", nullptr}};
  CHECK(run("n", vars) == "3");
  CHECK(run("type(n)", vars) == "int");
  CHECK(run("d", vars) == "2.5");
  CHECK(run("big", vars) == "18446744073709551615u");
  CHECK(run("s + '!'", vars) == "\"str!\"");
  CHECK(run("l[1]", vars) == "\"two\"");
  CHECK(run("type(l[2])", vars) == "double");
  CHECK(run("size(l)", vars) == "3");
  CHECK(run("b && n == 3", vars) == "true");
  CHECK(run("z == null", vars) == "true");
  CHECK(run("l + [4]", vars) == "[1, \"two\", 3, 4]");
}

TEST_CASE("unbound and lazily computed variables") {
  kw::cel::Env env{.variables = {{.name = "x"}, {.name = "variables"}}};
  auto program = kw::cel::compile("variables.a + variables.a + variables.b", env);
  REQUIRE(program);
  int computed = 0;
  auto lazy = std::make_shared<kw::cel::LazyFields>();
  lazy->add("a", [&] { ++computed; return kw::cel::Value(std::int64_t{20}); });
  lazy->add("b", [&] { ++computed; return kw::cel::Value(std::int64_t{2}); });
  kw::cel::MapActivation activation;
  activation.bind("variables", kw::cel::Value(std::shared_ptr<const kw::cel::Object>(lazy)));
  auto result = program->evaluate(activation);
  REQUIRE(result);
  CHECK(result->value.as_int() == 42);
  CHECK(computed == 2);
  auto missing = kw::cel::compile("variables.c", env)->evaluate(activation);
  CHECK(missing.error().message == "no such key: c");
  auto unbound = kw::cel::compile("x", env)->evaluate(activation);
  CHECK(unbound.error().message == "no such attribute(s): x");
}

TEST_CASE("optional values") {
  json vars = {{"m", {{"a", 1}}}, {"l", {10, 20}}};
  CHECK(run("m.?a", vars) == "optional.of(1)");
  CHECK(run("m.?b", vars) == "optional.none()");
  CHECK(run("m.?b.orValue(5)", vars) == "5");
  CHECK(run("m.?a.orValue(5)", vars) == "1");
  CHECK(run("m.?a.hasValue()", vars) == "true");
  CHECK(run("m.?b.hasValue()", vars) == "false");
  CHECK(run("m.?a.value()", vars) == "1");
  CHECK(run("m.?b.value()", vars) == "error: optional.none() dereference");
  CHECK(run("l[?1]", vars) == "optional.of(20)");
  CHECK(run("l[?5]", vars) == "optional.none()");
  CHECK(run("m[?'a']", vars) == "optional.of(1)");
  CHECK(run("m.?x.y.orValue('d')", vars) == "\"d\"");
  CHECK(run("optional.of(1).value()") == "1");
  CHECK(run("optional.none().orValue(2)") == "2");
  CHECK(run("optional.none().or(optional.of(3)).value()") == "3");
  CHECK(run("optional.ofNonZeroValue(0).hasValue()") == "false");
  CHECK(run("optional.ofNonZeroValue('a').hasValue()") == "true");
  CHECK(run("[1, ?optional.none(), ?optional.of(3)]") == "[1, 3]");
  CHECK(run("{'a': 1, ?'b': optional.none(), ?'c': optional.of(2)}") == "{\"a\": 1, \"c\": 2}");
  CHECK(run("optional.of(1) == optional.of(1)") == "true");
  CHECK(run("optional.none() == optional.none()") == "true");
}

TEST_CASE("cost is counted and limited") {
  auto program = kw::cel::compile("[1, 2, 3].all(x, x > 0)");
  REQUIRE(program);
  kw::cel::MapActivation activation;
  auto result = program->evaluate(activation);
  REQUIRE(result);
  CHECK(result->cost > 0);
  auto limited = program->evaluate(activation, 5);
  REQUIRE_FALSE(limited);
  CHECK(limited.error().message == "operation cancelled: actual cost limit exceeded");
  CHECK(program->evaluate(activation, result->cost));
  CHECK_FALSE(program->evaluate(activation, result->cost - 1));
  CHECK(kw::cel::compile("1")->evaluate(activation)->cost == 0);
}

TEST_CASE("cost grows with the data") {
  json small = {{"l", json::array()}};
  json large = {{"l", json::array()}};
  for (int i = 0; i < 1000; ++i) large["l"].push_back(i);
  kw::cel::Env env{.variables = {{.name = "l"}}};
  auto program = kw::cel::compile("l.all(x, x >= 0)", env);
  REQUIRE(program);
  kw::cel::MapActivation a;
  a.bind_json("l", small["l"]);
  auto small_cost = program->evaluate(a)->cost;
  a.bind_json("l", large["l"]);
  auto large_cost = program->evaluate(a)->cost;
  CHECK(large_cost > small_cost + 3000);
  CHECK(program->evaluate(a, 1000).error().message ==
        "operation cancelled: actual cost limit exceeded");
  // A nested loop over the large list is stopped early, not run to the end.
  auto nested = kw::cel::compile("l.all(x, l.all(y, x + y >= 0))", env);
  CHECK(nested->evaluate(a, 100000).error().message ==
        "operation cancelled: actual cost limit exceeded");
  // String work costs by length.
  auto concat_small = kw::cel::compile("'a' + 'b'")->evaluate(a)->cost;
  auto concat_large =
      kw::cel::compile("'" + std::string(1000, 'a') + "' + 'b'")->evaluate(a)->cost;
  CHECK(concat_large > concat_small + 50);
}

TEST_CASE("evaluate_bool") {
  kw::cel::MapActivation a;
  CHECK(*kw::cel::compile("1 < 2")->evaluate_bool(a) == true);
  CHECK(*kw::cel::compile("1 > 2")->evaluate_bool(a) == false);
  CHECK(kw::cel::compile("1")->evaluate_bool(a).error().message == "expected a bool result, got int");
  CHECK(kw::cel::compile("1/0 == 1")->evaluate_bool(a).error().message == "division by zero");
  CHECK(kw::cel::Program().evaluate(a).error().message == "the program was not compiled");
}

TEST_CASE("results convert to JSON") {
  kw::cel::MapActivation a;
  auto value = kw::cel::compile("{'a': [1, 2.5, 'x', true, null], 'd': duration('90s')}")
                   ->evaluate(a)
                   ->value;
  CHECK(*value.to_json() == json::parse(R"({"a": [1, 2.5, "x", true, null], "d": "90s"})"));
  json doc = {{"k", {1, 2}}};
  a.bind_json("doc", doc);
  auto view = kw::cel::compile("doc.k", {.variables = {{.name = "doc"}}})->evaluate(a)->value;
  CHECK(view.json_node() == &doc["k"]);  // a view of the bound document, not a copy
  CHECK(*view.to_json() == json({1, 2}));
}
