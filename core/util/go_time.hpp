#pragma once
// Go's time arithmetic and text that more than one part of kw reads: civil dates (proleptic
// Gregorian, Howard Hinnant's day algorithms) and time.ParseDuration, with Go's error texts.
#include <cstdint>
#include <string_view>

#include "core/util/error.hpp"

namespace kw::util {

// Days since 1970-01-01 of a date.
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day);

struct CivilDate {
  std::int64_t year = 0;
  unsigned month = 0;  // 1..12
  unsigned day = 0;    // 1..31
};
// The date `days` after 1970-01-01.
CivilDate civil_from_days(std::int64_t days);

// Exactly `width` decimal digits at text[pos], into `out`.
bool read_digits(std::string_view text, std::size_t pos, std::size_t width, int& out);

// time.ParseDuration: "1h30m", "-1.5s", "250ms", "2us" (also µs) in nanoseconds; errors as Go
// words them ("time: invalid duration \"x\"", "time: unknown unit \"d\" in duration \"1d\"",
// "time: missing unit in duration \"1\"").
Result<std::int64_t> parse_go_duration(std::string_view text);

}  // namespace kw::util
