// The evaluator: walks the checked tree with cel-go's semantics (errors are values, && and ||
// absorb errors when the other side decides, the ternary evaluates one branch) and counts the
// cost as it goes, stopping once the limit is passed.
#include <cmath>

#include "core/cel/ast.hpp"
#include "core/cel/operators.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;

constexpr std::uint64_t k_list_create_cost = 10;
constexpr std::uint64_t k_map_create_cost = 30;

bool is_number(Kind k) { return k == Kind::integer || k == Kind::uinteger || k == Kind::floating; }

std::string key_text(const Value& key) {
  return key.kind() == Kind::string ? key.as_string() : key.debug_string();
}

Value no_such_key(const Value& key) { return Value::error("no such key: " + key_text(key)); }

class Evaluator {
 public:
  Evaluator(const Ast& ast, const Activation& activation, std::uint64_t limit)
      : m_ast(ast), m_activation(activation), m_limit(limit), m_variables(ast.variables.size()) {}

  Value run() { return eval(*m_ast.root); }
  std::uint64_t cost() const { return m_cost; }
  bool cancelled() const { return m_cancelled; }

 private:
  void charge(std::uint64_t amount) {
    m_cost = amount > k_no_cost_limit - m_cost ? k_no_cost_limit : m_cost + amount;
    if (m_cost > m_limit) m_cancelled = true;
  }

  Value eval(const Expr& e) {
    if (m_cancelled) return Value::error("operation cancelled: actual cost limit exceeded");
    switch (e.kind) {
      case Expr::Kind::constant: return e.constant;
      case Expr::Kind::ident: charge(1); return ident(e);
      case Expr::Kind::select: charge(1); return select(e);
      case Expr::Kind::index: charge(1); return index(e);
      case Expr::Kind::call: return call(e);
      case Expr::Kind::list: charge(k_list_create_cost); return list(e);
      case Expr::Kind::map: charge(k_map_create_cost); return map(e);
      case Expr::Kind::comprehension: return comprehension(e);
      case Expr::Kind::op: return op(e);
    }
    return no_such_overload();
  }

  Value ident(const Expr& e) {
    if (e.ref == Expr::Ref::local) return m_locals[e.slot];
    auto& cached = m_variables[e.slot];
    if (!cached) cached = lookup(e.slot);
    return *cached;
  }

  Value lookup(std::size_t index) {
    const std::string& name = m_ast.variables[index];
    if (const auto* node = m_activation.find_json(name)) {
      return Value::from_json(*node, m_ast.variable_types[index].get());
    }
    auto value = m_activation.find(name);
    if (!value) return Value::error("no such attribute(s): " + name);
    return *value;
  }

  // The field of a map or object: a JSON object under a schema maps escaped names back.
  static std::optional<Value> field(const Value& operand, const std::string& name, Value& error) {
    if (operand.kind() == Kind::map) {
      const SchemaType* schema = operand.schema();
      if (schema != nullptr && schema->kind == SchemaType::Kind::object) {
        auto it = schema->fields.find(name);
        if (it != schema->fields.end()) return operand.find(Value(it->second.json_name));
      }
      return operand.find(Value(name));
    }
    if (operand.kind() == Kind::object) return operand.as_object().field(name);
    error = Value::error("type '" + operand.type_name() + "' does not support field selection");
    return std::nullopt;
  }

  Value select(const Expr& e) {
    Value operand = eval(*e.args[0]);
    if (operand.is_error()) return operand;
    bool chained = operand.kind() == Kind::optional;
    if (chained) {
      if (!operand.optional_has_value()) return operand;
      Value inner = operand.optional_value();
      operand = std::move(inner);
    }
    Value error;
    auto value = field(operand, e.name, error);
    if (e.test_only) {
      if (error.is_error()) return Value::error("invalid type for field selection.");
      return Value(value.has_value());
    }
    if (error.is_error()) return error;
    if (e.optional || chained) return value ? Value::optional_of(*value) : Value::optional_none();
    return value ? *value : no_such_key(Value(e.name));
  }

  static std::optional<std::int64_t> list_index(const Value& key) {
    switch (key.kind()) {
      case Kind::integer: return key.as_int();
      case Kind::uinteger:
        if (key.as_uint() > static_cast<std::uint64_t>(INT64_MAX)) return -1;
        return static_cast<std::int64_t>(key.as_uint());
      case Kind::floating: {
        double d = key.as_double();
        if (d != std::floor(d) || std::abs(d) > 9e18) return std::nullopt;
        return static_cast<std::int64_t>(d);
      }
      default: return std::nullopt;
    }
  }

