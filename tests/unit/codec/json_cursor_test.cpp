#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/codec/json_cursor.hpp"
#include "json_cursor_rebuild.hpp"

using kw::codec::JsonCursor;
using kw::codec::test::rebuild;
using nlohmann::json;

namespace {

const char* const k_valid[] = {
    R"({})",
    R"([])",
    R"({"a":1,"b":[true,false,null],"c":{"d":"e"}})",
    R"(  { "a" : [ 1 , -2 , 3.5 , 1e3 , -0.25E-2 ] , "b" : "x\"y\\z\/" }  )",
    R"({"esc":"\b\f\n\r\t","uni":"\u00e9\u4e2d","pair":"\ud83d\ude00"})",
    R"({"big":18446744073709551615,"neg":-9223372036854775808,"huge":123456789012345678901234567890})",
    R"([[[[[]]]],{"":{"":[{}]}}])",
    R"("just a string")",
    R"(42)",
    R"({"utf8":"h\u00e9llo","raw":"héllo ✓"})",
};

const char* const k_malformed[] = {
    R"({"a":1,})",      // trailing comma
    R"({"a" 1})",       // no colon
    R"({,"a":1})",      // leading comma
    R"({"a":1 "b":2})", // no comma
    R"({"a":"unterminated})",
    "{\"a\":\"raw\ncontrol\"}",
    R"({"a":"\x"})",       // unknown escape
    R"({"a":"\u12"})",     // short \u
    R"({"a":"\udc00"})",   // lone low surrogate
    R"({"a":"\ud83d"})",   // high surrogate without its low half
    R"({"a":tru})",
    R"({"a":nul})",
    R"([1,2)",
    R"({"a":-})",
    R"({"a":+1})",
};

}  // namespace

TEST_CASE("json cursor: reading every value gives what nlohmann parses") {
  for (const char* text : k_valid) {
    CAPTURE(text);
    JsonCursor in(text);
    auto rebuilt = rebuild(in);
    REQUIRE(rebuilt.has_value());
    CHECK(in.at_end());
    CHECK(*rebuilt == json::parse(text));
  }
}

TEST_CASE("json cursor: skip() and raw() take exactly one value") {
  for (const char* text : k_valid) {
    CAPTURE(text);
    JsonCursor skipped(text);
    CHECK(skipped.skip());
    CHECK(skipped.at_end());
    JsonCursor in(text);
    auto raw = in.raw();
    REQUIRE(raw.has_value());
    CHECK(json::parse(*raw) == json::parse(text));
  }
  JsonCursor in(R"({"skip":{"deep":[1,{"x":"}]"}]},"keep":"v","after":[]})");
  REQUIRE(in.begin_object());
  CHECK(in.next_key() == "skip");
  CHECK(in.skip());
  CHECK(in.next_key() == "keep");
  std::string value;
  CHECK(in.string(value));
  CHECK(value == "v");
  CHECK(in.next_key() == "after");
  CHECK(in.raw() == "[]");
  CHECK_FALSE(in.next_key().has_value());
  CHECK_FALSE(in.failed());
  CHECK(in.at_end());
}

TEST_CASE("json cursor: malformed text fails the read, never succeeds quietly") {
  for (const char* text : k_malformed) {
    CAPTURE(text);
    REQUIRE(json::parse(text, nullptr, false).is_discarded());
    JsonCursor in(text);
    auto rebuilt = rebuild(in);
    CHECK((!rebuilt.has_value() || !in.at_end()));
  }
  JsonCursor trailing(R"({"a":1} x)");
  CHECK(rebuild(trailing).has_value());
  CHECK_FALSE(trailing.at_end());
  JsonCursor truncated(R"({"a":[1,2)");
  CHECK_FALSE(truncated.skip());
  CHECK(truncated.failed());
}

TEST_CASE("json cursor: numbers keep nlohmann's integer and float kinds") {
  auto read = [](const char* text) {
    JsonCursor in(text);
    json value;
    REQUIRE(in.scalar(value));
    return value;
  };
  CHECK(read("7").is_number_integer());
  CHECK(read("7").get<std::int64_t>() == 7);
  CHECK(read("-7").get<std::int64_t>() == -7);
  CHECK(read("18446744073709551615").is_number_unsigned());
  CHECK(read("0.5").is_number_float());
  CHECK(read("1e2").get<double>() == 100.0);
  CHECK(read("[1,\"a\"]") == json::array({1, "a"}));
}
