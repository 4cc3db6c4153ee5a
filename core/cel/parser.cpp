// The CEL parser: recursive descent over cel-spec's grammar, macros expanded as calls are
// built. Nesting is bounded twice: the recursion of the parser itself (cel-go's limit of 250
// nested expressions) and the height of the tree it builds (long operator chains), so
// neither the parser nor the evaluator can run out of stack.
#include <charconv>
#include <cstdlib>
#include <set>

#include "core/cel/lexer.hpp"

namespace kw::cel {

namespace {

constexpr int k_max_recursion = 250;
constexpr std::uint32_t k_max_height = 500;

const std::set<std::string_view, std::less<>> k_reserved = {
    "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
    "loop", "package", "namespace", "return", "var", "void", "while"};

using ExprPtr = std::unique_ptr<Expr>;

struct BinaryOp {
  std::string_view text;
  Op op;
};
constexpr BinaryOp k_relations[] = {{"==", Op::equal},      {"!=", Op::not_equal},
                                    {"<", Op::less},        {"<=", Op::less_equal},
                                    {">", Op::greater},     {">=", Op::greater_equal},
                                    {"in", Op::in}};
constexpr BinaryOp k_additions[] = {{"+", Op::add}, {"-", Op::subtract}};
constexpr BinaryOp k_multiplications[] = {
    {"*", Op::multiply}, {"/", Op::divide}, {"%", Op::modulo}};

class Parser {
 public:
  explicit Parser(std::string_view source) : m_lexer(source) {}

  Result<ExprPtr> run() {
    advance();
    ExprPtr root = expression();
    if (root && m_token.kind != Token::Kind::end) mismatched("<EOF>");
    if (m_error) return fail(format_diagnostic(m_lexer.source(), *m_error));
    return root;
  }

 private:
  // Keeps the first error only: the rest tend to follow from it.
  ExprPtr error(std::uint32_t offset, std::string message) {
    if (!m_error) m_error = Diagnostic{offset, std::move(message)};
    return nullptr;
  }

  ExprPtr mismatched(std::string_view expecting) {
    std::string seen = m_token.kind == Token::Kind::end ? "<EOF>" : std::string(m_token.text);
    return error(m_token.offset, "Syntax error: mismatched input '" + seen + "' expecting " +
                                     std::string(expecting));
  }

  void advance() {
    if (m_error) {
      m_token = Token{Token::Kind::end, m_token.offset};
      return;
    }
    auto next = m_lexer.next();
    if (!next) {
      error(m_lexer.error_offset(), next.error().message);
      m_token = Token{Token::Kind::end, m_lexer.error_offset()};
      return;
    }
    m_token = std::move(*next);
  }

  bool at(std::string_view punct) const {
    return m_token.kind == Token::Kind::punct && m_token.text == punct;
  }

  bool accept(std::string_view punct) {
    if (!at(punct)) return false;
    advance();
    return true;
  }

  bool expect(std::string_view punct) {
    if (accept(punct)) return true;
    mismatched("'" + std::string(punct) + "'");
    return false;
  }

  ExprPtr node(Expr::Kind kind, std::uint32_t offset, std::vector<ExprPtr> args = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->offset = offset;
    for (const auto& arg : args) {
      if (arg) e->height = std::max(e->height, arg->height + 1);
    }
    e->args = std::move(args);
    if (e->height > k_max_height) {
      return error(offset, "expression recursion limit exceeded: " + std::to_string(k_max_height));
    }
    return e;
  }

  ExprPtr op_node(Op op, std::uint32_t offset, std::vector<ExprPtr> args) {
    ExprPtr e = node(Expr::Kind::op, offset, std::move(args));
    if (e) e->op = op;
    return e;
  }

  ExprPtr expression() {
    if (++m_depth > k_max_recursion) {
      return error(m_token.offset,
                   "expression recursion limit exceeded: " + std::to_string(k_max_recursion));
    }
    ExprPtr result = conditional();
    --m_depth;
    return result;
  }

  ExprPtr conditional() {
    ExprPtr cond = logical(Op::logical_or);
    if (!cond || !at("?")) return cond;
    std::uint32_t offset = m_token.offset;
    advance();
    ExprPtr yes = logical(Op::logical_or);
    if (!yes || !expect(":")) return nullptr;
    ExprPtr no = expression();
    if (!no) return nullptr;
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(std::move(yes));
    args.push_back(std::move(no));
    return op_node(Op::conditional, offset, std::move(args));
  }