  Value index(const Expr& e) {
    Value operand = eval(*e.args[0]);
    if (operand.is_error()) return operand;
    Value key = eval(*e.args[1]);
    if (key.is_error()) return key;
    bool chained = operand.kind() == Kind::optional;
    if (chained) {
      if (!operand.optional_has_value()) return operand;
      Value inner = operand.optional_value();
      operand = std::move(inner);
    }
    bool wrap = e.optional || chained;
    if (operand.kind() == Kind::list) {
      auto i = list_index(key);
      if (!i) return Value::error("unsupported index type '" + key.type_name() + "' in list");
      if (*i < 0 || static_cast<std::size_t>(*i) >= operand.size()) {
        if (wrap) return Value::optional_none();
        return Value::error("index '" + std::to_string(*i) + "' out of range in list size '" +
                            std::to_string(operand.size()) + "'");
      }
      Value item = operand.at(static_cast<std::size_t>(*i));
      return wrap ? Value::optional_of(std::move(item)) : item;
    }
    if (operand.kind() == Kind::map) {
      auto value = operand.find(key);
      if (wrap) return value ? Value::optional_of(*value) : Value::optional_none();
      return value ? *value : no_such_key(key);
    }
    return no_such_overload();
  }

  Value call(const Expr& e) {
    std::vector<Value> args;
    args.reserve(e.args.size());
    for (const auto& arg : e.args) {
      args.push_back(eval(*arg));
      if (args.back().is_error()) return args.back();
    }
    charge(1);
    m_context.extra_cost = 0;
    Value result = e.function->impl(args, m_context);
    charge(m_context.extra_cost);
    return result;
  }

  Value list(const Expr& e) {
    std::vector<Value> items;
    items.reserve(e.args.size());
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      Value item = eval(*e.args[i]);
      if (item.is_error()) return item;
      if (e.optional_entries[i]) {
        if (item.kind() != Kind::optional) return no_such_overload();
        if (item.optional_has_value()) items.push_back(item.optional_value());
        continue;
      }
      items.push_back(std::move(item));
    }
    return Value(std::move(items));
  }

  Value map(const Expr& e) {
    Value::Entries entries;
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      Value key = eval(*e.args[i]);
      if (key.is_error()) return key;
      Value value = eval(*e.args[i + 1]);
      if (value.is_error()) return value;
      Kind k = key.kind();
      if (k != Kind::string && k != Kind::integer && k != Kind::uinteger && k != Kind::boolean) {
        return Value::error("unsupported key type: " + key.type_name());
      }
      if (e.optional_entries[i / 2]) {
        if (value.kind() != Kind::optional) return no_such_overload();
        if (!value.optional_has_value()) continue;
        Value inner = value.optional_value();
        value = std::move(inner);
      }
      for (const auto& entry : entries) {
        if (values_equal(entry.first, key).value_or(false)) {
          return Value::error("Failed with repeated key: " + key_text(key));
        }
      }
      entries.emplace_back(std::move(key), std::move(value));
    }
    return Value::map(std::move(entries));
  }

  Value comprehension(const Expr& e) {
    Value range = eval(*e.args[0]);
    if (range.is_error()) return range;
    if (range.kind() != Kind::list && range.kind() != Kind::map) return no_such_overload();
    std::vector<Value> items = range.elements();
    m_locals.emplace_back();
    Value result = loop(e, items);
    m_locals.pop_back();
    charge(1);
    return result;
  }

  // The predicate for the current element, as a bool or an error.
  Value predicate(const Expr& body) {
    Value v = eval(body);
    if (v.is_error() || v.kind() == Kind::boolean) return v;
    return no_such_overload();
  }

  Value loop(const Expr& e, const std::vector<Value>& items) {
    // By position: nested loops push onto m_locals, which may move its elements.
    std::size_t var = m_locals.size() - 1;
    std::optional<Value> error;
    std::int64_t matches = 0;
    std::vector<Value> out;
    for (const auto& item : items) {
      if (m_cancelled) break;
      m_locals[var] = item;
      charge(e.macro == Macro::map ? 12 : 3);
      if (e.macro == Macro::map) {
        Value v = eval(*e.args[1]);
        if (v.is_error()) return v;
        out.push_back(std::move(v));
        continue;
      }
      Value p = predicate(*e.args[1]);
      if (p.is_error()) {
        if (e.macro != Macro::all && e.macro != Macro::exists) return p;
        if (!error) error = p;
        continue;
      }
      bool yes = p.as_bool();
      if (e.macro == Macro::all && !yes) return Value(false);
      if (e.macro == Macro::exists && yes) return Value(true);
      if (e.macro == Macro::exists_one) matches += yes;
      if (yes && e.macro == Macro::filter) out.push_back(item);
      if (yes && e.macro == Macro::map_filter) {
        Value v = eval(*e.args[2]);
        if (v.is_error()) return v;
        out.push_back(std::move(v));
      }
    }
    if (m_cancelled) return Value::error("operation cancelled: actual cost limit exceeded");
    switch (e.macro) {
      case Macro::all: return error ? *error : Value(true);
      case Macro::exists: return error ? *error : Value(false);
      case Macro::exists_one: return Value(matches == 1);
      default: return Value(std::move(out));
    }
  }

  Value logical(const Expr& e, bool is_and) {
    Value left = eval(*e.args[0]);
    // The deciding value: false for &&, true for ||.
    if (left.kind() == Kind::boolean && left.as_bool() != is_and) return left;
    Value right = eval(*e.args[1]);
    if (right.kind() == Kind::boolean && right.as_bool() != is_and) return right;
    if (left.kind() == Kind::boolean && right.kind() == Kind::boolean) return left;
    if (left.is_error()) return left;
    if (right.is_error()) return right;
    return no_such_overload();
  }

  Value relation(Op op, const Value& left, const Value& right) {
    auto c = compare_values(left, right);
    if (!c) {
      bool nan = is_number(left.kind()) && is_number(right.kind());
      return nan ? Value(false) : no_such_overload();
    }
    switch (op) {
      case Op::less: return Value(*c < 0);
      case Op::less_equal: return Value(*c <= 0);
      case Op::greater: return Value(*c > 0);
      default: return Value(*c >= 0);
    }
  }

  Value contains(const Value& item, const Value& container) {
    if (container.kind() == Kind::map) return Value(container.find(item).has_value());
    if (container.kind() != Kind::list) return no_such_overload();
    charge(traversal_cost(container.size()));
    for (std::size_t i = 0; i < container.size(); ++i) {
      if (values_equal(item, container.at(i)).value_or(false)) return Value(true);
    }
    return Value(false);
  }

  Value binary(const Expr& e) {
    Value left = eval(*e.args[0]);
    if (left.is_error()) return left;
    Value right = eval(*e.args[1]);
    if (right.is_error()) return right;
    charge(1);
    switch (e.op) {
      case Op::equal: return Value(values_equal(left, right).value_or(false));
      case Op::not_equal: return Value(!values_equal(left, right).value_or(false));
      case Op::in: return contains(left, right);
      case Op::less:
      case Op::less_equal:
      case Op::greater:
      case Op::greater_equal: return relation(e.op, left, right);
      default: break;
    }
    Value result = arithmetic(e.op, left, right);
    if (result.kind() == Kind::string || result.kind() == Kind::list) {
      charge(traversal_cost(result.kind() == Kind::string ? result.as_string().size() : result.size()));
    }
    return result;
  }

  Value unary(const Expr& e) {
    Value operand = eval(*e.args[0]);
    if (operand.is_error()) return operand;
    charge(1);
    if (e.op == Op::negate) return negate(operand);
    if (operand.kind() != Kind::boolean) return no_such_overload();
    return Value(!operand.as_bool());
  }

  Value op(const Expr& e) {
    switch (e.op) {
      case Op::logical_and: return logical(e, true);
      case Op::logical_or: return logical(e, false);
      case Op::logical_not:
      case Op::negate: return unary(e);
      case Op::conditional: {
        Value cond = eval(*e.args[0]);
        if (cond.is_error()) return cond;
        if (cond.kind() != Kind::boolean) return no_such_overload();
        return eval(*e.args[cond.as_bool() ? 1 : 2]);
      }
      default: return binary(e);
    }
  }

  const Ast& m_ast;
  const Activation& m_activation;
  std::uint64_t m_limit;
  std::uint64_t m_cost = 0;
  bool m_cancelled = false;
  std::vector<std::optional<Value>> m_variables;
  std::vector<Value> m_locals;
  CallContext m_context;
};

}  // namespace

