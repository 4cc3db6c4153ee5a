// Duration and timestamp text, and calendar arithmetic (Howard Hinnant's civil-day algorithms).
#include "core/cel/time.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace kw::cel {

namespace {

constexpr std::int64_t k_nanos_per_second = 1000000000;
constexpr std::int64_t k_min_seconds = -62135596800;  // 0001-01-01T00:00:00Z
constexpr std::int64_t k_max_seconds = 253402300799;  // 9999-12-31T23:59:59Z

std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2;
  std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  std::int64_t yoe = y - era * 400;
  std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, int& m, int& d) {
  z += 719468;
  std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = yoe + era * 400 + (m <= 2);
}

// Reads exactly `width` digits at text[pos].
bool digits(std::string_view text, std::size_t pos, std::size_t width, int& out) {
  if (pos + width > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

// "+05:30" / "-08:00" / "Z" at text[pos..]; the offset in seconds.
bool zone_offset(std::string_view text, std::int64_t& offset) {
  if (text == "Z" || text == "z") {
    offset = 0;
    return true;
  }
  int h = 0;
  int m = 0;
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':' ||
      !digits(text, 1, 2, h) || !digits(text, 4, 2, m) || h > 23 || m > 59) {
    return false;
  }
  offset = (h * 3600 + m * 60) * (text[0] == '-' ? -1 : 1);
  return true;
}

struct Unit {
  std::string_view name;
  double nanos;
};
constexpr Unit k_units[] = {{"ns", 1}, {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"\xCE\xBCs", 1e3},
                            {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};

}  // namespace

bool timestamp_in_range(std::int64_t seconds) {
  return seconds >= k_min_seconds && seconds <= k_max_seconds;
}

Result<Duration> parse_duration(std::string_view text) {
  auto invalid = [&] { return fail("time: invalid duration \"" + std::string(text) + "\""); };
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return Duration{0};
  if (rest.empty()) return invalid();
  long double total = 0;
  while (!rest.empty()) {
    std::size_t n = 0;
    while (n < rest.size() && ((rest[n] >= '0' && rest[n] <= '9') || rest[n] == '.')) ++n;
    if (n == 0 || rest.substr(0, n) == ".") return invalid();
    std::string number(rest.substr(0, n));
    rest.remove_prefix(n);
    std::size_t u = 0;
    while (u < rest.size() && !(rest[u] >= '0' && rest[u] <= '9') && rest[u] != '.') ++u;
    std::string_view unit = rest.substr(0, u);
    rest.remove_prefix(u);
    const Unit* found = nullptr;
    for (const auto& candidate : k_units) {
      if (candidate.name == unit) found = &candidate;
    }
    if (found == nullptr) {
      if (unit.empty()) return fail("time: missing unit in duration \"" + std::string(text) + "\"");
      return fail("time: unknown unit \"" + std::string(unit) + "\" in duration \"" +
                  std::string(text) + "\"");
    }
    total += std::strtold(number.c_str(), nullptr) * found->nanos;
  }
  if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return invalid();
  auto nanos = static_cast<std::int64_t>(std::llroundl(total));
  return Duration{negative ? -nanos : nanos};
}

Result<Timestamp> parse_timestamp(std::string_view text) {
  auto invalid = [&] {
    return fail("parsing time \"" + std::string(text) + "\" as RFC3339: cannot parse");
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 20 || !digits(text, 0, 4, year) || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second)) {
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
  if (text.size() != 10 || !digits(text, 0, 4, year) || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) || month < 1 ||
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
  std::int64_t y = 0;
  int m = 0, d = 0;
  civil_from_days(days, y, m, d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(y), m,
                d, static_cast<int>(rem / 3600), static_cast<int>(rem % 3600 / 60),
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
  civil_from_days(days, c.year, c.month, c.day);
  c.hours = static_cast<int>(rem / 3600);
  c.minutes = static_cast<int>(rem % 3600 / 60);
  c.seconds = static_cast<int>(rem % 60);
  c.milliseconds = t.nanos / 1000000;
  c.day_of_week = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  c.day_of_year = static_cast<int>(days - days_from_civil(c.year, 1, 1));
  return c;
}

}  // namespace kw::cel
