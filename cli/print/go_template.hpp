#pragma once
// kubectl's -o go-template engine: a faithful subset of Go's text/template, run on an object's
// JSON as k8s.io/cli-runtime's GoTemplatePrinter runs it. The template is named "output"; the
// data is what encoding/json decodes into interface{} (every number a float64, so 3 prints "3"
// and 1000000 prints "1e+06"); kubectl's `exists` and `base64decode` join Go's builtins. Error
// messages are worded as Go words them, e.g. `template: output:1:2: executing "output" at
// <.a.b>: map has no entry for key "a"`.
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::cli {

// A parsed template and the templates it {{define}}s. Immutable once parsed: copies share the
// tree, and one template may execute on many objects, concurrently too.
class GoTemplate {
 public:
  struct Tree;  // the parsed nodes (go_template.cpp)

 private:
  explicit GoTemplate(std::shared_ptr<const Tree> tree) : m_tree(std::move(tree)) {}
  std::shared_ptr<const Tree> m_tree;

  friend Result<GoTemplate> parse_go_template(std::string_view text);
  friend Result<void> execute(const GoTemplate& tmpl, const nlohmann::json& data, std::string& out,
                              bool missing_keys_allowed);
};

// Parses `text` as kubectl parses --template; errors read like Go's
// (`template: output:1: function "foo" not defined`).
Result<GoTemplate> parse_go_template(std::string_view text);

// Runs the template on `data`, appending to `out`. missing_keys_allowed=true is kubectl's default
// (--allow-missing-template-keys): a missing map key yields "<no value>"; false makes it an error
// (`map has no entry for key "x"`). On error, what was printed before it stays in `out`, as Go's
// writer would have received it.
Result<void> execute(const GoTemplate& tmpl, const nlohmann::json& data, std::string& out,
                     bool missing_keys_allowed = true);

}  // namespace kw::cli