Result<Evaluation> Program::evaluate(const Activation& activation, std::uint64_t cost_limit) const {
  if (!m_ast) return fail("the program was not compiled");
  Evaluator evaluator(*m_ast, activation, cost_limit);
  Value value = evaluator.run();
  if (evaluator.cancelled()) return fail("operation cancelled: actual cost limit exceeded");
  if (value.is_error()) return fail(value.error_message());
  return Evaluation{std::move(value), evaluator.cost()};
}

Result<bool> Program::evaluate_bool(const Activation& activation, std::uint64_t cost_limit) const {
  auto result = evaluate(activation, cost_limit);
  if (!result) return std::unexpected(result.error());
  if (result->value.kind() != Kind::boolean) {
    return fail("expected a bool result, got " + result->value.type_name());
  }
  return result->value.as_bool();
}

Result<Program> compile(std::string_view source, const Env& env) {
  auto ast = std::make_shared<Ast>();
  ast->source = std::string(source);
  for (const auto& declaration : env.variables) {
    ast->variables.push_back(declaration.name);
    ast->variable_types.push_back(declaration.schema.is_null()
                                      ? nullptr
                                      : schema_type(declaration.schema, declaration.resource_root));
  }
  auto root = parse(ast->source, env.max_source_length);
  if (!root) return std::unexpected(root.error());
  if (auto diagnostic = check(**root, *ast, standard_functions())) {
    return fail(format_diagnostic(ast->source, *diagnostic));
  }
  ast->root = std::move(*root);
  return Program(std::move(ast));
}

}  // namespace kw::cel
