#include <doctest/doctest.h>

#include <string>

#include "core/codec/text.hpp"

using kw::codec::go_json_escape;
using kw::codec::is_valid_utf8;

TEST_CASE("UTF-8: well-formed text of every length is accepted") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("h\xc3\xa9llo"));               // U+00E9
  CHECK(is_valid_utf8("\xe6\x97\xa5\xe6\x9c\xac"));    // U+65E5 U+672C
  CHECK(is_valid_utf8("\xf0\x9f\x9a\x80"));            // U+1F680
  CHECK(is_valid_utf8("\xf4\x8f\xbf\xbf"));            // U+10FFFF, the last code point
  CHECK(is_valid_utf8(std::string("a\0b", 3)));        // NUL is a character
}

TEST_CASE("UTF-8: malformed, overlong, surrogate and out-of-range sequences are refused") {
  CHECK_FALSE(is_valid_utf8("\x80"));                  // a continuation byte alone
  CHECK_FALSE(is_valid_utf8("\xc3"));                  // cut short
  CHECK_FALSE(is_valid_utf8("\xe6\x97"));              // cut short
  CHECK_FALSE(is_valid_utf8("\xc3\x28"));              // bad continuation
  CHECK_FALSE(is_valid_utf8("\xc0\xaf"));              // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xe0\x80\xaf"));          // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xf0\x80\x80\xaf"));      // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xed\xa0\x80"));          // U+D800, a surrogate
  CHECK_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));      // U+110000
  CHECK_FALSE(is_valid_utf8("\xf8\x88\x80\x80\x80"));  // a five-byte form
  CHECK_FALSE(is_valid_utf8("\xff"));
}

TEST_CASE("Go JSON escaping: <, >, & and U+2028/U+2029 as json.Marshal writes them") {
  CHECK(go_json_escape(R"({"a":"x"})") == R"({"a":"x"})");
  CHECK(go_json_escape(R"({"b":"<a&b>"})") == R"({"b":"\u003ca\u0026b\u003e"})");
  CHECK(go_json_escape("{\"ls\":\"a\xe2\x80\xa8" "b\xe2\x80\xa9" "c\"}") == R"({"ls":"a\u2028b\u2029c"})");
  // Other characters that start with E2 (U+2014, an em dash) are left alone, also at the end.
  CHECK(go_json_escape("\"\xe2\x80\x94\"") == "\"\xe2\x80\x94\"");
  CHECK(go_json_escape("\"\xe2\x80") == "\"\xe2\x80");
}
