#include "core/codec/json_limits.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using kw::codec::parse_json;
using json = nlohmann::json;

namespace {

// The members parse_json names as repeated ("!" when the text does not parse).
std::vector<std::string> repeated(const std::string& text) {
  std::vector<std::string> out;
  if (!parse_json(text, kw::codec::k_max_json_depth, &out)) return {"!"};
  return out;
}

}  // namespace

TEST_CASE("parse_json: the value nlohmann's own parser gives") {
  for (const char* text : {R"({"a":[1,-2,3.5,"x",true,null,{}],"b":{"c":[]}})", "7", R"("s")", "[[],[[]]]",
                           R"({"n":18446744073709551615,"e":1e2})"}) {
    auto parsed = parse_json(text);
    REQUIRE(parsed);
    CHECK(*parsed == json::parse(text));
  }
}

TEST_CASE("parse_json: a repeated member keeps its last value, as Go's decoder does") {
  auto parsed = parse_json(R"({"a":{"x":1},"a":{"y":2},"b":[{"k":1,"k":[3]}]})");
  REQUIRE(parsed);
  CHECK(*parsed == json::parse(R"({"a":{"y":2},"b":[{"k":[3]}]})"));
}

TEST_CASE("parse_json: errors in the parser's words, and the nesting limit") {
  auto bad = parse_json(R"({"a":)");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.starts_with("parse error at line 1, column 6"));
  CHECK_FALSE(parse_json(R"({"a":1} x)"));
  CHECK_FALSE(parse_json(""));
  // The limit holds as containers open: an unterminated deep document is refused for its depth.
  auto deep = parse_json(std::string(100000, '['));
  REQUIRE_FALSE(deep);
  CHECK(deep.error().message == "exceeded max depth");
  CHECK(parse_json(std::string(3, '[') + std::string(3, ']'), 3));
  CHECK_FALSE(parse_json(std::string(4, '[') + std::string(4, ']'), 3));
  CHECK(parse_json(std::string(10000, '[') + std::string(10000, ']')));
}

TEST_CASE("parse_json: each repeated member named by its path, in document order") {
  CHECK(repeated(R"({"a":1,"b":2})").empty());
  CHECK(repeated(R"({"metadata":{"name":"x","name":"y"}})") == std::vector<std::string>{"metadata.name"});
  CHECK(repeated(R"({"s":{"c":[{"p":1},{"p":1,"p":2}]},"s":0})") == std::vector<std::string>{"s.c[1].p", "s"});
  CHECK(repeated(R"({"a":1,"a":2,"a":3})") == std::vector<std::string>{"a", "a"});
  // Keys are compared decoded; members of different objects never clash.
  CHECK(repeated(R"({"k":1,"\u006b":2})") == std::vector<std::string>{"k"});
  CHECK(repeated(R"({"x":{"k":1},"y":{"k":1}})").empty());
  CHECK(repeated(R"([{"a":1,"a":2}])") == std::vector<std::string>{"[0].a"});
  CHECK(repeated(R"([[0,{"a":1}],[{"b":1},{"c":[1,{"d":0,"d":1}]}]])") == std::vector<std::string>{"[1][1].c[1].d"});
  // The repeat of a member whose first value was a container, then a repeat inside the second.
  CHECK(repeated(R"({"a":{"x":1},"a":{"x":2,"x":3}})") == std::vector<std::string>{"a", "a.x"});
  CHECK(repeated(R"({"a":1,"a":)") == std::vector<std::string>{"!"});
}

TEST_CASE("member_paths: every member in document order, repeats again") {
  CHECK(member_paths(R"({"b":1,"a":{"y":[{"q":0},{"p":[1,{"z":2}]}],"x":1},"b":2})") ==
        std::vector<std::string>{"b", "a", "a.y", "a.y[0].q", "a.y[1].p", "a.y[1].p[1].z", "a.x", "b"});
  CHECK(member_paths(R"([[0,{"a":1}],{"b":{}}])") == std::vector<std::string>{"[0][1].a", "[1].b"});
  CHECK(member_paths(R"({"a":)").empty());
  CHECK(member_paths(std::string(5, '[') + std::string(5, ']'), 4).empty());
}
