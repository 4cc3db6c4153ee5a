#include "core/api/quantity.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

#include <boost/multiprecision/cpp_int.hpp>

namespace kw::api {
namespace {

using BigInt = boost::multiprecision::cpp_int;

constexpr std::string_view k_format_wrong =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view k_bad_suffix = "unable to parse quantity's suffix";
constexpr int k_nano_exponent = -9;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The pieces of a quantity's text, as Go's parseQuantityString cuts them: the sign, the number as
// written (sign, digits, point), its integer digits (leading zeros dropped; "0" when none), its
// fraction digits and its suffix.
struct Pieces {
  bool positive = true;
  std::string_view number, whole, fraction, suffix;
};

std::optional<Pieces> cut(std::string_view s) {
  Pieces p;
  std::size_t pos = 0;
  const std::size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    p.positive = s[0] == '+';
    ++pos;
  }
  while (pos < end && s[pos] == '0') ++pos;
  if (pos >= end) {  // nothing but zeros (or a bare sign): zero
    p.whole = p.number = "0";
    return p;
  }
  const std::size_t whole_start = pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  p.whole = s.substr(whole_start, pos - whole_start);
  if (pos >= end) {
    p.number = s;
    return p;
  }
  if (p.whole.empty()) p.whole = "0";
  if (s[pos] == '.') {
    const std::size_t fraction_start = ++pos;
    while (pos < end && is_digit(s[pos])) ++pos;
    p.fraction = s.substr(fraction_start, pos - fraction_start);
    if (pos >= end) {
      p.number = s;
      return p;
    }
  }
  p.number = s.substr(0, pos);
  const std::size_t suffix_start = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  if (pos < end) return std::nullopt;
  p.suffix = s.substr(suffix_start);
  return p;
}

struct Suffix {
  std::string_view text;
  std::int64_t exponent;  // of 10, or of 2 for the binary ones
};
constexpr std::array<Suffix, 10> k_decimal_suffixes{{
    {"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}}};
constexpr std::array<Suffix, 7> k_binary_suffixes{{
    {"", 0}, {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}}};

struct Meaning {
  std::int64_t exponent = 0;
  QuantityFormat format = QuantityFormat::decimal_si;
};

// What a suffix means: SI decimal, binary, or a decimal exponent ("e3", "E-2"), whose number Go
// reads as an int64 and then truncates to 32 bits.
std::optional<Meaning> interpret(std::string_view suffix) {
  for (const auto& s : k_decimal_suffixes)
    if (s.text == suffix) return Meaning{s.exponent, QuantityFormat::decimal_si};
  for (const auto& s : k_binary_suffixes)
    if (!s.text.empty() && s.text == suffix) return Meaning{s.exponent, QuantityFormat::binary_si};
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  std::string_view number = suffix.substr(1);  // strconv.ParseInt: a sign, then digits
  const bool minus = number[0] == '-';
  if (number[0] == '+' || number[0] == '-') number.remove_prefix(1);
  std::uint64_t magnitude = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), magnitude);
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (minus ? 1 : 0);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() || magnitude > limit)
    return std::nullopt;
  const auto parsed = minus ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return Meaning{static_cast<std::int32_t>(parsed), QuantityFormat::decimal_exponent};
}

std::string without_leading_zeros(std::string digits) {
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  digits.erase(0, first);
  return digits;
}

BigInt power_of_ten(std::int64_t n) {
  BigInt p = 1;
  for (std::int64_t i = 0; i < n; ++i) p *= 10;
  return p;
}

bool ends_with_zeros(std::string_view digits, std::size_t count) {
  return digits.size() >= count && digits.substr(digits.size() - count).find_first_not_of('0') == std::string_view::npos;
}

}  // namespace

