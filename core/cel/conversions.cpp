// Type conversions: int(), uint(), double(), string(), bytes(), bool(), duration(),
// timestamp(), with cel-go's range errors and Go's parse messages.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/cel/functions.hpp"
#include "core/cel/time.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

Value conversion_error(const Value& v, std::string_view to) {
  return Value::error("type conversion error from '" + v.type_name() + "' to '" +
                      std::string(to) + "'");
}

// Go's %g (strconv.FormatFloat(d, 'g', -1, 64)): the shortest digits, in exponent form below
// 1e-4 or from 1e6 on.
std::string format_double(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  (void)ec;
  std::string sci(buf, end);  // "-1.2345e+06"
  std::size_t e = sci.find('e');
  int exponent = std::stoi(sci.substr(e + 1));
  std::string mantissa = sci.substr(0, e);
  bool negative = mantissa[0] == '-';
  std::string digits;
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits += c;
  }
  constexpr int eprec = 6;  // Go decides on 6 digits for the shortest form
  if (exponent < -4 || exponent >= eprec) {
    std::snprintf(buf, sizeof buf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    std::string out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    return (negative ? "-" : "") + out + buf;
  }
  std::string out;
  if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<std::size_t>(exponent) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
          digits.substr(static_cast<std::size_t>(exponent) + 1);
  }
  return (negative ? "-" : "") + out;
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

template <class T>
std::optional<T> parse_integer(const std::string& s) {
  T value{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

Value to_int(Args args, CallContext&) {
  const Value& v = args[0];
  switch (v.kind()) {
    case Kind::integer: return v;
    case Kind::uinteger:
      if (v.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) return Value::error("integer overflow");
      return Value(static_cast<std::int64_t>(v.as_uint()));
    case Kind::floating: {
      double d = v.as_double();
      if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0)) {
        return Value::error("integer overflow");
      }
      return Value(static_cast<std::int64_t>(d));
    }
    case Kind::string: {
      auto i = parse_integer<std::int64_t>(v.as_string());
      if (!i) return Value::error("strconv.ParseInt: parsing \"" + v.as_string() + "\": invalid syntax");
      return Value(*i);
    }
    case Kind::timestamp: return Value(v.as_timestamp().seconds);
    case Kind::duration: return Value(v.as_duration().nanos);
    default: return conversion_error(v, "int");
  }
}

Value to_uint(Args args, CallContext&) {
  const Value& v = args[0];
  switch (v.kind()) {
    case Kind::uinteger: return v;
    case Kind::integer:
      if (v.as_int() < 0) return Value::error("unsigned integer overflow");
      return Value(static_cast<std::uint64_t>(v.as_int()));
    case Kind::floating: {
      double d = v.as_double();
      if (!(d > -1.0 && d < 18446744073709551616.0)) return Value::error("unsigned integer overflow");
      return Value(static_cast<std::uint64_t>(d));
    }
    case Kind::string: {
      auto u = parse_integer<std::uint64_t>(v.as_string());
      if (!u) return Value::error("strconv.ParseUint: parsing \"" + v.as_string() + "\": invalid syntax");
      return Value(*u);
    }
    default: return conversion_error(v, "uint");
  }
}

Value to_double(Args args, CallContext&) {
  const Value& v = args[0];
  switch (v.kind()) {
    case Kind::floating: return v;
    case Kind::integer: return Value(static_cast<double>(v.as_int()));
    case Kind::uinteger: return Value(static_cast<double>(v.as_uint()));
    case Kind::string: {
      const std::string& s = v.as_string();
      char* end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0]))) {
        return Value::error("strconv.ParseFloat: parsing \"" + s + "\": invalid syntax");
      }
      return Value(d);
    }
    default: return conversion_error(v, "double");
  }
}

Value to_string(Args args, CallContext&) {
  const Value& v = args[0];
  switch (v.kind()) {
    case Kind::string: return v;
    case Kind::integer: return Value(std::to_string(v.as_int()));
    case Kind::uinteger: return Value(std::to_string(v.as_uint()));
    case Kind::floating: return Value(format_double(v.as_double()));
    case Kind::boolean: return Value(v.as_bool() ? "true" : "false");
    case Kind::bytes:
      if (!valid_utf8(v.as_bytes())) return Value::error("invalid UTF-8 in bytes, cannot convert to string");
      return Value(v.as_bytes());
    case Kind::duration: return Value(format_duration(v.as_duration()));
    case Kind::timestamp: return Value(format_timestamp(v.as_timestamp()));
    case Kind::type: return Value(v.type_name_value());
    case Kind::object:
      if (auto text = v.as_object().text()) return Value(std::move(*text));
      return conversion_error(v, "string");
    default: return conversion_error(v, "string");
  }
}

Value to_bytes(Args args, CallContext&) {
  const Value& v = args[0];
  if (v.kind() == Kind::bytes) return v;
  if (v.kind() == Kind::string) return Value(Bytes{v.as_string()});
  return conversion_error(v, "bytes");
}

Value to_bool(Args args, CallContext&) {
  const Value& v = args[0];
  if (v.kind() == Kind::boolean) return v;
  if (v.kind() != Kind::string) return conversion_error(v, "bool");
  const std::string& s = v.as_string();
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return Value(true);
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return Value(false);
  return conversion_error(v, "bool");
}

Value to_duration(Args args, CallContext&) {
  const Value& v = args[0];
  if (v.kind() == Kind::duration) return v;
  if (v.kind() != Kind::string) return conversion_error(v, "google.protobuf.Duration");
  auto d = parse_duration(v.as_string());
  return d ? Value(*d) : Value::error(d.error().message);
}

Value to_timestamp(Args args, CallContext&) {
  const Value& v = args[0];
  if (v.kind() == Kind::timestamp) return v;
  if (v.kind() == Kind::integer) {
    if (!timestamp_in_range(v.as_int())) return Value::error("timestamp overflow");
    return Value(Timestamp{v.as_int(), 0});
  }
  if (v.kind() != Kind::string) return conversion_error(v, "google.protobuf.Timestamp");
  auto t = parse_timestamp(v.as_string());
  return t ? Value(*t) : Value::error(t.error().message);
}

}  // namespace

void add_conversion_functions(Functions& f) {
  f.add({"int", Style::global, 1, 1, to_int});
  f.add({"uint", Style::global, 1, 1, to_uint});
  f.add({"double", Style::global, 1, 1, to_double});
  f.add({"string", Style::global, 1, 1, to_string});
  f.add({"bytes", Style::global, 1, 1, to_bytes});
  f.add({"bool", Style::global, 1, 1, to_bool});
  f.add({"duration", Style::global, 1, 1, to_duration});
  f.add({"timestamp", Style::global, 1, 1, to_timestamp});
}

}  // namespace kw::cel
