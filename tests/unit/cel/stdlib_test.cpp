// Standard functions: size, string tests, matches, conversions, durations and timestamps.
#include <doctest/doctest.h>

#include "unit/cel/support.hpp"

using cel_test::is_true;
using cel_test::run;

TEST_CASE("size") {
  CHECK(run("size('hello')") == "5");
  CHECK(run("'hello'.size()") == "5");
  CHECK(run("size('\xC3\xA9t\xC3\xA9')") == "3");  // code points
  CHECK(run("size(b'\\xc3\\xa9')") == "2");
  CHECK(run("size([1, 2, 3])") == "3");
  CHECK(run("[1, 2].size()") == "2");
  CHECK(run("size({'a': 1})") == "1");
  CHECK(run("size(1)") == "error: no such overload");
}

TEST_CASE("contains, startsWith, endsWith") {
  CHECK(is_true("'foobar'.contains('oba')"));
  CHECK(is_true("!'foobar'.contains('baz')"));
  CHECK(is_true("'foobar'.contains('')"));
  CHECK(is_true("'foobar'.startsWith('foo')"));
  CHECK(is_true("!'foobar'.startsWith('bar')"));
  CHECK(is_true("'foobar'.endsWith('bar')"));
  CHECK(is_true("!'foobar'.endsWith('foo')"));
  CHECK(run("'a'.contains(1)") == "error: no such overload");
}

TEST_CASE("matches uses RE2 syntax") {
  CHECK(is_true("'hello'.matches('^h.*o$')"));
  CHECK(is_true("matches('hello', 'ell')"));  // unanchored
  CHECK(is_true("!'hello'.matches('^ell')"));
  CHECK(is_true("'ABC'.matches('(?i)abc')"));
  CHECK(is_true("'a1b2'.matches('[0-9]')"));
  CHECK(is_true("'192.168.1.1'.matches(r'^(\\d{1,3}\\.){3}\\d{1,3}$')"));
  CHECK(run("'a'.matches('(')").find("error: error parsing regexp") == 0);
}

TEST_CASE("int conversions") {
  CHECK(run("int(42u)") == "42");
  CHECK(run("int(3.9)") == "3");
  CHECK(run("int(-3.9)") == "-3");
  CHECK(run("int('123')") == "123");
  CHECK(run("int('-5')") == "-5");
  CHECK(run("int('abc')") == "error: strconv.ParseInt: parsing \"abc\": invalid syntax");
  CHECK(run("int(18446744073709551615u)") == "error: integer overflow");
  CHECK(run("int(1e19)") == "error: integer overflow");
  CHECK(run("int(timestamp('1970-01-01T00:01:00Z'))") == "60");
  CHECK(run("int(duration('1s'))") == "1000000000");
  CHECK(run("int(true)") == "error: type conversion error from 'bool' to 'int'");
}

TEST_CASE("uint and double conversions") {
  CHECK(run("uint(42)") == "42u");
  CHECK(run("uint(-1)") == "error: unsigned integer overflow");
  CHECK(run("uint(2.7)") == "2u");
  CHECK(run("uint('7')") == "7u");
  CHECK(run("uint(-1.5)") == "error: unsigned integer overflow");
  CHECK(run("double(2)") == "2");
  CHECK(run("type(double(2))") == "double");
  CHECK(run("double(3u)") == "3");
  CHECK(run("double('1.5')") == "1.5");
  CHECK(run("double('1e3')") == "1000");
  CHECK(run("double('x')") == "error: strconv.ParseFloat: parsing \"x\": invalid syntax");
}

TEST_CASE("string conversions") {
  CHECK(run("string(42)") == "\"42\"");
  CHECK(run("string(-42)") == "\"-42\"");
  CHECK(run("string(42u)") == "\"42\"");
  CHECK(run("string(1.5)") == "\"1.5\"");
  CHECK(run("string(100000.0)") == "\"100000\"");
  CHECK(run("string(1000000.0)") == "\"1e+06\"");
  CHECK(run("string(0.0001)") == "\"0.0001\"");
  CHECK(run("string(0.00001)") == "\"1e-05\"");
  CHECK(run("string(123456789.5)") == "\"1.234567895e+08\"");
  CHECK(run("string(true)") == "\"true\"");
  CHECK(run("string(b'abc')") == "\"abc\"");
  CHECK(run("string(b'\\xff')") == "error: invalid UTF-8 in bytes, cannot convert to string");
  CHECK(run("string(duration('1m30s'))") == "\"90s\"");
  CHECK(run("string(duration('1.5s'))") == "\"1.5s\"");
  CHECK(run("string(duration('-1ms'))") == "\"-0.001s\"");
  CHECK(run("string(timestamp('2023-01-02T03:04:05Z'))") == "\"2023-01-02T03:04:05Z\"");
  CHECK(run("string(timestamp('2023-01-02T03:04:05.120+01:00'))") ==
        "\"2023-01-02T02:04:05.12Z\"");
  CHECK(run("string(int)") == "\"int\"");
  CHECK(run("string([1])") == "error: type conversion error from 'list' to 'string'");
}

