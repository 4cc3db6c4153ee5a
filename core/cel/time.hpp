#pragma once
// Durations and timestamps: Go's time.ParseDuration text ("1h2m3.5s"), RFC 3339 timestamps,
// their CEL string forms, and the calendar fields the timestamp getters read.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/cel/value.hpp"
#include "core/util/error.hpp"

namespace kw::cel {

// time.ParseDuration: "1h", "-1.5m", "300ms", "1h2m3s", units ns us µs ms s m h.
Result<Duration> parse_duration(std::string_view text);
// RFC 3339: "2023-01-02T03:04:05Z", "...05.123+02:00".
Result<Timestamp> parse_timestamp(std::string_view text);
// A full date, "2023-01-02", at midnight UTC (OpenAPI format "date").
Result<Timestamp> parse_date(std::string_view text);
// CEL's string(duration): seconds with up to 9 decimals and "s" ("3723s", "1.5s").
std::string format_duration(Duration d);
// CEL's string(timestamp): RFC 3339 in UTC, fractional seconds only when present.
std::string format_timestamp(Timestamp t);
bool timestamp_in_range(std::int64_t seconds);

// The calendar fields of an instant in a time zone.
struct CivilTime {
  std::int64_t year = 0;
  int month = 0;        // 1..12
  int day = 0;          // 1..31
  int hours = 0;
  int minutes = 0;
  int seconds = 0;
  int milliseconds = 0;
  int day_of_week = 0;  // 0 = Sunday
  int day_of_year = 0;  // 0-based
};
// `zone` is "" or "UTC", or a fixed offset "+05:30" / "-08:00"; an error for other names.
Result<CivilTime> civil_time(Timestamp t, std::string_view zone);

}  // namespace kw::cel
