#include "core/util/go_time.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "core/util/text.hpp"

namespace kw::util {

std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto year_of_era = static_cast<unsigned>(year - era * 400);
  const unsigned day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

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

bool read_digits(std::string_view text, std::size_t pos, std::size_t width, int& out) {
  if (pos + width > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

Result<std::int64_t> parse_go_duration(std::string_view orig) {
  const auto invalid = [&] { return fail("time: invalid duration " + go_quote(orig)); };
  std::string_view s = orig;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return invalid();
  static constexpr std::pair<std::string_view, long double> k_units[] = {
      {"ns", 1.0L}, {"us", 1e3L}, {"\u00b5s", 1e3L}, {"\u03bcs", 1e3L}, {"ms", 1e6L}, {"s", 1e9L}, {"m", 60e9L}, {"h", 3600e9L}};
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  long double total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || digit(s[0]))) return invalid();
    std::size_t i = 0;
    long double value = 0;
    while (i < s.size() && digit(s[i])) value = value * 10 + (s[i++] - '0');
    const bool pre = i > 0;
    bool post = false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 1;
      const std::size_t start = i;
      while (i < s.size() && digit(s[i])) value += (s[i++] - '0') / (scale *= 10);
      post = i > start;
    }
    if (!pre && !post) return invalid();
    s.remove_prefix(i);
    std::size_t unit_end = 0;
    while (unit_end < s.size() && !(s[unit_end] == '.' || digit(s[unit_end]))) ++unit_end;
    if (unit_end == 0) return fail("time: missing unit in duration " + go_quote(orig));
    const std::string_view unit = s.substr(0, unit_end);
    s.remove_prefix(unit_end);
    const auto found = std::find_if(std::begin(k_units), std::end(k_units), [&](const auto& u) { return u.first == unit; });
    if (found == std::end(k_units))
      return fail("time: unknown unit " + go_quote(unit) + " in duration " + go_quote(orig));
    total += value * found->second;
    if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return invalid();
  }
  const auto nanoseconds = static_cast<std::int64_t>(total + 0.5L);
  return negative ? -nanoseconds : nanoseconds;
}

}  // namespace kw::util
