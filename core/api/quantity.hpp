#pragma once
// resource.Quantity ("500m", "1Gi", "2e3", "1.5") as the rows' checks and printers read it:
// parsed to a value that compares across suffixes ("1000m" and "1", "1Gi" and "1024Mi" are
// equal), its sign, and its text as written. kw keeps the text a client sent; nothing here
// canonicalizes it.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::api {

// mantissa * 10^exp10 * 2^exp2.
struct Quantity {
  long double mantissa = 0;
  int exp10 = 0;
  int exp2 = 0;

  // The value times 10^shift: shift 0 is the value, 3 its thousandths (MilliValue).
  long double scaled(int shift = 0) const;
  int sign() const { return mantissa > 0 ? 1 : mantissa < 0 ? -1 : 0; }
};

// nullopt when the text is not a quantity: a signed decimal number, then a binary suffix
// (Ki..Ei), a decimal suffix (n, u, m, "", k, M..E) or a decimal exponent (e3, E-2).
std::optional<Quantity> parse_quantity(std::string_view text);
// A JSON quantity: its string, or a bare number as JSON writes it.
std::optional<Quantity> parse_quantity(const nlohmann::json& value);
// The value of a JSON quantity (Quantity.AsApproximateFloat64); nullopt when it is none.
std::optional<long double> quantity_value(const nlohmann::json& value);
// Quantity.Sign(): -1, 0 or 1; 0 for a value that is not a quantity.
int quantity_sign(const nlohmann::json& value);
// The quantity's text as written (a bare number as JSON writes it); `missing` for anything else.
std::string quantity_string(const nlohmann::json& value, std::string_view missing = "0");

}  // namespace kw::api