  // `||` over `&&` over relations; the operand chain is balanced into a tree, as cel-go does.
  ExprPtr logical(Op op) {
    std::string_view text = op == Op::logical_or ? "||" : "&&";
    std::vector<ExprPtr> terms;
    std::vector<std::uint32_t> offsets;
    while (true) {
      ExprPtr term = op == Op::logical_or ? logical(Op::logical_and) : relation();
      if (!term) return nullptr;
      terms.push_back(std::move(term));
      if (!at(text)) break;
      offsets.push_back(m_token.offset);
      advance();
    }
    return balance(op, terms, offsets, 0, terms.size());
  }

  ExprPtr balance(Op op, std::vector<ExprPtr>& terms, const std::vector<std::uint32_t>& offsets,
                  std::size_t lo, std::size_t hi) {
    if (hi - lo == 1) return std::move(terms[lo]);
    std::size_t mid = (lo + hi) / 2;
    std::vector<ExprPtr> args;
    args.push_back(balance(op, terms, offsets, lo, mid));
    args.push_back(balance(op, terms, offsets, mid, hi));
    if (!args[0] || !args[1]) return nullptr;
    return op_node(op, offsets[mid - 1], std::move(args));
  }

  template <std::size_t N>
  const BinaryOp* match(const BinaryOp (&ops)[N]) const {
    bool is_in = m_token.kind == Token::Kind::ident && m_token.text == "in";
    if (m_token.kind != Token::Kind::punct && !is_in) return nullptr;
    for (const auto& candidate : ops) {
      if (candidate.text == m_token.text) return &candidate;
    }
    return nullptr;
  }

  template <std::size_t N>
  ExprPtr left_chain(const BinaryOp (&ops)[N], ExprPtr (Parser::*operand)()) {
    ExprPtr left = (this->*operand)();
    while (left) {
      const BinaryOp* op = match(ops);
      if (op == nullptr) break;
      std::uint32_t offset = m_token.offset;
      advance();
      ExprPtr right = (this->*operand)();
      if (!right) return nullptr;
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(std::move(right));
      left = op_node(op->op, offset, std::move(args));
    }
    return left;
  }

  ExprPtr relation() { return left_chain(k_relations, &Parser::addition); }
  ExprPtr addition() { return left_chain(k_additions, &Parser::multiplication); }
  ExprPtr multiplication() { return left_chain(k_multiplications, &Parser::unary); }

  ExprPtr unary() {
    if (!at("!") && !at("-")) return member();
    Op op = at("!") ? Op::logical_not : Op::negate;
    std::string_view text = m_token.text;
    std::uint32_t offset = m_token.offset;
    int count = 0;
    while (at(text)) {
      advance();
      ++count;
    }
    bool numeric = m_token.kind == Token::Kind::integer || m_token.kind == Token::Kind::floating;
    // -1 is one literal, so the most negative int can be written.
    if (op == Op::negate && numeric && count % 2 == 1) return member(true);
    ExprPtr operand = member();
    if (!operand || count % 2 == 0) return operand;
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    return op_node(op, offset, std::move(args));
  }

  ExprPtr member(bool negative_literal = false) {
    ExprPtr e = primary(negative_literal);
    while (e) {
      if (at(".") || at(".?")) {
        e = select(std::move(e));
      } else if (at("[") || at("[?")) {
        e = index(std::move(e));
      } else {
        break;
      }
    }
    return e;
  }

  ExprPtr select(ExprPtr operand) {
    std::uint32_t offset = m_token.offset;
    bool optional = at(".?");
    advance();
    if (m_token.kind != Token::Kind::ident) return mismatched("IDENTIFIER");
    std::string name(m_token.text);
    // (Reserved words may name fields and methods: `.namespace('x')` of the authorizer library.)
    advance();
    if (!optional && at("(")) {
      std::uint32_t open = m_token.offset;
      advance();
      std::vector<ExprPtr> args;
      args.push_back(std::move(operand));
      if (!arguments(args, ")")) return nullptr;
      return call(open, name, std::move(args), true);
    }
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    ExprPtr e = node(Expr::Kind::select, offset, std::move(args));
    if (!e) return nullptr;
    e->name = std::move(name);
    e->optional = optional;
    return e;
  }

