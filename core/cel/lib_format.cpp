// The strings extension's format(): "%s is %d".format([name, n]) with the verbs %s, %d, %f,
// %e, %x, %X, %o, %b and %%, and a precision for %f and %e ("%.2f").
#include <cmath>
#include <cstdio>

#include "core/cel/functions.hpp"
#include "core/cel/time.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;

Value to_text(const Value& v, CallContext& context);

std::string joined(const Value& v, CallContext& context, std::string& error) {
  std::string out = v.kind() == Kind::list ? "[" : "{";
  std::vector<Value> items = v.elements();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    Value key = to_text(items[i], context);
    if (key.is_error()) error = key.error_message();
    if (key.is_error()) return {};
    out += key.as_string();
    if (v.kind() == Kind::map) {
      Value value = to_text(*v.find(items[i]), context);
      if (value.is_error()) error = value.error_message();
      if (value.is_error()) return {};
      out += ": " + value.as_string();
    }
  }
  return out + (v.kind() == Kind::list ? "]" : "}");
}

// %s: strings as they are, other values as string() writes them, lists and maps spelled out.
Value to_text(const Value& v, CallContext& context) {
  switch (v.kind()) {
    case Kind::null: return Value("null");
    case Kind::bytes: return Value(v.as_bytes());
    case Kind::list:
    case Kind::map: {
      std::string error;
      std::string out = joined(v, context, error);
      return error.empty() ? Value(std::move(out)) : Value::error(error);
    }
    default: {
      const Function* string_fn = standard_functions().find("string", false, 1);
      const Value args[] = {v};
      return string_fn->impl(std::span<const Value>(args), context);
    }
  }
}

std::string hex(std::string_view bytes, bool upper) {
  std::string_view digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto u = static_cast<unsigned char>(c);
    out.push_back(digits[u >> 4]);
    out.push_back(digits[u & 15]);
  }
  return out;
}

std::string in_base(std::uint64_t magnitude, bool negative, int base, bool upper) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  do {
    char c = k_digits[magnitude % static_cast<std::uint64_t>(base)];
    out.insert(out.begin(), upper && c >= 'a' ? static_cast<char>(c - 32) : c);
    magnitude /= static_cast<std::uint64_t>(base);
  } while (magnitude > 0);
  return negative ? "-" + out : out;
}

Value integer_verb(const Value& v, char verb) {
  int base = verb == 'd' ? 10 : verb == 'o' ? 8 : verb == 'b' ? 2 : 16;
  bool upper = verb == 'X';
  if (v.kind() == Kind::integer) {
    std::int64_t i = v.as_int();
    auto magnitude = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    return Value(in_base(magnitude, i < 0, base, upper));
  }
  if (v.kind() == Kind::uinteger) return Value(in_base(v.as_uint(), false, base, upper));
  if (base == 16 && v.kind() == Kind::string) return Value(hex(v.as_string(), upper));
  if (base == 16 && v.kind() == Kind::bytes) return Value(hex(v.as_bytes(), upper));
  if (base == 2 && v.kind() == Kind::boolean) return Value(v.as_bool() ? "1" : "0");
  return Value::error(std::string("error during formatting: ") +
                      (verb == 'd' ? "decimal" : verb == 'o' ? "octal" : verb == 'b' ? "binary" : "hex") +
                      " clause can only be used on integers, was given " + v.type_name());
}

Value float_verb(const Value& v, char verb, int precision) {
  double d = 0;
  if (v.kind() == Kind::floating) d = v.as_double();
  else if (v.kind() == Kind::integer) d = static_cast<double>(v.as_int());
  else if (v.kind() == Kind::uinteger) d = static_cast<double>(v.as_uint());
  else {
    return Value::error(std::string("error during formatting: ") +
                        (verb == 'f' ? "fixed-point" : "scientific") +
                        " clause can only be used on doubles, was given " + v.type_name());
  }
  if (std::isnan(d)) return Value("NaN");
  if (std::isinf(d)) return Value(d > 0 ? "Infinity" : "-Infinity");
  char buf[512];
  std::snprintf(buf, sizeof buf, verb == 'f' ? "%.*f" : "%.*e", precision, d);
  return Value(std::string(buf));
}

Value format_one(const Value& arg, char verb, int precision, CallContext& context) {
  switch (verb) {
    case 's': return to_text(arg, context);
    case 'd': case 'x': case 'X': case 'o': case 'b': return integer_verb(arg, verb);
    case 'f': case 'e': return float_verb(arg, verb, precision);
    default:
      return Value::error(std::string("could not parse formatting clause: unrecognized formatting clause \"") +
                          verb + "\"");
  }
}

}  // namespace

Value string_format(std::span<const Value> args, CallContext& context) {
  if (args[0].kind() != Kind::string || args[1].kind() != Kind::list) return no_such_overload();
  const std::string& pattern = args[0].as_string();
  const Value& values = args[1];
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (++i >= pattern.size()) return Value::error("error during formatting: unexpected end of format string");
    if (pattern[i] == '%') {
      out += '%';
      continue;
    }
    int precision = 6;
    if (pattern[i] == '.') {
      precision = 0;
      while (++i < pattern.size() && pattern[i] >= '0' && pattern[i] <= '9' && precision < 100) {
        precision = precision * 10 + (pattern[i] - '0');
      }
      if (i >= pattern.size()) return Value::error("error during formatting: unexpected end of format string");
    }
    if (next >= values.size()) return Value::error("index " + std::to_string(next) + " out of range");
    Value arg = values.at(next++);
    char verb = pattern[i];
    Value piece = format_one(arg, verb, precision, context);
    if (piece.is_error()) return piece;
    out += piece.as_string();
  }
  context.extra_cost = traversal_cost(out.size());
  return Value(std::move(out));
}

}  // namespace kw::cel
