// Optional values: optional.of, optional.none, optional.ofNonZeroValue, hasValue, value,
// orValue and or.
#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

bool zero_value(const Value& v) {
  switch (v.kind()) {
    case Kind::null: return true;
    case Kind::boolean: return !v.as_bool();
    case Kind::integer: return v.as_int() == 0;
    case Kind::uinteger: return v.as_uint() == 0;
    case Kind::floating: return v.as_double() == 0;
    case Kind::string: return v.as_string().empty();
    case Kind::bytes: return v.as_bytes().empty();
    case Kind::list:
    case Kind::map: return v.size() == 0;
    case Kind::duration: return v.as_duration().nanos == 0;
    case Kind::timestamp: return v.as_timestamp().seconds == 0 && v.as_timestamp().nanos == 0;
    default: return false;
  }
}

Value of(Args args, CallContext&) { return Value::optional_of(args[0]); }
Value none(Args, CallContext&) { return Value::optional_none(); }

Value of_non_zero(Args args, CallContext&) {
  return zero_value(args[0]) ? Value::optional_none() : Value::optional_of(args[0]);
}

Value has_value(Args args, CallContext&) {
  if (args[0].kind() != Kind::optional) return no_such_overload();
  return Value(args[0].optional_has_value());
}

Value value(Args args, CallContext&) {
  if (args[0].kind() != Kind::optional) return no_such_overload();
  if (!args[0].optional_has_value()) return Value::error("optional.none() dereference");
  return args[0].optional_value();
}

Value or_value(Args args, CallContext&) {
  if (args[0].kind() != Kind::optional) return no_such_overload();
  return args[0].optional_has_value() ? args[0].optional_value() : args[1];
}

Value or_optional(Args args, CallContext&) {
  if (args[0].kind() != Kind::optional || args[1].kind() != Kind::optional) {
    return no_such_overload();
  }
  return args[0].optional_has_value() ? args[0] : args[1];
}

}  // namespace

void add_optional_functions(Functions& f) {
  f.add({"optional.of", Style::global, 1, 1, of});
  f.add({"optional.none", Style::global, 0, 0, none});
  f.add({"optional.ofNonZeroValue", Style::global, 1, 1, of_non_zero});
  f.add({"hasValue", Style::receiver, 1, 1, has_value});
  f.add({"value", Style::receiver, 1, 1, value});
  f.add({"orValue", Style::receiver, 2, 2, or_value});
  f.add({"or", Style::receiver, 2, 2, or_optional});
}

}  // namespace kw::cel
