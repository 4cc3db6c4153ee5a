// The static cost estimate: the evaluator's cost rules applied to the largest values the
// declared schemas allow. A string, list or map without maxLength, maxItems or maxProperties
// is taken as large as a request may be (Kubernetes' 3 MiB limit), as Kubernetes does, so
// iterating over it is costly and nesting such loops more so.
#include "core/cel/ast.hpp"

namespace kw::cel {

namespace {

constexpr std::uint64_t k_unbounded_size = 3 * 1024 * 1024;

std::uint64_t add(std::uint64_t a, std::uint64_t b) {
  return a > k_no_cost_limit - b ? k_no_cost_limit : a + b;
}

std::uint64_t multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > k_no_cost_limit / a) return k_no_cost_limit;
  return a * b;
}

struct Estimate {
  CostEstimate cost = {};
  const SchemaType* type = nullptr;
  std::uint64_t size = k_unbounded_size;  // the largest string length, list or map size
};

class Estimator {
 public:
  explicit Estimator(const Ast& ast) : m_ast(ast) {}

  Estimate visit(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::constant: return constant(e);
      case Expr::Kind::ident: return ident(e);
      case Expr::Kind::select:
      case Expr::Kind::index: return member(e);
      case Expr::Kind::comprehension: return comprehension(e);
      default: return combination(e);
    }
  }

 private:
  static Estimate typed(const SchemaType* type, CostEstimate cost) {
    Estimate out{cost, type, k_unbounded_size};
    if (type != nullptr && type->max_size) out.size = *type->max_size;
    return out;
  }

  static Estimate constant(const Expr& e) {
    Estimate out;
    if (e.constant.kind() == Value::Kind::string) out.size = e.constant.as_string().size();
    else out.size = e.constant.size();
    return out;
  }

  Estimate ident(const Expr& e) {
    const SchemaType* type = nullptr;
    if (e.ref == Expr::Ref::local && e.slot < m_locals.size()) return m_locals[e.slot];
    if (e.ref == Expr::Ref::variable) type = m_ast.variable_types[e.slot].get();
    return typed(type, {1, 1});
  }

  Estimate member(const Expr& e) {
    Estimate operand = visit(*e.args[0]);
    CostEstimate cost = {add(operand.cost.min, 1), add(operand.cost.max, 1)};
    if (e.kind == Expr::Kind::index) {
      Estimate key = visit(*e.args[1]);
      cost = {add(cost.min, key.cost.min), add(cost.max, key.cost.max)};
    }
    const SchemaType* type = nullptr;
    if (operand.type != nullptr) {
      if (e.kind == Expr::Kind::select && operand.type->kind == SchemaType::Kind::object) {
        auto it = operand.type->fields.find(e.name);
        if (it != operand.type->fields.end()) type = it->second.type.get();
      } else {
        type = operand.type->element.get();
      }
    }
    return typed(type, cost);
  }

  // Calls, operators and literals: their operands, plus one, plus a traversal of the
  // largest operand for the calls that walk strings or lists.
  Estimate combination(const Expr& e) {
    CostEstimate cost = {0, 0};
    std::uint64_t largest = 0;
    bool first = true;
    for (const auto& arg : e.args) {
      Estimate a = visit(*arg);
      bool counts_min = e.kind != Expr::Kind::op ||
                        (e.op != Op::logical_and && e.op != Op::logical_or &&
                         e.op != Op::conditional) || first;
      if (counts_min) cost.min = add(cost.min, a.cost.min);
      cost.max = add(cost.max, a.cost.max);
      largest = std::max(largest, a.size);
      first = false;
    }
    std::uint64_t own = 1;
    if (e.kind == Expr::Kind::list) own = 10;
    if (e.kind == Expr::Kind::map) own = 30;
    if (e.kind == Expr::Kind::op && (e.op == Op::logical_and || e.op == Op::logical_or ||
                                     e.op == Op::conditional)) {
      own = 0;
    }
    std::uint64_t traversal = e.kind == Expr::Kind::call ? (largest + 9) / 10 : 0;
    cost = {add(cost.min, own), add(add(cost.max, own), traversal)};
    return Estimate{cost, nullptr, largest};
  }

  Estimate comprehension(const Expr& e) {
    Estimate range = visit(*e.args[0]);
    const SchemaType* element = nullptr;
    if (range.type != nullptr && range.type->kind == SchemaType::Kind::list) {
      element = range.type->element.get();
    }
    m_locals.push_back(typed(element, {1, 1}));
    CostEstimate body = {0, 0};
    for (std::size_t i = 1; i < e.args.size(); ++i) {
      Estimate part = visit(*e.args[i]);
      body.max = add(body.max, part.cost.max);
    }
    m_locals.pop_back();
    std::uint64_t per_item = add(body.max, e.macro == Macro::map ? 12 : 3);
    return Estimate{{add(range.cost.min, 1), add(add(range.cost.max, 1), multiply(range.size, per_item))},
                    nullptr, range.size};
  }

  const Ast& m_ast;
  std::vector<Estimate> m_locals;
};

}  // namespace

CostEstimate Program::estimate_cost() const {
  if (!m_ast || !m_ast->root) return {};
  return Estimator(*m_ast).visit(*m_ast->root).cost;
}

}  // namespace kw::cel
