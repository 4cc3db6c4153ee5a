// The CEL parser: literals, escapes, syntax errors in cel-go's layout, and bounded nesting.
#include <doctest/doctest.h>

#include <string>

#include "unit/cel/support.hpp"

using cel_test::compile_error;
using cel_test::run;

TEST_CASE("integer, uint and double literals") {
  CHECK(run("42") == "42");
  CHECK(run("0x1F") == "31");
  CHECK(run("0XfF") == "255");
  CHECK(run("-7") == "-7");
  CHECK(run("-9223372036854775808") == "-9223372036854775808");
  CHECK(run("9223372036854775807") == "9223372036854775807");
  CHECK(run("123u") == "123u");
  CHECK(run("0x10U") == "16u");
  CHECK(run("18446744073709551615u") == "18446744073709551615u");
  CHECK(run("1.5") == "1.5");
  CHECK(run("1e3") == "1000");
  CHECK(run("2.5e-1") == "0.25");
  CHECK(run(".5") == "0.5");
  CHECK(run("-1.5") == "-1.5");
  CHECK(run("--1") == "1");
  CHECK(run("- -2") == "2");
  CHECK(run("type(1e3)") == "double");
}

TEST_CASE("out of range literals are rejected") {
  CHECK(compile_error("9223372036854775808").find("invalid int literal") != std::string::npos);
  CHECK(compile_error("18446744073709551616u").find("invalid uint literal") != std::string::npos);
}

TEST_CASE("bool, null, string and bytes literals") {
  CHECK(run("true") == "true");
  CHECK(run("false") == "false");
  CHECK(run("null") == "null");
  CHECK(run("'abc'") == "\"abc\"");
  CHECK(run("\"abc\"") == "\"abc\"");
  CHECK(run("'''a'b'''") == "\"a'b\"");
  CHECK(run("\"\"\"line1\nline2\"\"\"") == "\"line1\nline2\"");
  CHECK(run("b'abc'") == "b\"abc\"");
  CHECK(run("B\"\\xff\"") == "b\"\xff\"");
  CHECK(run("size(b'\\xff\\x00')") == "2");
  CHECK(run("size('\\xff')") == "1");  // a code point in a string, two bytes of UTF-8
  CHECK(run("bytes('\\xff') == b'\\xc3\\xbf'") == "true");
}

TEST_CASE("string escapes") {
  CHECK(run(R"('a\nb')") == "\"a\nb\"");
  CHECK(run(R"('\t\r\a\b\f\v')") == "\"\t\r\a\b\f\v\"");
  CHECK(run(R"('\'\"\`\?')") == "\"'\\\"`?\"");
  CHECK(run(R"('\\')") == "\"\\\\\"");
  CHECK(run(R"('\x41\X42')") == "\"AB\"");
  CHECK(run(R"('\101')") == "\"A\"");
  CHECK(run(R"('\u00e9')") == "\"\xC3\xA9\"");
  CHECK(run(R"('\U0001F600')") == "\"\xF0\x9F\x98\x80\"");
  CHECK(run(R"(size('\U0001F600'))") == "1");
  CHECK(compile_error(R"('\q')").find("invalid escape sequence") != std::string::npos);
  CHECK(compile_error(R"('\ud800')").find("invalid escape sequence") != std::string::npos);
  CHECK(compile_error(R"(b'\u0041')").find("invalid escape sequence") != std::string::npos);
}

TEST_CASE("raw strings keep backslashes") {
  CHECK(run(R"(r'\d+')") == R"("\\d+")");
  CHECK(run(R"(R"a\nb")") == R"("a\\nb")");
  CHECK(run(R"(size(r'\n'))") == "2");
  CHECK(run(R"(rb'\x00')") == R"(b"\\x00")");
  CHECK(run(R"(r'''a\'''')").find("compile") == 0);
}

TEST_CASE("comments and white space") {
  CHECK(run("1 + // one\n 2") == "3");
  CHECK(run("\t1\r\n+\f2") == "3");
}

TEST_CASE("lists and maps with trailing commas") {
  CHECK(run("[1, 2, 3,]") == "[1, 2, 3]");
  CHECK(run("[]") == "[]");
  CHECK(run("{'a': 1, 'b': 2,}") == "{\"a\": 1, \"b\": 2}");
  CHECK(run("{}") == "{}");
  CHECK(run("f(1,)").find("compile") == 0);  // f is undeclared, the syntax is fine
  CHECK(compile_error("size([1,2],)") == "");
  CHECK(compile_error("[1,,2]") != "");
}

TEST_CASE("a syntax error is reported with its line, column and a caret") {
  CHECK(compile_error("self.", {.variables = {{.name = "self"}}}) ==
        "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting IDENTIFIER\n"
        " | self.\n"
        " | .....^");
  CHECK(compile_error("1 + ") ==
        "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting an expression\n"
        " | 1 + \n"
        " | ....^");
  CHECK(compile_error("1 # 2") ==
        "ERROR: <input>:1:3: Syntax error: token recognition error at: '#'\n"
        " | 1 # 2\n"
        " | ..^");
  CHECK(compile_error("(1") ==
        "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting ')'\n"
        " | (1\n"
        " | ..^");
  CHECK(compile_error("1 2") ==
        "ERROR: <input>:1:3: Syntax error: mismatched input '2' expecting <EOF>\n"
        " | 1 2\n"
        " | ..^");
}

