#pragma once
// kubectl's JSONPath dialect (k8s.io/client-go/util/jsonpath), the one engine behind
// `-o jsonpath`, `-o custom-columns`, `--sort-by` and the server's CRD printer columns.
//
// A template is literal text with {actions}. Inside an action: .field (backslash escapes a
// dot), .*, ..field, [n], [-n], [a:b:step], [*], ['key'] (read as .key, so dots in it still
// separate fields unless escaped), unions [0,2] and ['a','b'], filters [?(@.a=="x")],
// [?(@.n>1)] and [?(@.a)] (exists), quoted text {"\n"}, and {range EXPR}...{end}.
// Evaluation follows client-go: an index out of bounds, a subscript or filter on a
// non-array, and comparing values of different types are errors; a missing field is an
// error only when missing keys are not allowed.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::api {

class JsonPath {
 public:
  // A template: text outside braces is printed as is (kubectl's `-o jsonpath=`).
  static Result<JsonPath> parse(std::string_view text);
  // kubectl's RelaxedJSONPathExpression, for custom-columns and --sort-by: "a.b", ".a.b",
  // "{a.b}" and "{.a.b}" all mean the template "{.a.b}".
  static Result<JsonPath> parse_relaxed(std::string_view expression);

  // client-go's FindResults: one list of values per action of the template, in order; a
  // range contributes the lists of its body once per value it iterates.
  Result<std::vector<std::vector<nlohmann::json>>> find(const nlohmann::json& root,
                                                         bool allow_missing = true) const;
  // client-go's Execute: the values of each list joined by spaces, lists concatenated.
  Result<std::string> render(const nlohmann::json& root, bool allow_missing = true) const;

  struct Node;
  struct Segment;
  JsonPath();
  ~JsonPath();
  JsonPath(JsonPath&&) noexcept;
  JsonPath& operator=(JsonPath&&) noexcept;

 private:
  std::vector<Segment> m_segments;
};

// One value as JSONPath prints it (Go's fmt.Fprint): strings raw, integers in decimal,
// floats as Go's %v, null as "<nil>", objects and arrays as compact JSON.
std::string jsonpath_text(const nlohmann::json& value);

// A value as Go's fmt %v prints a decoded JSON value (kubectl's custom-columns cells):
// like jsonpath_text for scalars, "[a b]" for arrays and "map[k:v]" (keys sorted) for objects.
std::string go_value_text(const nlohmann::json& value);

// A float as Go's %v prints it: shortest digits, exponent form below 1e-4 and from 1e6 on
// (1e+06, 1.5e-05).
std::string go_float_text(double value);

}  // namespace kw::api
