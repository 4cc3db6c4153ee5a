#pragma once
// kubectl-style JSONPath templates: literal text with {expressions}: .a.b, ['k'], [0], [-1],
// [*], [1:3], .*, ..name, [?(@.a=="x")], {range EXPR}...{end}, {"literal"} and @.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::cli {

class JsonPathTemplate {
 public:
  // Accepts a template ("{.metadata.name}{'\n'}") or a bare path (".metadata.name").
  static Result<JsonPathTemplate> parse(std::string_view text);
  // Renders the template against `root`; a path that finds nothing is an error unless
  // allow_missing (kubectl's --allow-missing-template-keys, true by default).
  Result<std::string> render(const nlohmann::json& root, bool allow_missing = true) const;
  // The values one bare path finds (for custom-columns and --sort-by).
  std::vector<nlohmann::json> values(const nlohmann::json& root) const;

  struct Node;
  JsonPathTemplate();
  ~JsonPathTemplate();
  JsonPathTemplate(JsonPathTemplate&&) noexcept;
  JsonPathTemplate& operator=(JsonPathTemplate&&) noexcept;

 private:
  std::vector<std::unique_ptr<Node>> m_nodes;
};

// A value as JSONPath output prints it: strings raw, everything else as compact JSON.
std::string jsonpath_text(const nlohmann::json& value);

}  // namespace kw::cli