TEST_CASE("errors on later lines point into that line") {
  CHECK(compile_error("1 +\n  2 +\n  )") ==
        "ERROR: <input>:3:3: Syntax error: mismatched input ')' expecting an expression\n"
        " |   )\n"
        " | ..^");
  // The column counts code points, not bytes.
  CHECK(compile_error("'\xC3\xA9' + #").find("<input>:1:7:") != std::string::npos);
}

TEST_CASE("unterminated strings") {
  CHECK(compile_error("'abc").find("Syntax error: token recognition error at: ''abc'") !=
        std::string::npos);
  CHECK(compile_error("'a\nb'").find("<input>:1:1:") != std::string::npos);
}

TEST_CASE("reserved words are not identifiers") {
  CHECK(compile_error("while").find("reserved identifier: while") != std::string::npos);
  // Fields and methods may have reserved names, as cel-go parses them.
  CHECK(kw::cel::compile("a.package", {.variables = {{.name = "a"}}}).has_value());
  CHECK(compile_error("in").find("Syntax error") != std::string::npos);
  CHECK(compile_error("namespace + 1").find("reserved identifier: namespace") !=
        std::string::npos);
}

TEST_CASE("precedence and associativity") {
  CHECK(run("1 + 2 * 3") == "7");
  CHECK(run("(1 + 2) * 3") == "9");
  CHECK(run("10 - 4 - 3") == "3");
  CHECK(run("100 / 10 / 5") == "2");
  CHECK(run("7 % 4 * 2") == "6");
  CHECK(run("1 < 2 == true") == "true");
  CHECK(run("true || false && false") == "true");
  CHECK(run("!true || true") == "true");
  CHECK(run("!!true") == "true");
  CHECK(run("!!!true") == "false");
  CHECK(run("-(1 + 2)") == "-3");
  CHECK(run("true ? 1 : false ? 2 : 3") == "1");
  CHECK(run("false ? 1 : false ? 2 : 3") == "3");
  CHECK(run("1 in [1] && 2 in [2]") == "true");
  CHECK(run("[1, 2][1] + 1") == "3");
  CHECK(run("{'a': [1, {'b': 2}]}.a[1].b") == "2");
}

TEST_CASE("deep nesting is refused, not overflowed") {
  std::string parens(100000, '(');
  auto message = compile_error(parens + "1" + std::string(100000, ')'), {.max_source_length = 1000000});
  CHECK(message.find("expression recursion limit exceeded: 250") != std::string::npos);
  std::string lists(100000, '[');
  message = compile_error(lists, {.max_source_length = 1000000});
  CHECK(message.find("expression recursion limit exceeded") != std::string::npos);
  std::string nots(100000, '!');
  CHECK(compile_error(nots + "true", {.max_source_length = 1000000}) == "");
  std::string chain = "1";
  for (int i = 0; i < 20000; ++i) chain += " + 1";
  message = compile_error(chain, {.max_source_length = 1000000});
  CHECK(message.find("expression recursion limit exceeded") != std::string::npos);
  std::string ands = "true";
  for (int i = 0; i < 5000; ++i) ands += " && true";
  CHECK(run(ands) == "true");  // && chains are balanced, as cel-go balances them
  std::string members = "{'a': 1}";
  for (int i = 0; i < 20000; ++i) members += ".a";
  message = compile_error(members, {.max_source_length = 1000000});
  CHECK(message.find("expression recursion limit exceeded") != std::string::npos);
}

TEST_CASE("nesting within the limits evaluates") {
  std::string parens(200, '(');
  CHECK(run(parens + "1" + std::string(200, ')')) == "1");
  std::string list = std::string(100, '[') + std::string(100, ']');
  CHECK(compile_error(list) == "");
}

TEST_CASE("the source length is bounded") {
  std::string big = "'" + std::string(200, 'a') + "'";
  CHECK(compile_error(big, {.max_source_length = 100}) ==
        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 202, limit 100");
  CHECK(compile_error(big) == "");
}

TEST_CASE("leading dot identifiers and optional syntax parse") {
  CHECK(run(".x", {{"x", 3}}) == "3");
  CHECK(compile_error("a.?b", {.variables = {{.name = "a"}}}) == "");
  CHECK(compile_error("a[?0]", {.variables = {{.name = "a"}}}) == "");
  CHECK(compile_error("[?a]", {.variables = {{.name = "a"}}}) == "");
  CHECK(compile_error("{?'k': a}", {.variables = {{.name = "a"}}}) == "");
  CHECK(compile_error("a.?b()", {.variables = {{.name = "a"}}}) != "");
}

TEST_CASE("macro arguments are checked") {
  CHECK(compile_error("has(1)").find("invalid argument to has() macro") != std::string::npos);
  CHECK(compile_error("[1].all(1, true)").find("argument must be a simple name") !=
        std::string::npos);
  CHECK(compile_error("has(a.b)", {.variables = {{.name = "a"}}}) == "");
}