  ExprPtr index(ExprPtr operand) {
    std::uint32_t offset = m_token.offset;
    bool optional = at("[?");
    advance();
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    args.push_back(expression());
    if (!args[1] || !expect("]")) return nullptr;
    ExprPtr e = node(Expr::Kind::index, offset, std::move(args));
    if (e) e->optional = optional;
    return e;
  }

  // Comma-separated expressions up to `close` (a trailing comma allowed), appended to args.
  bool arguments(std::vector<ExprPtr>& args, std::string_view close) {
    while (!at(close)) {
      ExprPtr arg = expression();
      if (!arg) return false;
      args.push_back(std::move(arg));
      if (!accept(",")) break;
    }
    return expect(close);
  }

  ExprPtr primary(bool negative_literal) {
    switch (m_token.kind) {
      case Token::Kind::integer:
      case Token::Kind::uinteger:
      case Token::Kind::floating:
      case Token::Kind::string:
      case Token::Kind::bytes: return literal(negative_literal);
      case Token::Kind::ident: return identifier(false);
      case Token::Kind::end: return mismatched("an expression");
      case Token::Kind::punct: break;
    }
    if (at(".")) {
      advance();
      if (m_token.kind != Token::Kind::ident) return mismatched("IDENTIFIER");
      return identifier(true);
    }
    if (accept("(")) {
      ExprPtr inner = expression();
      if (!inner || !expect(")")) return nullptr;
      return inner;
    }
    if (at("[") || at("[?")) return list_literal();
    if (at("{")) return map_literal();
    return mismatched("an expression");
  }

  ExprPtr literal(bool negative) {
    Token token = m_token;
    advance();
    ExprPtr e = node(Expr::Kind::constant, token.offset);
    if (!e) return nullptr;
    switch (token.kind) {
      case Token::Kind::string: e->constant = Value(std::move(token.value)); break;
      case Token::Kind::bytes: e->constant = Value(Bytes{std::move(token.value)}); break;
      case Token::Kind::floating: {
        double d = std::strtod(std::string(token.text).c_str(), nullptr);
        e->constant = Value(negative ? -d : d);
        break;
      }
      case Token::Kind::uinteger: {
        auto u = parse_unsigned(token.text.substr(0, token.text.size() - 1));
        if (!u) return error(token.offset, "invalid uint literal");
        e->constant = Value(*u);
        break;
      }
      default: {
        auto u = parse_unsigned(token.text);
        std::uint64_t limit = negative ? (1ULL << 63) : (1ULL << 63) - 1;
        if (!u || *u > limit) return error(token.offset, "invalid int literal");
        e->constant = Value(negative ? static_cast<std::int64_t>(0 - *u)
                                     : static_cast<std::int64_t>(*u));
      }
    }
    return e;
  }

  static std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      text.remove_prefix(2);
      base = 16;
    }
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
  }

  ExprPtr identifier(bool leading_dot) {
    std::string name(m_token.text);
    std::uint32_t offset = m_token.offset;
    advance();
    if (!leading_dot) {
      if (name == "true" || name == "false" || name == "null") {
        ExprPtr e = node(Expr::Kind::constant, offset);
        if (e) e->constant = name == "null" ? Value(nullptr) : Value(name == "true");
        return e;
      }
      if (name == "in") return error(offset, "Syntax error: mismatched input 'in' expecting an expression");
    }
    if (k_reserved.contains(name)) return error(offset, "reserved identifier: " + name);
    if (at("(")) {
      std::uint32_t open = m_token.offset;
      advance();
      std::vector<ExprPtr> args;
      if (!arguments(args, ")")) return nullptr;
      return call(open, name, std::move(args), false);
    }
    ExprPtr e = node(Expr::Kind::ident, offset);
    if (e) e->name = std::move(name);
    return e;
  }

  ExprPtr list_literal() {
    std::uint32_t offset = m_token.offset;
    bool first_optional = at("[?");
    advance();
    std::vector<ExprPtr> items;
    std::vector<bool> optional;
    while (!at("]")) {
      bool opt = first_optional && items.empty() ? true : accept("?");
      ExprPtr item = expression();
      if (!item) return nullptr;
      items.push_back(std::move(item));
      optional.push_back(opt);
      if (!accept(",")) break;
    }
    if (!expect("]")) return nullptr;
    ExprPtr e = node(Expr::Kind::list, offset, std::move(items));
    if (e) e->optional_entries = std::move(optional);
    return e;
  }

