// Duration and timestamp text for CEL, and the calendar fields of an instant (core/util/go_time).
#include "core/cel/time.hpp"

#include "core/util/go_time.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kw::cel {

namespace {

constexpr std::int64_t k_nanos_per_second = 1000000000;
constexpr std::int64_t k_min_seconds = -62135596800;  // 0001-01-01T00:00:00Z
constexpr std::int64_t k_max_seconds = 253402300799;  // 9999-12-31T23:59:59Z

using util::days_from_civil;
using util::read_digits;

// "+05:30" / "-08:00" / "Z" at text[pos..]; the offset in seconds.
bool zone_offset(std::string_view text, std::int64_t& offset) {
  if (text == "Z" || text == "z") {
    offset = 0;
    return true;
  }
  int h = 0;
  int m = 0;
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':' ||
      !read_digits(text, 1, 2, h) || !read_digits(text, 4, 2, m) || h > 23 || m > 59) {
    return false;
  }
  offset = (h * 3600 + m * 60) * (text[0] == '-' ? -1 : 1);
  return true;
}

}  // namespace

bool timestamp_in_range(std::int64_t seconds) {
  return seconds >= k_min_seconds && seconds <= k_max_seconds;
}

Result<Duration> parse_duration(std::string_view text) {
  auto nanos = util::parse_go_duration(text);
  if (!nanos) return std::unexpected(nanos.error());
  return Duration{*nanos};
}

Result<Timestamp> parse_timestamp(std::string_view text) {
  auto invalid = [&] {
    return fail("parsing time \"" + std::string(text) + "\" as RFC3339: cannot parse");
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 20 || !read_digits(text, 0, 4, year) || text[4] != '-' ||
      !read_digits(text, 5, 2, month) || text[7] != '-' || !read_digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !read_digits(text, 11, 2, hour) || text[13] != ':' ||
      !read_digits(text, 14, 2, minute) || text[16] != ':' || !read_digits(text, 17, 2, second)) {
    return invalid();
  }
  std::size_t pos = 19;
  std::int64_t nanos = 0;
  if (text[pos] == '.') {
    std::size_t start = ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    if (pos == start || pos - start > 9) return invalid();
    for (std::size_t i = start; i < start + 9; ++i) {
      nanos = nanos * 10 + (i < pos ? text[i] - '0' : 0);
    }
  }
  std::int64_t offset = 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 59 || !zone_offset(text.substr(pos), offset)) {
    return invalid();
  }
  std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 +
                         second - offset;
  if (!timestamp_in_range(seconds)) return fail("timestamp out of range");
  return Timestamp{seconds, static_cast<std::int32_t>(nanos)};
}

Result<Timestamp> parse_date(std::string_view text) {
  int year = 0, month = 0, day = 0;
  if (text.size() != 10 || !read_digits(text, 0, 4, year) || text[4] != '-' ||
      !read_digits(text, 5, 2, month) || text[7] != '-' || !read_digits(text, 8, 2, day) || month < 1 ||
      month > 12 || day < 1 || day > 31) {
    return fail("parsing time \"" + std::string(text) + "\" as \"2006-01-02\": cannot parse");
  }
  return Timestamp{days_from_civil(year, month, day) * 86400, 0};
}

std::string format_duration(Duration d) {
  std::int64_t seconds = d.nanos / k_nanos_per_second;
  std::int64_t nanos = d.nanos % k_nanos_per_second;
  std::string out = (d.nanos < 0 && seconds == 0) ? "-" : "";
  out += std::to_string(seconds);
  if (nanos != 0) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%09lld", static_cast<long long>(nanos < 0 ? -nanos : nanos));
    std::string frac(buf);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + "s";
}

std::string format_timestamp(Timestamp t) {
  std::int64_t days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400;
  std::int64_t rem = t.seconds - days * 86400;
  const util::CivilDate date = util::civil_from_days(days);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(date.year), date.month,
                date.day, static_cast<int>(rem / 3600), static_cast<int>(rem % 3600 / 60),
                static_cast<int>(rem % 60));
  std::string out(buf);
  if (t.nanos != 0) {
    std::snprintf(buf, sizeof buf, ".%09d", t.nanos);
    std::string frac(buf);
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  return out + "Z";
}

Result<CivilTime> civil_time(Timestamp t, std::string_view zone) {
  std::int64_t offset = 0;
  if (!zone.empty() && zone != "UTC" && !zone_offset(zone, offset)) {
    return fail("unknown time zone " + std::string(zone));
  }
  std::int64_t local = t.seconds + offset;
  std::int64_t days = local >= 0 ? local / 86400 : (local - 86399) / 86400;
  std::int64_t rem = local - days * 86400;
  CivilTime c;
  const util::CivilDate date = util::civil_from_days(days);
  c.year = date.year;
  c.month = static_cast<int>(date.month);
  c.day = static_cast<int>(date.day);
  c.hours = static_cast<int>(rem / 3600);
  c.minutes = static_cast<int>(rem % 3600 / 60);
  c.seconds = static_cast<int>(rem % 60);
  c.milliseconds = t.nanos / 1000000;
  c.day_of_week = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  c.day_of_year = static_cast<int>(days - days_from_civil(c.year, 1, 1));
  return c;
}

}  // namespace kw::cel
