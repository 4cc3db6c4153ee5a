// Kubernetes' quantity library: quantity(), isQuantity(), sign, isInteger, asInteger,
// asApproximateFloat, add, sub, compareTo, isLessThan, isGreaterThan. Values are
// resource.Quantity exactly as Go holds them (core/api/quantity.hpp).
#include <charconv>
#include <cmath>

#include "core/api/quantity.hpp"
#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

class QuantityObject : public Object {
 public:
  explicit QuantityObject(api::GoQuantity q) : m_quantity(std::move(q)) {}
  std::string_view type_name() const override { return "kubernetes.Quantity"; }
  bool equals(const Object& other) const override {
    auto c = compare(other);
    return c && *c == 0;
  }
  std::optional<int> compare(const Object& other) const override {
    auto* q = dynamic_cast<const QuantityObject*>(&other);
    if (q == nullptr) return std::nullopt;
    return m_quantity.compare(q->m_quantity);
  }
  const api::GoQuantity& quantity() const { return m_quantity; }

 private:
  api::GoQuantity m_quantity;
};

const api::GoQuantity* quantity_of(const Value& v) {
  if (v.kind() != Kind::object) return nullptr;
  auto* q = dynamic_cast<const QuantityObject*>(&v.as_object());
  return q != nullptr ? &q->quantity() : nullptr;
}

Value wrap(api::GoQuantity q) {
  return Value(std::shared_ptr<const Object>(std::make_shared<QuantityObject>(std::move(q))));
}

// Quantity.AsInt64: the exact integer value, when there is one that fits.
std::optional<std::int64_t> as_int64(const api::GoQuantity& q) {
  std::string digits = q.digits;
  if (q.exponent < 0) {
    auto cut = static_cast<std::size_t>(-q.exponent);
    if (digits.size() <= cut) return digits == "0" ? std::optional<std::int64_t>(0) : std::nullopt;
    if (digits.find_first_not_of('0', digits.size() - cut) != std::string::npos) return std::nullopt;
    digits.resize(digits.size() - cut);
  } else if (q.exponent > 18) {
    return q.zero() ? std::optional<std::int64_t>(0) : std::nullopt;
  } else {
    digits += std::string(static_cast<std::size_t>(q.exponent), '0');
  }
  std::uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  std::uint64_t limit = static_cast<std::uint64_t>(INT64_MAX) + (q.negative ? 1 : 0);
  if (magnitude > limit) return std::nullopt;
  return q.negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

Value quantity(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  auto q = api::parse_go_quantity(std::string_view(args[0].as_string()));
  if (!q) return Value::error(q.error().message);
  return wrap(std::move(*q));
}

Value is_quantity(Args args, CallContext&) {
  if (args[0].kind() != Kind::string) return no_such_overload();
  return Value(api::parse_go_quantity(std::string_view(args[0].as_string())).has_value());
}

Value sign(Args args, CallContext&) {
  const auto* q = quantity_of(args[0]);
  if (q == nullptr) return no_such_overload();
  return Value(std::int64_t{q->zero() ? 0 : (q->negative ? -1 : 1)});
}

Value is_integer(Args args, CallContext&) {
  const auto* q = quantity_of(args[0]);
  if (q == nullptr) return no_such_overload();
  return Value(as_int64(*q).has_value());
}

Value as_integer(Args args, CallContext&) {
  const auto* q = quantity_of(args[0]);
  if (q == nullptr) return no_such_overload();
  auto i = as_int64(*q);
  if (!i) return Value::error("cannot convert value to integer");
  return Value(*i);
}

Value as_approximate_float(Args args, CallContext&) {
  const auto* q = quantity_of(args[0]);
  if (q == nullptr) return no_such_overload();
  double d = std::stod(q->digits) * std::pow(10.0, static_cast<double>(q->exponent));
  return Value(q->negative ? -d : d);
}

// The other operand of add and sub: a quantity or an int.
std::optional<api::GoQuantity> operand(const Value& v) {
  if (const auto* q = quantity_of(v)) return *q;
  if (v.kind() == Kind::integer) return api::scaled_quantity(v.as_int(), 0);
  return std::nullopt;
}

template <bool Add>
Value add_or_sub(Args args, CallContext&) {
  const auto* q = quantity_of(args[0]);
  auto other = operand(args[1]);
  if (q == nullptr || !other) return no_such_overload();
  api::GoQuantity out = *q;
  if (Add) out.add(*other);
  else out.subtract(*other);
  return wrap(std::move(out));
}

Value compare_to(Args args, CallContext&) {
  const auto* a = quantity_of(args[0]);
  const auto* b = quantity_of(args[1]);
  if (a == nullptr || b == nullptr) return no_such_overload();
  return Value(std::int64_t{a->compare(*b)});
}

template <int Wanted>
Value is_ordered(Args args, CallContext&) {
  const auto* a = quantity_of(args[0]);
  const auto* b = quantity_of(args[1]);
  if (a == nullptr || b == nullptr) return no_such_overload();
  return Value(a->compare(*b) == Wanted);
}

}  // namespace

void add_quantity_functions(Functions& f) {
  f.add({"quantity", Style::global, 1, 1, quantity});
  f.add({"isQuantity", Style::global, 1, 1, is_quantity});
  f.add({"sign", Style::receiver, 1, 1, sign});
  f.add({"isInteger", Style::receiver, 1, 1, is_integer});
  f.add({"asInteger", Style::receiver, 1, 1, as_integer});
  f.add({"asApproximateFloat", Style::receiver, 1, 1, as_approximate_float});
  f.add({"add", Style::receiver, 2, 2, add_or_sub<true>});
  f.add({"sub", Style::receiver, 2, 2, add_or_sub<false>});
  f.add({"compareTo", Style::receiver, 2, 2, compare_to});
  f.add({"isLessThan", Style::receiver, 2, 2, is_ordered<-1>});
  f.add({"isGreaterThan", Style::receiver, 2, 2, is_ordered<1>});
}

}  // namespace kw::cel
