// The checker: binds identifiers to comprehension variables, declared variables or type names,
// resolves calls (namespaced ones such as strings.quote too), and checks field selections
// against the declared schemas.
#include <set>

#include "core/cel/ast.hpp"

namespace kw::cel {

namespace {

const std::set<std::string_view, std::less<>> k_type_names = {
    "int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"};

class Checker {
 public:
  Checker(const Ast& ast, const Functions& functions) : m_ast(ast), m_functions(functions) {}

  std::optional<Diagnostic> run(Expr& root) {
    visit(root);
    return m_error;
  }

 private:
  const SchemaType* fail_at(std::uint32_t offset, std::string message) {
    if (!m_error) m_error = Diagnostic{offset, std::move(message)};
    return nullptr;
  }

  // The schema type of the expression when it is statically known, else nullptr (dyn).
  const SchemaType* visit(Expr& e) {
    if (m_error) return nullptr;
    switch (e.kind) {
      case Expr::Kind::constant: return nullptr;
      case Expr::Kind::ident: return ident(e);
      case Expr::Kind::select: return select(e);
      case Expr::Kind::index: return index(e);
      case Expr::Kind::call: return call(e);
      case Expr::Kind::comprehension: return comprehension(e);
      default:
        for (auto& arg : e.args) visit(*arg);
        return nullptr;
    }
  }

  std::optional<std::size_t> local(std::string_view name) const {
    for (std::size_t i = m_locals.size(); i-- > 0;) {
      if (m_locals[i].first == name) return i;
    }
    return std::nullopt;
  }

  std::optional<std::size_t> variable(std::string_view name) const {
    for (std::size_t i = 0; i < m_ast.variables.size(); ++i) {
      if (m_ast.variables[i] == name) return i;
    }
    return std::nullopt;
  }

  const SchemaType* ident(Expr& e) {
    if (auto slot = local(e.name)) {
      e.ref = Expr::Ref::local;
      e.slot = static_cast<std::uint32_t>(*slot);
      return m_locals[*slot].second;
    }
    if (auto index = variable(e.name)) {
      e.ref = Expr::Ref::variable;
      e.slot = static_cast<std::uint32_t>(*index);
      return m_ast.variable_types[*index].get();
    }
    if (k_type_names.contains(e.name)) {
      e.kind = Expr::Kind::constant;
      e.constant = Value::type(e.name);
      return nullptr;
    }
    return fail_at(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
  }

  const SchemaType* select(Expr& e) {
    const SchemaType* operand = visit(*e.args[0]);
    if (operand == nullptr) return nullptr;
    if (operand->kind == SchemaType::Kind::map) return operand->element.get();
    if (operand->kind != SchemaType::Kind::object) return nullptr;
    auto field = operand->fields.find(e.name);
    if (field != operand->fields.end()) return field->second.type.get();
    if (operand->open) return nullptr;
    return fail_at(e.offset, "undefined field '" + e.name + "'");
  }

  const SchemaType* index(Expr& e) {
    const SchemaType* operand = visit(*e.args[0]);
    visit(*e.args[1]);
    if (operand == nullptr) return nullptr;
    bool container = operand->kind == SchemaType::Kind::list || operand->kind == SchemaType::Kind::map;
    return container ? operand->element.get() : nullptr;
  }

  // `ns.f(x)` is the global function "ns.f" when `ns` names no variable.
  void namespaced(Expr& e) {
    if (!e.receiver || e.args[0]->kind != Expr::Kind::ident) return;
    const std::string& target = e.args[0]->name;
    if (local(target) || variable(target)) return;
    std::string qualified = target + "." + e.name;
    if (!m_functions.has_name(qualified)) return;
    e.name = std::move(qualified);
    e.receiver = false;
    e.args.erase(e.args.begin());
  }

  const SchemaType* call(Expr& e) {
    namespaced(e);
    for (auto& arg : e.args) visit(*arg);
    if (m_error) return nullptr;
    e.function = m_functions.find(e.name, e.receiver, e.args.size());
    if (e.function != nullptr) return nullptr;
    if (!m_functions.has_name(e.name)) {
      return fail_at(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
    }
    std::string shape = e.receiver ? "dyn.(" : "(";
    for (std::size_t i = e.receiver ? 1 : 0; i < e.args.size(); ++i) {
      shape += (i > (e.receiver ? 1u : 0u) ? ", " : "") + std::string("dyn");
    }
    return fail_at(e.offset, "found no matching overload for '" + e.name + "' applied to '" +
                                 shape + ")'");
  }

  const SchemaType* comprehension(Expr& e) {
    const SchemaType* range = visit(*e.args[0]);
    const SchemaType* element = nullptr;
    if (range != nullptr && range->kind == SchemaType::Kind::list) element = range->element.get();
    m_locals.emplace_back(e.name, element);
    for (std::size_t i = 1; i < e.args.size(); ++i) visit(*e.args[i]);
    m_locals.pop_back();
    e.slot = static_cast<std::uint32_t>(m_locals.size());
    return nullptr;
  }

  const Ast& m_ast;
  const Functions& m_functions;
  std::vector<std::pair<std::string, const SchemaType*>> m_locals;
  std::optional<Diagnostic> m_error;
};

}  // namespace

std::optional<Diagnostic> check(Expr& root, const Ast& ast, const Functions& functions) {
  return Checker(ast, functions).run(root);
}

}  // namespace kw::cel