Result<GoQuantity> parse_go_quantity(std::string_view text) {
  if (text.empty()) return fail(std::string(k_format_wrong));
  if (text == "0") return GoQuantity{.kept = "0"};
  const auto pieces = cut(text);
  if (!pieces) return fail(std::string(k_format_wrong));
  const auto meaning = interpret(pieces->suffix);
  if (!meaning) return fail(std::string(k_bad_suffix));
  const bool binary = meaning->format == QuantityFormat::binary_si;
  const auto whole = static_cast<std::int64_t>(pieces->whole.size());
  const auto fraction = static_cast<std::int64_t>(pieces->fraction.size());

  // Go's int64 fast path, and the texts it keeps as written.
  std::int64_t precision = -1, scale = 0, shift = 0;
  if (!binary) {
    scale = meaning->exponent;
    precision = 18 - whole - fraction;
  } else if (fraction == 0) {
    shift = meaning->exponent;
    precision = 15 - whole - meaning->exponent * 3 / 10 - 1;
  }
  if (precision >= 0 && scale - fraction >= k_nano_exponent) {
    scale -= fraction;
    const std::string shifted = std::string(pieces->whole) + std::string(pieces->fraction);
    std::uint64_t value = 0;
    std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);
    if (value <= (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) >> shift)) {
      GoQuantity q;
      q.digits = std::to_string(value << shift);
      q.negative = !pieces->positive && value != 0;
      q.exponent = scale;
      q.format = meaning->format;
      const bool keep = binary ? meaning->exponent % 10 == 0 && (value & 7) != 0
                               : scale % 3 == 0 && !ends_with_zeros(shifted, 3) && shifted[0] != '0';
      if (keep) q.kept = std::string(text);
      return q;
    }
  }

  // The exact path (Go's inf.Dec).
  GoQuantity q;
  q.format = meaning->format;
  q.digits = without_leading_zeros(std::string(pieces->whole) + std::string(pieces->fraction));
  q.exponent = -fraction;
  if (binary) q.digits = (BigInt(q.digits) << static_cast<unsigned>(meaning->exponent)).str();
  else q.exponent += meaning->exponent;
  q.round_up(k_nano_exponent);  // Go's inf.Dec path keeps no finer value than 1n
  if (binary) {
    // Binary quantities stop at the largest int64; below 1 they are written in decimal.
    const BigInt value(q.digits), unit = power_of_ten(-q.exponent);
    if (value > BigInt(std::numeric_limits<std::int64_t>::max()) * unit) {
      q.digits = std::to_string(std::numeric_limits<std::int64_t>::max());
      q.exponent = 0;
    } else if (value < unit && q.digits != "0") {
      q.format = QuantityFormat::decimal_si;
    }
  }
  q.negative = !pieces->positive && q.digits != "0";
  return q;
}

Result<GoQuantity> parse_go_quantity(const nlohmann::json& value) {
  if (value.is_null()) return GoQuantity{};
  if (value.is_number()) return parse_go_quantity(std::string_view(value.dump()));
  if (!value.is_string()) return fail(std::string(k_format_wrong));
  std::string_view text = value.get_ref<const std::string&>();
  constexpr std::string_view k_space = " \t\n\v\f\r";
  const auto first = text.find_first_not_of(k_space);
  if (first == std::string_view::npos) return parse_go_quantity(std::string_view());
  return parse_go_quantity(text.substr(first, text.find_last_not_of(k_space) - first + 1));
}

GoQuantity scaled_quantity(std::int64_t value, int scale) {
  GoQuantity q;
  q.negative = value < 0;
  const auto magnitude = value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  q.digits = std::to_string(magnitude);
  q.exponent = magnitude == 0 ? 0 : scale;
  return q;
}

Result<std::string> canonical_quantity(const nlohmann::json& value) {
  auto q = parse_go_quantity(value);
  if (!q) return std::unexpected(q.error());
  return q->string();
}

std::string GoQuantity::string() const {
  if (!kept.empty()) return kept;
  if (zero()) return "0";
  const std::string sign = negative ? "-" : "";
  if (format == QuantityFormat::binary_si) {
    // Whole values of 1024 and more are written in powers of 1024 ("1536Mi"), the rest in decimal.
    const bool whole = exponent >= 0 || ends_with_zeros(digits, static_cast<std::size_t>(-exponent));
    const BigInt magnitude(digits), unit = power_of_ten(exponent < 0 ? -exponent : 0);
    if (whole && magnitude >= 1024 * unit) {
      auto n = static_cast<std::uint64_t>(magnitude * power_of_ten(exponent > 0 ? exponent : 0) / unit);
      std::size_t times = 0;
      while (n % 1024 == 0 && times + 1 < k_binary_suffixes.size()) {
        n /= 1024;
        ++times;
      }
      return sign + std::to_string(n) + std::string(k_binary_suffixes[times].text);
    }
  }
  // Decimal: the fewest digits with an exponent that is a multiple of three.
  std::string mantissa = digits;
  std::int64_t e = exponent;
  while (mantissa.size() > 1 && mantissa.back() == '0') {
    mantissa.pop_back();
    ++e;
  }
  while (e % 3 != 0) {
    mantissa.push_back('0');
    --e;
  }
  std::string suffix;
  if (format == QuantityFormat::decimal_exponent) {
    if (e != 0) suffix = "e" + std::to_string(e);
  } else {
    // An exponent past "E" has no SI suffix: Go writes the digits alone.
    for (const auto& s : k_decimal_suffixes)
      if (s.exponent == e) suffix = s.text;
  }
  return sign + mantissa + suffix;
}

