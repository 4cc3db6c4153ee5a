#pragma once
// The parsed and checked expression tree that a Program evaluates (internal to kw_cel).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/cel/cel.hpp"
#include "core/cel/functions.hpp"
#include "core/cel/schema.hpp"
#include "core/cel/value.hpp"

namespace kw::cel {

enum class Op : std::uint8_t {
  none, logical_and, logical_or, logical_not, negate, conditional,
  equal, not_equal, less, less_equal, greater, greater_equal, in,
  add, subtract, multiply, divide, modulo
};

enum class Macro : std::uint8_t { all, exists, exists_one, map, map_filter, filter };

struct Expr {
  enum class Kind : std::uint8_t {
    constant, ident, select, index, call, list, map, comprehension, op
  };
  // How a checked identifier is found.
  enum class Ref : std::uint8_t { unresolved, local, variable };

  Kind kind = Kind::constant;
  Op op = Op::none;
  Macro macro = Macro::all;
  Ref ref = Ref::unresolved;
  bool receiver = false;   // call: args[0] is the target
  bool optional = false;   // select `a.?b`, index `a[?k]`
  bool test_only = false;  // select inside has()
  std::uint32_t offset = 0;  // byte offset in the source, for messages
  std::uint32_t slot = 0;    // local: depth in the comprehension stack; variable: index
  std::uint32_t height = 1;  // of the subtree, bounded by the parser
  std::string name = {};     // ident, selected field, function, comprehension variable
  Value constant = {};
  // Operands: select/index/op/call operands in order (a receiver first), list elements, map
  // keys and values interleaved, comprehension range, predicate and transform.
  std::vector<std::unique_ptr<Expr>> args = {};
  std::vector<bool> optional_entries = {};  // list elements `?e`, map entries `?k: v`
  const Function* function = nullptr;       // call, after checking
};

struct Ast {
  std::string source = {};
  std::unique_ptr<Expr> root = {};
  std::vector<std::string> variables = {};
  std::vector<std::shared_ptr<const SchemaType>> variable_types = {};
};

// Source positions and cel-go's message layout:
// "ERROR: <input>:1:6: message\n | self.\n | .....^".
struct Diagnostic {
  std::uint32_t offset = 0;
  std::string message = {};
};
std::string format_diagnostic(std::string_view source, const Diagnostic& diagnostic);

// Parses and expands macros; depth and size are bounded.
Result<std::unique_ptr<Expr>> parse(std::string_view source, std::size_t max_length);
// Resolves identifiers and functions, checks fields against schemas; the first error.
std::optional<Diagnostic> check(Expr& root, const Ast& ast, const Functions& functions);

}  // namespace kw::cel
