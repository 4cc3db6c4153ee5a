#include "core/codec/protobuf_scalars.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#include "core/util/base64.hpp"
#include "core/util/go_time.hpp"

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

using util::civil_from_days;
using util::CivilDate;
using util::days_from_civil;
using util::read_digits;

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
