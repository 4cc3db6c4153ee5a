#include "core/api/quantity.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kw::api {

long double Quantity::scaled(int shift) const {
  const int e = exp10 + shift;
  const long double power = std::pow(10.0L, static_cast<long double>(e < 0 ? -e : e));
  return std::ldexp(e < 0 ? mantissa / power : mantissa * power, exp2);
}

std::optional<Quantity> parse_quantity(std::string_view s) {
  Quantity q;
  std::size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) ++i;
  bool digits = false, dot = false;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      if (dot) return std::nullopt;
      dot = true;
      continue;
    }
    digits = true;
    q.mantissa = q.mantissa * 10 + (s[i] - '0');
    if (dot) --q.exp10;
  }
  if (!digits) return std::nullopt;
  if (negative) q.mantissa = -q.mantissa;
  static const std::pair<std::string_view, std::pair<int, int>> k_suffixes[] = {
      {"", {0, 0}},    {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}}, {"k", {3, 0}},   {"M", {6, 0}},
      {"G", {9, 0}},   {"T", {12, 0}},  {"P", {15, 0}},  {"E", {18, 0}}, {"Ki", {0, 10}}, {"Mi", {0, 20}},
      {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}}};
  const std::string_view suffix = s.substr(i);
  for (const auto& [name, exponents] : k_suffixes)
    if (suffix == name) {
      q.exp10 += exponents.first;
      q.exp2 = exponents.second;
      return q;
    }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return std::nullopt;
  std::string_view exponent = suffix.substr(1);
  const bool negative_exponent = exponent[0] == '-';
  if (exponent[0] == '+' || exponent[0] == '-') exponent.remove_prefix(1);
  if (exponent.empty() || exponent.size() > 4 ||
      !std::all_of(exponent.begin(), exponent.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int e = 0;
  for (char c : exponent) e = e * 10 + (c - '0');
  q.exp10 += negative_exponent ? -e : e;
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
