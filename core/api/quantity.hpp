#pragma once
// resource.Quantity ("500m", "1Gi", "2e3", "1.5"), two ways:
// - GoQuantity: exactly as Go's resource.ParseQuantity holds it, and written back as Go writes it
//   (String(): "0.5" -> "500m", "1024Mi" -> "1Gi", "1.5Gi" -> "1536Mi"; some texts, "1Ki" or
//   "+1", are kept as written). Every built-in object's quantities are stored in this form, and
//   its parse errors are Go's.
// - Quantity: an approximate value (long double) the rows' checks and printers compare across
//   suffixes ("1000m" and "1", "1Gi" and "1024Mi" are equal).
// Both read Go's grammar, through one parser.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::api {

// Quantity.Format: how String() writes the value.
enum class QuantityFormat { decimal_exponent, binary_si, decimal_si };

struct GoQuantity {
  bool negative = false;
  std::string digits = "0";   // the unscaled magnitude in decimal, without leading zeros
  std::int64_t exponent = 0;  // value = digits * 10^exponent (never below -9: Go rounds to nano units)
  QuantityFormat format = QuantityFormat::decimal_si;
  std::string kept = {};      // the text Go keeps as it was written ("500m", "1Ki", "+1"), else ""

  bool zero() const { return digits == "0"; }
  // Quantity.String().
  std::string string() const;
  // Quantity.ScaledValue(10^scale): Value() is scale 0, MilliValue() scale -3. Rounded away from
  // zero; saturated at the int64 range.
  std::int64_t scaled_value(int scale) const;
  std::int64_t value() const { return scaled_value(0); }
  std::int64_t milli_value() const { return scaled_value(-3); }
  // Quantity.Cmp: -1, 0 or 1.
  int compare(const GoQuantity& other) const;
  // Quantity.Add and Quantity.Sub: exact; the result is written canonically, in this
  // quantity's format (in the other's when this one is zero, as Go keeps it).
  void add(const GoQuantity& other);
  void subtract(const GoQuantity& other);
  // Quantity.RoundUp(10^scale): a value finer than that is rounded away from zero to it, and is
  // then written canonically. (Kubernetes rounds every ResourceList value to milli units.)
  void round_up(int scale);
};

// resource.ParseQuantity: the quantity, or Go's error text ("quantities must match the regular
// expression ...", "unable to parse quantity's suffix").
Result<GoQuantity> parse_go_quantity(std::string_view text);
// A JSON quantity as Go's UnmarshalJSON reads it: a string (spaces around it trimmed) or a bare
// number (its JSON text).
Result<GoQuantity> parse_go_quantity(const nlohmann::json& value);
// resource.NewScaledQuantity(value, 10^scale) in DecimalSI: NewMilliQuantity is scale -3.
GoQuantity scaled_quantity(std::int64_t value, int scale);
// The canonical text of a JSON quantity (GoQuantity::string()), or Go's error text.
Result<std::string> canonical_quantity(const nlohmann::json& value);

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
