#pragma once
// CEL, the Common Expression Language, as Kubernetes evaluates it: CRD x-kubernetes-validations,
// ValidatingAdmissionPolicy and webhook matchConditions.
//
// The contract:
// - compile(source, env) parses the expression, expands its macros (has, all, exists,
//   exists_one, map, filter) and checks it: every identifier must be a declared variable, a
//   comprehension variable or a type name ("undeclared reference to 'x' (in container '')"),
//   every function must exist, and selecting a field of an object whose declared OpenAPI
//   schema lists its properties must name one of them ("undefined field 'foo'"). Errors come
//   back as cel-go writes them: "ERROR: <input>:LINE:COL: message", the source line, a caret.
// - A Program is immutable and may be evaluated from many threads at once.
// - evaluate(activation, cost_limit) runs it. The activation binds each declared variable to a
//   Value; a Value may view a nlohmann::json node in place (no copy), so the json must outlive
//   the evaluation and any result that still refers to it. Evaluation errors ("no such key: x",
//   "no such overload", "integer overflow", ...) come back as kw::Error; so does running over the
//   cost limit ("operation cancelled: actual cost limit exceeded"). A success carries the
//   value and its cost, counted roughly as cel-go counts it (one per variable, field and call,
//   more for calls that traverse strings and lists).
//
// The language: cel-spec's grammar (optional syntax `a.?b`, `a[?k]`, `[?x]`, `{?k: v}`
// included; no message construction `Foo{...}`), nesting bounded to 250 levels of parsing and
// a tree 500 deep. Functions: the standard library (size, contains, startsWith, endsWith,
// matches, type conversions, duration/timestamp arithmetic and getters with "UTC" or fixed
// offset zones), optionals, and Kubernetes' libraries: strings extension (charAt, indexOf,
// lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, reverse,
// strings.quote, format), lists (isSorted, sum, min, max, indexOf, lastIndexOf, slice,
// flatten, distinct), sets, regex (find, findAll), quantity, URL, IP and CIDR.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cel/value.hpp"
#include "core/util/error.hpp"

namespace kw::cel {

// A variable the expression may use. With a schema (an OpenAPI v3 structural schema), fields
// are checked at compile time, property names are escaped as Kubernetes escapes them
// (`foo-bar` is `foo__dash__bar`), and typed strings become timestamps (format date-time or
// date), durations (duration) or bytes (byte) when read.
struct Declaration {
  std::string name = {};
  nlohmann::json schema = nullptr;  // null: the variable is dyn
  bool resource_root = false;       // apiVersion, kind, metadata.name/generateName always there
};

struct Env {
  std::vector<Declaration> variables = {};
  // Longer sources are refused before parsing (cel-go's default code point limit).
  std::size_t max_source_length = 100000;
};

// Binds declared variables to values for one evaluation.
class Activation {
 public:
  virtual ~Activation() = default;
  // The variable's value, or nullopt when it is not bound (evaluation then fails with
  // "no such attribute").
  virtual std::optional<Value> find(std::string_view name) const = 0;
  // A JSON document bound to the variable, read under the variable's declared schema (so
  // typed strings become timestamps, durations or bytes); nullptr to use find instead.
  virtual const nlohmann::json* find_json(std::string_view) const { return nullptr; }
};

// The common activation: values and json views by name.
class MapActivation : public Activation {
 public:
  MapActivation& bind(std::string name, Value value);
  // `value` is viewed, not copied: it must outlive the evaluation.
  MapActivation& bind_json(std::string name, const nlohmann::json& value);
  MapActivation& bind_json(std::string name, nlohmann::json&& value) = delete;
  std::optional<Value> find(std::string_view name) const override;
  const nlohmann::json* find_json(std::string_view name) const override;

 private:
  std::map<std::string, Value, std::less<>> m_values;
  std::map<std::string, const nlohmann::json*, std::less<>> m_json;
};

// An object whose fields are computed on first use and then kept, for ValidatingAdmissionPolicy's
// `variables`: bind it with MapActivation::bind("variables", Value(lazy)). Each computation
// runs at most once per LazyFields; make a new one per evaluation.
class LazyFields : public Object {
 public:
  using Compute = std::function<Value()>;
  void add(std::string name, Compute compute);
  std::string_view type_name() const override { return "object"; }
  std::optional<Value> field(std::string_view name) const override;
  bool equals(const Object& other) const override { return this == &other; }

 private:
  struct Entry {
    Compute compute = {};
    mutable std::optional<Value> value = {};
  };
  std::map<std::string, Entry, std::less<>> m_fields;
};

inline constexpr std::uint64_t k_no_cost_limit = std::numeric_limits<std::uint64_t>::max();

struct Evaluation {
  Value value = {};
  std::uint64_t cost = 0;
};

struct CostEstimate {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
};

struct Ast;

class Program {
 public:
  Program() = default;
  explicit Program(std::shared_ptr<const Ast> ast) : m_ast(std::move(ast)) {}

  // The value (never an error Value) and its cost, or the evaluation error.
  Result<Evaluation> evaluate(const Activation& activation,
                              std::uint64_t cost_limit = k_no_cost_limit) const;
  // evaluate, then require a bool ("expected a bool result, got int").
  Result<bool> evaluate_bool(const Activation& activation,
                             std::uint64_t cost_limit = k_no_cost_limit) const;
  // A static bound of the cost from the declared schemas' maxLength, maxItems and
  // maxProperties (unbounded strings and lists count as Kubernetes counts them: as large as
  // the request size allows).
  CostEstimate estimate_cost() const;

 private:
  std::shared_ptr<const Ast> m_ast;
};

Result<Program> compile(std::string_view source, const Env& env = {});

// Kubernetes' escaping of a schema property name into a CEL identifier: `__dash__` for '-',
// `__dot__` for '.', `__slash__` for '/', `__underscores__` for "__", `__in__` for a reserved
// word; nullopt when the name cannot be one (it starts with a digit or holds other characters).
std::optional<std::string> escape_property(std::string_view name);
std::optional<std::string> unescape_property(std::string_view name);

}  // namespace kw::cel
