// CEL's standard functions: size, contains, startsWith, endsWith, matches, type, dyn.
#include <re2/re2.h>

#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

bool strings(Args args) {
  for (const auto& a : args) {
    if (a.kind() != Kind::string) return false;
  }
  return true;
}

Value size(Args args, CallContext&) {
  const Value& v = args[0];
  switch (v.kind()) {
    case Kind::string: return Value(static_cast<std::int64_t>(code_points(v.as_string())));
    case Kind::bytes: return Value(static_cast<std::int64_t>(v.as_bytes().size()));
    case Kind::list:
    case Kind::map: return Value(static_cast<std::int64_t>(v.size()));
    default: return no_such_overload();
  }
}

Value contains(Args args, CallContext& context) {
  if (!strings(args)) return no_such_overload();
  context.extra_cost = traversal_cost(args[0].as_string().size());
  return Value(args[0].as_string().find(args[1].as_string()) != std::string::npos);
}

Value starts_with(Args args, CallContext& context) {
  if (!strings(args)) return no_such_overload();
  context.extra_cost = traversal_cost(args[1].as_string().size());
  return Value(args[0].as_string().starts_with(args[1].as_string()));
}

Value ends_with(Args args, CallContext& context) {
  if (!strings(args)) return no_such_overload();
  context.extra_cost = traversal_cost(args[1].as_string().size());
  return Value(args[0].as_string().ends_with(args[1].as_string()));
}

Value matches(Args args, CallContext& context) {
  if (!strings(args)) return no_such_overload();
  Value error;
  const re2::RE2* re = compiled_regex(context, args[1].as_string(), error);
  if (re == nullptr) return error;
  context.extra_cost = traversal_cost(args[0].as_string().size()) *
                       traversal_cost(args[1].as_string().size());
  return Value(re2::RE2::PartialMatch(args[0].as_string(), *re));
}

Value type_of(Args args, CallContext&) { return Value::type(args[0].type_name()); }

Value dyn(Args args, CallContext&) { return args[0]; }

}  // namespace

void add_core_functions(Functions& f) {
  f.add({"size", Style::both, 1, 1, size});
  f.add({"contains", Style::receiver, 2, 2, contains});
  f.add({"startsWith", Style::receiver, 2, 2, starts_with});
  f.add({"endsWith", Style::receiver, 2, 2, ends_with});
  f.add({"matches", Style::both, 2, 2, matches});
  f.add({"type", Style::global, 1, 1, type_of});
  f.add({"dyn", Style::global, 1, 1, dyn});
}

}  // namespace kw::cel