std::int64_t GoQuantity::scaled_value(int scale) const {
  constexpr auto k_max = std::numeric_limits<std::int64_t>::max();
  BigInt magnitude(digits);
  const std::int64_t shift = exponent - scale;
  if (shift >= 0) {
    if (shift > 20 && magnitude != 0) return negative ? std::numeric_limits<std::int64_t>::min() : k_max;
    magnitude *= power_of_ten(shift);
  } else {
    const BigInt unit = power_of_ten(-shift);
    const bool fraction = magnitude % unit != 0;
    magnitude /= unit;
    if (fraction) magnitude += 1;
  }
  if (magnitude > k_max) return negative ? std::numeric_limits<std::int64_t>::min() : k_max;
  const auto v = static_cast<std::int64_t>(magnitude);
  return negative ? -v : v;
}

void GoQuantity::round_up(int scale) {
  if (exponent >= scale || zero()) return;
  kept.clear();
  const std::int64_t cut_digits = scale - exponent;
  exponent = scale;
  if (cut_digits >= static_cast<std::int64_t>(digits.size())) {
    digits = "1";
    return;
  }
  const auto keep = digits.size() - static_cast<std::size_t>(cut_digits);
  const bool fraction = digits.find_first_not_of('0', keep) != std::string::npos;
  digits.resize(keep);
  digits = without_leading_zeros(fraction ? (BigInt(digits) + 1).str() : digits);
}

void GoQuantity::add(const GoQuantity& other) {
  if (zero()) format = other.format;
  kept.clear();
  // Both values in units of 10^low, signed, summed exactly.
  const std::int64_t low = std::min(exponent, other.exponent);
  const auto scaled = [low](const GoQuantity& q) {
    BigInt v = BigInt(q.digits) * power_of_ten(q.exponent - low);
    return q.negative ? BigInt(-v) : v;
  };
  BigInt sum = scaled(*this) + scaled(other);
  negative = sum < 0;
  if (negative) sum = -sum;
  digits = sum.str();
  exponent = sum == 0 ? 0 : low;
}

void GoQuantity::subtract(const GoQuantity& other) {
  GoQuantity negated = other;
  negated.negative = !other.negative && !other.zero();
  add(negated);
}

int GoQuantity::compare(const GoQuantity& other) const {
  const int own_sign = zero() ? 0 : negative ? -1 : 1;
  const int other_sign = other.zero() ? 0 : other.negative ? -1 : 1;
  if (own_sign != other_sign) return own_sign < other_sign ? -1 : 1;
  if (own_sign == 0) return 0;
  // Magnitudes: the order of the leading digit first, then the digits themselves.
  const auto order = [](const GoQuantity& q) { return static_cast<std::int64_t>(q.digits.size()) + q.exponent; };
  int magnitude = 0;
  if (order(*this) != order(other)) {
    magnitude = order(*this) < order(other) ? -1 : 1;
  } else {
    std::string a = digits, b = other.digits;
    const auto width = std::max(a.size(), b.size());
    a.resize(width, '0');
    b.resize(width, '0');
    magnitude = a < b ? -1 : a > b ? 1 : 0;
  }
  return own_sign * magnitude;
}

long double Quantity::scaled(int shift) const {
  const int e = exp10 + shift;
  const long double power = std::pow(10.0L, static_cast<long double>(e < 0 ? -e : e));
  return std::ldexp(e < 0 ? mantissa / power : mantissa * power, exp2);
}

std::optional<Quantity> parse_quantity(std::string_view s) {
  auto exact = parse_go_quantity(s);
  if (!exact) return std::nullopt;
  Quantity q;
  q.mantissa = std::strtold(exact->digits.c_str(), nullptr);
  if (exact->negative) q.mantissa = -q.mantissa;
  q.exp10 = static_cast<int>(std::clamp<std::int64_t>(exact->exponent, -100000, 100000));
  return q;
}

std::optional<Quantity> parse_quantity(const nlohmann::json& value) {
  if (value.is_number()) return parse_quantity(std::string_view(value.dump()));
  if (!value.is_string()) return std::nullopt;
  return parse_quantity(std::string_view(value.get_ref<const std::string&>()));
}

std::optional<long double> quantity_value(const nlohmann::json& value) {
  if (auto q = parse_quantity(value)) return q->scaled();
  return std::nullopt;
}

int quantity_sign(const nlohmann::json& value) {
  const auto q = parse_quantity(value);
  return q ? q->sign() : 0;
}

std::string quantity_string(const nlohmann::json& value, std::string_view missing) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return std::string(missing);
}

}  // namespace kw::api
