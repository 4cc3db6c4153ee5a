// Arithmetic with cel-go's errors: "integer overflow", "unsigned integer overflow",
// "division by zero", "modulus by zero", "timestamp overflow".
#include "core/cel/operators.hpp"

#include <limits>
#include <type_traits>

#include "core/cel/functions.hpp"
#include "core/cel/time.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
constexpr std::int64_t k_min_int = std::numeric_limits<std::int64_t>::min();

// int and uint arithmetic: overflow, division and modulus by zero are errors, and so is the one
// signed quotient that does not fit (min / -1).
template <class Int>
Value integer_op(Op op, Int a, Int b) {
  constexpr bool is_signed = std::is_signed_v<Int>;
  const char* overflow = is_signed ? "integer overflow" : "unsigned integer overflow";
  Int out = 0;
  switch (op) {
    case Op::add:
      if (__builtin_add_overflow(a, b, &out)) return Value::error(overflow);
      return Value(out);
    case Op::subtract:
      if (__builtin_sub_overflow(a, b, &out)) return Value::error(overflow);
      return Value(out);
    case Op::multiply:
      if (__builtin_mul_overflow(a, b, &out)) return Value::error(overflow);
      return Value(out);
    case Op::divide:
      if (b == 0) return Value::error("division by zero");
      if constexpr (is_signed)
        if (a == std::numeric_limits<Int>::min() && b == -1) return Value::error(overflow);
      return Value(a / b);
    default:
      if (b == 0) return Value::error("modulus by zero");
      if constexpr (is_signed)
        if (a == std::numeric_limits<Int>::min() && b == -1) return Value::error(overflow);
      return Value(a % b);
  }
}

Value double_op(Op op, double a, double b) {
  switch (op) {
    case Op::add: return Value(a + b);
    case Op::subtract: return Value(a - b);
    case Op::multiply: return Value(a * b);
    case Op::divide: return Value(a / b);
    default: return no_such_overload();
  }
}

Value concatenate(const Value& a, const Value& b) {
  std::vector<Value> out = a.elements();
  std::vector<Value> more = b.elements();
  out.insert(out.end(), more.begin(), more.end());
  return Value(std::move(out));
}

// A timestamp moved by a duration, or "timestamp overflow".
Value shift(Timestamp t, std::int64_t nanos) {
  std::int64_t seconds = t.seconds + nanos / 1000000000;
  std::int64_t sub = t.nanos + nanos % 1000000000;
  if (sub < 0) {
    sub += 1000000000;
    --seconds;
  } else if (sub >= 1000000000) {
    sub -= 1000000000;
    ++seconds;
  }
  if (!timestamp_in_range(seconds)) return Value::error("timestamp overflow");
  return Value(Timestamp{seconds, static_cast<std::int32_t>(sub)});
}

Value time_op(Op op, const Value& a, const Value& b) {
  Kind ka = a.kind();
  Kind kb = b.kind();
  std::int64_t out = 0;
  if (ka == Kind::duration && kb == Kind::duration && (op == Op::add || op == Op::subtract)) {
    bool overflow = op == Op::add
                        ? __builtin_add_overflow(a.as_duration().nanos, b.as_duration().nanos, &out)
                        : __builtin_sub_overflow(a.as_duration().nanos, b.as_duration().nanos, &out);
    return overflow ? Value::error("integer overflow") : Value(Duration{out});
  }
  if (ka == Kind::timestamp && kb == Kind::duration && op == Op::add) {
    return shift(a.as_timestamp(), b.as_duration().nanos);
  }
  if (ka == Kind::duration && kb == Kind::timestamp && op == Op::add) {
    return shift(b.as_timestamp(), a.as_duration().nanos);
  }
  if (ka == Kind::timestamp && kb == Kind::duration && op == Op::subtract) {
    if (b.as_duration().nanos == k_min_int) return Value::error("integer overflow");
    return shift(a.as_timestamp(), -b.as_duration().nanos);
  }
  if (ka == Kind::timestamp && kb == Kind::timestamp && op == Op::subtract) {
    Timestamp x = a.as_timestamp();
    Timestamp y = b.as_timestamp();
    std::int64_t seconds = x.seconds - y.seconds;
    if (__builtin_mul_overflow(seconds, std::int64_t{1000000000}, &out) ||
        __builtin_add_overflow(out, std::int64_t{x.nanos} - y.nanos, &out)) {
      return Value::error("integer overflow");
    }
    return Value(Duration{out});
  }
  return no_such_overload();
}

}  // namespace

Value arithmetic(Op op, const Value& a, const Value& b) {
  Kind ka = a.kind();
  Kind kb = b.kind();
  if (ka != kb) return time_op(op, a, b);
  switch (ka) {
    case Kind::integer: return integer_op(op, a.as_int(), b.as_int());
    case Kind::uinteger: return integer_op(op, a.as_uint(), b.as_uint());
    case Kind::floating: return double_op(op, a.as_double(), b.as_double());
    case Kind::string:
      return op == Op::add ? Value(a.as_string() + b.as_string()) : no_such_overload();
    case Kind::bytes:
      return op == Op::add ? Value(Bytes{a.as_bytes() + b.as_bytes()}) : no_such_overload();
    case Kind::list: return op == Op::add ? concatenate(a, b) : no_such_overload();
    default: return time_op(op, a, b);
  }
}

Value negate(const Value& v) {
  switch (v.kind()) {
    case Kind::integer:
      if (v.as_int() == k_min_int) return Value::error("integer overflow");
      return Value(-v.as_int());
    case Kind::floating: return Value(-v.as_double());
    case Kind::duration:
      if (v.as_duration().nanos == k_min_int) return Value::error("integer overflow");
      return Value(Duration{-v.as_duration().nanos});
    default: return no_such_overload();
  }
}

}  // namespace kw::cel
