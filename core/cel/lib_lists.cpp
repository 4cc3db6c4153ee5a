// Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf), cel-go's list
// extension (slice, flatten, distinct) and the sets extension (sets.contains,
// sets.equivalent, sets.intersects).
#include "core/cel/functions.hpp"
#include "core/cel/operators.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

bool all_lists(Args args) {
  for (const auto& a : args) {
    if (a.kind() != Kind::list) return false;
  }
  return true;
}

Value is_sorted(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  const Value& list = args[0];
  context.extra_cost = traversal_cost(list.size());
  for (std::size_t i = 1; i < list.size(); ++i) {
    auto c = compare_values(list.at(i - 1), list.at(i));
    if (!c) return no_such_overload();
    if (*c > 0) return Value(false);
  }
  return Value(true);
}

Value sum(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  const Value& list = args[0];
  context.extra_cost = traversal_cost(list.size());
  if (list.size() == 0) return Value(std::int64_t{0});
  Value total = list.at(0);
  Kind k = total.kind();
  if (k != Kind::integer && k != Kind::uinteger && k != Kind::floating && k != Kind::duration) {
    return no_such_overload();
  }
  for (std::size_t i = 1; i < list.size(); ++i) {
    total = arithmetic(Op::add, total, list.at(i));
    if (total.is_error()) return total;
  }
  return total;
}

template <bool Max>
Value extreme(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  const Value& list = args[0];
  context.extra_cost = traversal_cost(list.size());
  if (list.size() == 0) {
    return Value::error(std::string(Max ? "max" : "min") + " called on empty list");
  }
  Value best = list.at(0);
  for (std::size_t i = 1; i < list.size(); ++i) {
    Value item = list.at(i);
    auto c = compare_values(item, best);
    if (!c) return no_such_overload();
    if (Max ? *c > 0 : *c < 0) best = std::move(item);
  }
  return best;
}

Value slice(Args args, CallContext& context) {
  if (args[0].kind() != Kind::list || args[1].kind() != Kind::integer ||
      args[2].kind() != Kind::integer) {
    return no_such_overload();
  }
  std::int64_t start = args[1].as_int();
  std::int64_t end = args[2].as_int();
  auto size = static_cast<std::int64_t>(args[0].size());
  if (start < 0 || end < 0) {
    return Value::error("cannot slice(" + std::to_string(start) + ", " + std::to_string(end) +
                        "), negative indexes not supported");
  }
  if (start > end) {
    return Value::error("cannot slice(" + std::to_string(start) + ", " + std::to_string(end) +
                        "), start index must be less than or equal to end index");
  }
  if (end > size) {
    return Value::error("cannot slice(" + std::to_string(start) + ", " + std::to_string(end) +
                        "), list is length " + std::to_string(size));
  }
  std::vector<Value> out;
  for (std::int64_t i = start; i < end; ++i) out.push_back(args[0].at(static_cast<std::size_t>(i)));
  context.extra_cost = traversal_cost(out.size());
  return Value(std::move(out));
}

void flatten_into(const Value& list, std::int64_t depth, std::vector<Value>& out) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    Value item = list.at(i);
    if (item.kind() == Kind::list && depth > 0) {
      flatten_into(item, depth - 1, out);
    } else {
      out.push_back(std::move(item));
    }
  }
}

Value flatten(Args args, CallContext& context) {
  if (args[0].kind() != Kind::list || (args.size() == 2 && args[1].kind() != Kind::integer)) {
    return no_such_overload();
  }
  std::int64_t depth = args.size() == 2 ? args[1].as_int() : 1;
  if (depth < 0) return Value::error("level must be non-negative");
  std::vector<Value> out;
  flatten_into(args[0], std::min<std::int64_t>(depth, 64), out);
  context.extra_cost = traversal_cost(out.size());
  return Value(std::move(out));
}

bool list_has(const Value& list, const Value& item) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (values_equal(list.at(i), item).value_or(false)) return true;
  }
  return false;
}

Value distinct(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  std::vector<Value> out;
  for (std::size_t i = 0; i < args[0].size(); ++i) {
    Value item = args[0].at(i);
    bool dup = false;
    for (const auto& kept : out) dup = dup || values_equal(kept, item).value_or(false);
    if (!dup) out.push_back(std::move(item));
  }
  context.extra_cost = traversal_cost(args[0].size() * (out.size() + 1));
  return Value(std::move(out));
}

// Every element of the second list is in the first.
Value sets_contains(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  context.extra_cost = traversal_cost(args[0].size() * args[1].size());
  for (std::size_t i = 0; i < args[1].size(); ++i) {
    if (!list_has(args[0], args[1].at(i))) return Value(false);
  }
  return Value(true);
}

Value sets_equivalent(Args args, CallContext& context) {
  Value forward = sets_contains(args, context);
  if (forward.is_error() || !forward.as_bool()) return forward;
  const Value swapped[] = {args[1], args[0]};
  return sets_contains(swapped, context);
}

Value sets_intersects(Args args, CallContext& context) {
  if (!all_lists(args)) return no_such_overload();
  context.extra_cost = traversal_cost(args[0].size() * args[1].size());
  for (std::size_t i = 0; i < args[1].size(); ++i) {
    if (list_has(args[0], args[1].at(i))) return Value(true);
  }
  return Value(false);
}

}  // namespace

Value list_index_of(std::span<const Value> args, CallContext& context, bool last) {
  if (args.size() != 2) return no_such_overload();
  const Value& list = args[0];
  context.extra_cost = traversal_cost(list.size());
  std::int64_t found = -1;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (values_equal(list.at(i), args[1]).value_or(false)) {
      found = static_cast<std::int64_t>(i);
      if (!last) break;
    }
  }
  return Value(found);
}

void add_list_functions(Functions& f) {
  f.add({"isSorted", Style::receiver, 1, 1, is_sorted});
  f.add({"sum", Style::receiver, 1, 1, sum});
  f.add({"min", Style::receiver, 1, 1, extreme<false>});
  f.add({"max", Style::receiver, 1, 1, extreme<true>});
  f.add({"slice", Style::receiver, 3, 3, slice});
  f.add({"flatten", Style::receiver, 1, 2, flatten});
  f.add({"distinct", Style::receiver, 1, 1, distinct});
  f.add({"sets.contains", Style::global, 2, 2, sets_contains});
  f.add({"sets.equivalent", Style::global, 2, 2, sets_equivalent});
  f.add({"sets.intersects", Style::global, 2, 2, sets_intersects});
}

}  // namespace kw::cel