  ExprPtr map_literal() {
    std::uint32_t offset = m_token.offset;
    advance();
    std::vector<ExprPtr> items;
    std::vector<bool> optional;
    while (!at("}")) {
      bool opt = accept("?");
      ExprPtr key = expression();
      if (!key || !expect(":")) return nullptr;
      ExprPtr value = expression();
      if (!value) return nullptr;
      items.push_back(std::move(key));
      items.push_back(std::move(value));
      optional.push_back(opt);
      if (!accept(",")) break;
    }
    if (!expect("}")) return nullptr;
    ExprPtr e = node(Expr::Kind::map, offset, std::move(items));
    if (e) e->optional_entries = std::move(optional);
    return e;
  }

  // A call, or the macro it names.
  ExprPtr call(std::uint32_t offset, std::string name, std::vector<ExprPtr> args, bool receiver) {
    if (!receiver && name == "has" && args.size() == 1) return has_macro(offset, std::move(args));
    if (receiver) {
      auto macro = comprehension_macro(name, args.size() - 1);
      if (macro) return comprehension(offset, *macro, std::move(args));
    }
    ExprPtr e = node(Expr::Kind::call, offset, std::move(args));
    if (!e) return nullptr;
    e->name = std::move(name);
    e->receiver = receiver;
    return e;
  }

  ExprPtr has_macro(std::uint32_t offset, std::vector<ExprPtr> args) {
    Expr& arg = *args[0];
    if (arg.kind != Expr::Kind::select || arg.optional) {
      return error(offset, "invalid argument to has() macro");
    }
    arg.test_only = true;
    return std::move(args[0]);
  }

  static std::optional<Macro> comprehension_macro(std::string_view name, std::size_t args) {
    if (args == 2 && name == "all") return Macro::all;
    if (args == 2 && name == "exists") return Macro::exists;
    if (args == 2 && (name == "exists_one" || name == "existsOne")) return Macro::exists_one;
    if (args == 2 && name == "map") return Macro::map;
    if (args == 3 && name == "map") return Macro::map_filter;
    if (args == 2 && name == "filter") return Macro::filter;
    return std::nullopt;
  }

  ExprPtr comprehension(std::uint32_t offset, Macro macro, std::vector<ExprPtr> args) {
    if (args[1]->kind != Expr::Kind::ident) {
      return error(args[1]->offset, "argument must be a simple name");
    }
    std::string var = std::move(args[1]->name);
    args.erase(args.begin() + 1);
    ExprPtr e = node(Expr::Kind::comprehension, offset, std::move(args));
    if (!e) return nullptr;
    e->macro = macro;
    e->name = std::move(var);
    return e;
  }

  Lexer m_lexer;
  Token m_token;
  std::optional<Diagnostic> m_error;
  int m_depth = 0;
};

// The code point column of a byte offset within its line.
std::size_t column_of(std::string_view line, std::size_t bytes) {
  std::size_t column = 0;
  for (std::size_t i = 0; i < bytes && i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

}  // namespace

std::string format_diagnostic(std::string_view source, const Diagnostic& diagnostic) {
  std::size_t offset = std::min<std::size_t>(diagnostic.offset, source.size());
  std::size_t line_start = source.rfind('\n', offset == 0 ? 0 : offset - 1);
  line_start = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  if (offset > 0 && source[offset - 1] == '\n') line_start = offset;
  std::size_t line_end = source.find('\n', line_start);
  std::string_view line = source.substr(line_start, line_end == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : line_end - line_start);
  std::size_t line_number = 1;
  for (std::size_t i = 0; i < line_start; ++i) line_number += source[i] == '\n';
  std::size_t column = column_of(line, offset - line_start);
  return "ERROR: <input>:" + std::to_string(line_number) + ":" + std::to_string(column + 1) +
         ": " + diagnostic.message + "\n | " + std::string(line) + "\n | " +
         std::string(column, '.') + "^";
}

Result<std::unique_ptr<Expr>> parse(std::string_view source, std::size_t max_length) {
  std::size_t length = column_of(source, source.size());
  if (length > max_length) {
    return fail("ERROR: <input>:-1:0: expression code point size exceeds limit: size: " +
                std::to_string(length) + ", limit " + std::to_string(max_length));
  }
  return Parser(source).run();
}

}  // namespace kw::cel
