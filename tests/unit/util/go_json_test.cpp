// util::go_json_syntax_error against the texts Go's encoding/json gives for the same input.
#include <doctest/doctest.h>

#include <string>

#include "core/util/go_json.hpp"

using kw::util::go_json_syntax_error;

TEST_CASE("go json: well-formed input has no syntax error") {
  for (const char* text : {"null", " [ ] ", "{}", R"([{"key":"a","operator":"Exists"}])", "-0", "1.5e+3", "0.25E-2",
                           R"("\u00e9\n\"")", "true", "false", R"({"a":{"b":[1,2,{"c":null}]}})"})
    CHECK_MESSAGE(go_json_syntax_error(text).empty(), text);
}

TEST_CASE("go json: each scanner state words its error as Go does") {
  const std::pair<const char*, const char*> cases[] = {
      {"", "unexpected end of JSON input"},
      {"[1,", "unexpected end of JSON input"},
      {R"({"a")", "unexpected end of JSON input"},
      {"tru", "unexpected end of JSON input"},
      {"-", "unexpected end of JSON input"},
      {"x", "invalid character 'x' looking for beginning of value"},
      {"[1,]", "invalid character ']' looking for beginning of value"},
      {"'a'", R"(invalid character '\'' looking for beginning of value)"},
      {R"({"a" 1})", "invalid character '1' after object key"},
      {R"({"a":1 "b":2})", R"(invalid character '"' after object key:value pair)"},
      {"[1 2]", "invalid character '2' after array element"},
      {"{1:2}", "invalid character '1' looking for beginning of object key string"},
      {R"({"a":1,})", "invalid character '}' looking for beginning of object key string"},
      {"trux", "invalid character 'x' in literal true (expecting 'e')"},
      {"nulx", "invalid character 'x' in literal null (expecting 'l')"},
      {"fals0", "invalid character '0' in literal false (expecting 'e')"},
      {"-x", "invalid character 'x' in numeric literal"},
      {"1.x", "invalid character 'x' after decimal point in numeric literal"},
      {"1ex", "invalid character 'x' in exponent of numeric literal"},
      {"1e+", "unexpected end of JSON input"},
      {"01", "invalid character '1' after top-level value"},
      {"[] x", "invalid character 'x' after top-level value"},
      {R"("a\x")", "invalid character 'x' in string escape code"},
      {R"("\u12x4")", R"(invalid character 'x' in \u hexadecimal character escape)"},
      {"\"a\nb\"", R"(invalid character '\n' in string literal)"},
      {"\"a\x01\"", R"(invalid character '\x01' in string literal)"},
      {"\xe9", "invalid character '\xc3\xa9' looking for beginning of value"},
  };
  for (const auto& [text, message] : cases) CHECK_MESSAGE(go_json_syntax_error(text) == message, text);
}

TEST_CASE("go json: nesting up to Go's limit is fine, one level more is exceeded max depth") {
  const std::string fine = std::string(10000, '[') + std::string(10000, ']');
  CHECK(go_json_syntax_error(fine).empty());
  CHECK(go_json_syntax_error(std::string(10001, '[')) == "exceeded max depth");
  // Deeper still costs no stack: the scanner keeps its open containers in a vector.
  CHECK(go_json_syntax_error(std::string(1'000'000, '[')) == "exceeded max depth");
}