TEST_CASE("bytes and bool conversions") {
  CHECK(run("bytes('abc')") == "b\"abc\"");
  CHECK(run("bytes('\xC3\xA9').size()") == "2");
  CHECK(run("bool('true')") == "true");
  CHECK(run("bool('FALSE')") == "false");
  CHECK(run("bool('t')") == "true");
  CHECK(run("bool('0')") == "false");
  CHECK(run("bool('yes')") == "error: type conversion error from 'string' to 'bool'");
}

TEST_CASE("durations") {
  CHECK(is_true("duration('1h') == duration('60m')"));
  CHECK(is_true("duration('1h2m3s') == duration('3723s')"));
  CHECK(is_true("duration('1.5h') == duration('90m')"));
  CHECK(is_true("duration('300ms') < duration('1s')"));
  CHECK(is_true("duration('1us') == duration('1000ns')"));
  CHECK(is_true("duration('-1s') < duration('0')"));
  CHECK(run("duration('1h') + duration('30m')") == "duration(\"5400s\")");
  CHECK(run("duration('1h') - duration('2h')") == "duration(\"-3600s\")");
  CHECK(run("-duration('1s')") == "duration(\"-1s\")");
  CHECK(run("duration('1x')") == "error: time: unknown unit \"x\" in duration \"1x\"");
  CHECK(run("duration('1')") == "error: time: missing unit in duration \"1\"");
  CHECK(run("duration('')") == "error: time: invalid duration \"\"");
  CHECK(run("duration('3723s').getHours()") == "1");
  CHECK(run("duration('3723s').getMinutes()") == "62");
  CHECK(run("duration('3723s').getSeconds()") == "3723");
  CHECK(run("duration('1.5s').getMilliseconds()") == "1500");
  CHECK(run("duration('1h') + 1") == "error: no such overload");
}

TEST_CASE("timestamps") {
  CHECK(is_true("timestamp('2023-01-01T00:00:00Z') < timestamp('2023-01-01T00:00:01Z')"));
  CHECK(is_true("timestamp('2023-01-01T01:00:00+01:00') == timestamp('2023-01-01T00:00:00Z')"));
  CHECK(is_true("timestamp(0) == timestamp('1970-01-01T00:00:00Z')"));
  CHECK(run("timestamp('2023-01-01T00:00:00Z') + duration('36h')") ==
        "timestamp(\"2023-01-02T12:00:00Z\")");
  CHECK(run("duration('1s') + timestamp('2023-01-01T00:00:00Z')") ==
        "timestamp(\"2023-01-01T00:00:01Z\")");
  CHECK(run("timestamp('2023-01-01T00:00:00Z') - duration('1ns')") ==
        "timestamp(\"2022-12-31T23:59:59.999999999Z\")");
  CHECK(run("timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z')") ==
        "duration(\"86400s\")");
  CHECK(run("timestamp('9999-12-31T23:59:59Z') + duration('1s')") ==
        "error: timestamp overflow");
  CHECK(run("timestamp('2023-13-01T00:00:00Z')").find("error: parsing time") == 0);
  CHECK(run("timestamp('2023-01-01')").find("error: parsing time") == 0);
  CHECK(run("timestamp('2023-01-01T00:00:00Z') + timestamp('2023-01-01T00:00:00Z')") ==
        "error: no such overload");
}

TEST_CASE("timestamp getters") {
  const char* t = "timestamp('2023-03-05T14:07:09.250Z')";  // a Sunday
  CHECK(run(std::string(t) + ".getFullYear()") == "2023");
  CHECK(run(std::string(t) + ".getMonth()") == "2");
  CHECK(run(std::string(t) + ".getDate()") == "5");
  CHECK(run(std::string(t) + ".getDayOfMonth()") == "4");
  CHECK(run(std::string(t) + ".getDayOfWeek()") == "0");
  CHECK(run(std::string(t) + ".getDayOfYear()") == "63");
  CHECK(run(std::string(t) + ".getHours()") == "14");
  CHECK(run(std::string(t) + ".getMinutes()") == "7");
  CHECK(run(std::string(t) + ".getSeconds()") == "9");
  CHECK(run(std::string(t) + ".getMilliseconds()") == "250");
  CHECK(run(std::string(t) + ".getHours('UTC')") == "14");
  CHECK(run(std::string(t) + ".getHours('+05:30')") == "19");
  CHECK(run(std::string(t) + ".getMinutes('+05:30')") == "37");
  CHECK(run(std::string(t) + ".getHours('-15:00')") == "23");
  CHECK(run(std::string(t) + ".getDate('-15:00')") == "4");
  CHECK(run(std::string(t) + ".getHours('Mars/Olympus')") ==
        "error: unknown time zone Mars/Olympus");
  CHECK(run("timestamp('1969-12-31T23:59:59Z').getDayOfWeek()") == "3");
  CHECK(run("timestamp('2024-12-31T00:00:00Z').getDayOfYear()") == "365");
}
