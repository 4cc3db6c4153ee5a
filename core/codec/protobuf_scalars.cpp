#include "core/codec/protobuf_scalars.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#include "core/util/base64.hpp"

namespace kw::codec::scalars {
namespace {

constexpr std::int64_t k_seconds_per_day = 86400;

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years).
std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

struct CivilDate {
  std::int64_t year;
  unsigned month;
  unsigned day;
};

CivilDate civil_from_days(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned mp = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = static_cast<std::int64_t>(year_of_era) + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

// Reads exactly `width` digits at `pos`.
bool read_digits(std::string_view text, std::size_t pos, std::size_t width, int& out) {
  if (pos + width > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

bool is_leap(std::int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned days_in_month(std::int64_t year, unsigned month) {
  static constexpr std::array<unsigned, 12> k_days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : k_days[month - 1];
}

kw::Error time_error(std::string_view text) {
  return kw::Error{"invalid RFC 3339 time \"" + std::string(text) + "\" (expected e.g. 2024-01-02T03:04:05Z)"};
}

// "d.ddd" of `value / 10^precision` with trailing zeros of the fraction removed.
std::string format_fraction(std::uint64_t value, int precision) {
  std::uint64_t scale = 1;
  for (int i = 0; i < precision; ++i) scale *= 10;
  std::string out = std::to_string(value / scale);
  std::uint64_t fraction = value % scale;
  if (fraction == 0) return out;
  std::string digits(static_cast<std::size_t>(precision), '0');
  for (int i = precision - 1; i >= 0; --i) {
    digits[static_cast<std::size_t>(i)] = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace

std::string base64_encode(std::string_view bytes) { return util::base64_encode(bytes); }

kw::Result<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return kw::fail("invalid base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int values[4];
    int padding = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<std::size_t>(k)];
      if (c == '=' && last && k >= 2) {
        ++padding;
        values[k] = 0;
        continue;
      }
      values[k] = padding > 0 ? -1 : base64_value(c);
      if (values[k] < 0) return kw::fail("invalid base64: unexpected character at offset " + std::to_string(i + static_cast<std::size_t>(k)));
    }
    const unsigned n = (static_cast<unsigned>(values[0]) << 18) | (static_cast<unsigned>(values[1]) << 12) |
                       (static_cast<unsigned>(values[2]) << 6) | static_cast<unsigned>(values[3]);
    out += static_cast<char>((n >> 16) & 0xff);
    if (padding < 2) out += static_cast<char>((n >> 8) & 0xff);
    if (padding < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

kw::Result<Timestamp> parse_rfc3339(std::string_view text) {
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || !read_digits(text, 0, 4, year) || text[4] != '-' || !read_digits(text, 5, 2, month) ||
      text[7] != '-' || !read_digits(text, 8, 2, day) || text[10] != 'T' || !read_digits(text, 11, 2, hour) ||
      text[13] != ':' || !read_digits(text, 14, 2, minute) || text[16] != ':' || !read_digits(text, 17, 2, second)) {
    return std::unexpected(time_error(text));
  }
  if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)) ||
      hour > 23 || minute > 59 || second > 59) {
    return std::unexpected(time_error(text));
  }
  std::size_t pos = 19;
  std::int32_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::unexpected(time_error(text));
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  std::int64_t offset_seconds = 0;
  if (pos < text.size() && text[pos] == 'Z') {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int offset_hours, offset_minutes;
    if (!read_digits(text, pos + 1, 2, offset_hours) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !read_digits(text, pos + 4, 2, offset_minutes) || offset_hours > 23 || offset_minutes > 59) {
      return std::unexpected(time_error(text));
    }
    offset_seconds = (offset_hours * 3600 + offset_minutes * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::unexpected(time_error(text));
  }
  if (pos != text.size()) return std::unexpected(time_error(text));
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return Timestamp{days * k_seconds_per_day + hour * 3600 + minute * 60 + second - offset_seconds, nanos};
}

std::string format_rfc3339(Timestamp timestamp, int fraction_digits) {
  std::int64_t days = timestamp.seconds / k_seconds_per_day;
  std::int64_t rest = timestamp.seconds % k_seconds_per_day;
  if (rest < 0) {
    rest += k_seconds_per_day;
    --days;
  }
  const CivilDate date = civil_from_days(days);
  char buffer[64];
  int n = std::snprintf(buffer, sizeof buffer, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(date.year),
                        date.month, date.day, static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                        static_cast<long long>(rest % 60));
  std::string out(buffer, static_cast<std::size_t>(n));
  if (fraction_digits > 0) {
    std::int32_t fraction = timestamp.nanos;
    for (int i = fraction_digits; i < 9; ++i) fraction /= 10;
    n = std::snprintf(buffer, sizeof buffer, ".%0*d", fraction_digits, static_cast<int>(fraction));
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out + "Z";
}

kw::Result<std::int64_t> parse_go_duration(std::string_view text) {
  const auto fail_duration = [&] { return kw::fail("invalid duration \"" + std::string(text) + "\" (expected e.g. 1h30m or 250ms)"); };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return fail_duration();
  long double total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
    if (i == 0) return fail_duration();
    long double number = 0;
    long double scale = 0;
    for (std::size_t k = 0; k < i; ++k) {
      if (s[k] == '.') {
        if (scale != 0) return fail_duration();
        scale = 1;
        continue;
      }
      number = number * 10 + (s[k] - '0');
      if (scale != 0) scale *= 10;
    }
    if (scale != 0) number /= scale;
    s.remove_prefix(i);
    std::size_t unit_length = 0;
    while (unit_length < s.size() && !((s[unit_length] >= '0' && s[unit_length] <= '9') || s[unit_length] == '.')) ++unit_length;
    const std::string_view unit = s.substr(0, unit_length);
    s.remove_prefix(unit_length);
    long double multiplier;
    if (unit == "ns") multiplier = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") multiplier = 1e3L;
    else if (unit == "ms") multiplier = 1e6L;
    else if (unit == "s") multiplier = 1e9L;
    else if (unit == "m") multiplier = 60e9L;
    else if (unit == "h") multiplier = 3600e9L;
    else return fail_duration();
    total += number * multiplier;
  }
  if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return fail_duration();
  const auto nanoseconds = static_cast<std::int64_t>(total + 0.5L);
  return negative ? -nanoseconds : nanoseconds;
}

std::string format_go_duration(std::int64_t nanoseconds) {
  if (nanoseconds == 0) return "0s";
  const bool negative = nanoseconds < 0;
  const std::uint64_t u = negative ? 0 - static_cast<std::uint64_t>(nanoseconds) : static_cast<std::uint64_t>(nanoseconds);
  std::string out;
  if (u < 1000) {
    out = std::to_string(u) + "ns";
  } else if (u < 1000000) {
    out = format_fraction(u, 3) + "\xC2\xB5s";
  } else if (u < 1000000000) {
    out = format_fraction(u, 6) + "ms";
  } else {
    const std::uint64_t total_seconds = u / 1000000000;
    out = format_fraction(total_seconds % 60 * 1000000000 + u % 1000000000, 9) + "s";
    const std::uint64_t minutes = total_seconds / 60;
    if (minutes > 0) {
      out = std::to_string(minutes % 60) + "m" + out;
      if (minutes / 60 > 0) out = std::to_string(minutes / 60) + "h" + out;
    }
  }
  return negative ? "-" + out : out;
}

}  // namespace kw::codec::scalars
