#include "server/crd/validation_rules.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "core/api/json_access.hpp"
#include "core/cel/cel.hpp"
#include "core/util/text.hpp"
#include "server/crd/schema.hpp"

namespace kw::crd {

namespace {

using nlohmann::json;

// kube's celconfig: one rule's cost, and all rules' cost in one request.
constexpr std::uint64_t k_per_call_limit = 1'000'000;
constexpr std::uint64_t k_request_budget = 10'000'000;
constexpr const char* k_cost_exceeded = "operation cancelled: actual cost limit exceeded";
constexpr const char* k_out_of_budget =
    "validation failed due to running out of cost budget, no further validation rules will be run";

// kube's ruleErrorString and ruleMessageOrDefault.
std::string rule_name(const json& rule) {
  const std::string message = std::string(util::trim(api::text(rule, "message")));
  return message.empty() ? std::string(util::trim(api::text(rule, "rule"))) : message;
}
std::string default_message(const json& rule) {
  const std::string message = std::string(util::trim(api::text(rule, "message")));
  return message.empty() ? "failed rule: " + std::string(util::trim(api::text(rule, "rule"))) : message;
}

// A single-quoted JSONPath string's text ('a\'b'): the escapes Go's strconv knows, nullopt for
// another one.
std::optional<std::string> unquote_single(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) return std::nullopt;
    static constexpr std::string_view k_from = "abfnrtv'\\", k_to = "\a\b\f\n\r\t\v'\\";
    const auto at = k_from.find(text[i]);
    if (at == std::string_view::npos) return std::nullopt;
    out += k_to[at];
  }
  return out;
}

// A rule's fieldPath read against its schema, as kube's ValidFieldPath reads it: ".name" and
// "['name']" steps into properties (rendered ".name") or into additionalProperties (a map key,
// rendered "[name]"); nothing else (list items included) is a valid field. The rendered path
// has no leading '.', ready to append to the rule's own field; nullopt when the path is not
// valid for the schema.
std::optional<std::string> schema_field_path(std::string_view path, const json* schema) {
  std::string out;
  auto step = [&](const std::string& name) {
    if (schema == nullptr || !schema->is_object()) return false;
    if (auto props = schema->find("properties"); props != schema->end() && props->is_object()) {
      auto found = props->find(name);
      if (found == props->end()) return false;
      out += (out.empty() ? "" : ".") + name;
      schema = &*found;
      return true;
    }
    if (auto extra = schema->find("additionalProperties"); extra != schema->end() && extra->is_object()) {
      out += "[" + name + "]";
      schema = &*extra;
      return true;
    }
    return false;
  };
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      const std::size_t end = std::min(path.find_first_of(".[]", i + 1), path.size());
      if (end == i + 1 || !step(std::string(path.substr(i + 1, end - i - 1)))) return std::nullopt;
      i = end;
    } else if (path[i] == '[') {
      // A quoted name runs to the next quote that no backslash escapes.
      if (i + 1 >= path.size() || path[i + 1] != '\'') return std::nullopt;
      std::size_t close = i + 2;
      while (close < path.size() && !(path[close] == '\'' && path[close - 1] != '\\')) ++close;
      if (close + 1 >= path.size() || path[close + 1] != ']') return std::nullopt;
      auto name = unquote_single(path.substr(i + 2, close - i - 2));
      if (!name || !step(*name)) return std::nullopt;
      i = close + 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// A bool or string result, whether it holds the value or views a JSON node.
template <class T>
std::optional<T> json_of(const cel::Value& value, cel::Value::Kind kind) {
  if (value.kind() != kind) return std::nullopt;
  auto as_json = value.to_json();
  if (!as_json) return std::nullopt;
  return as_json->get<T>();
}

std::string child_path(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

struct CompiledRule {
  json rule = {};
  std::optional<cel::Program> program = {};
  std::optional<cel::Program> message_expression = {};
  std::string error = {};                     // why the rule did not compile
  std::string message_expression_error = {};  // why its messageExpression did not
  bool uses_old_self = false;
  std::string field_path = {};  // fieldPath as schema_field_path renders it; "" when none
};

cel::Env env_for(const json& schema, bool resource_root, bool with_old_self) {
  cel::Env env;
  env.variables.push_back({.name = "self", .schema = schema, .resource_root = resource_root});
  if (with_old_self) env.variables.push_back({.name = "oldSelf", .schema = schema, .resource_root = resource_root});
  return env;
}

// A rule that compiles without oldSelf declared does not use it.
CompiledRule compile_rule(const json& rule, const json& schema, bool resource_root) {
  CompiledRule out{.rule = rule};
  const std::string source = api::text(rule, "rule");
  if (std::string(util::trim(source)).empty()) return out;
  auto program = cel::compile(source, env_for(schema, resource_root, false));
  if (!program) {
    program = cel::compile(source, env_for(schema, resource_root, true));
    out.uses_old_self = static_cast<bool>(program);
  }
  if (program) out.program = std::move(*program);
  else out.error = "compilation failed: " + program.error().message;
  if (const std::string expression = api::text(rule, "messageExpression"); !std::string(util::trim(expression)).empty()) {
    auto compiled = cel::compile(expression, env_for(schema, resource_root, true));
    if (compiled) out.message_expression = std::move(*compiled);
    else out.message_expression_error = "messageExpression compilation failed: " + compiled.error().message;
  }
  out.field_path = schema_field_path(util::trim(api::text(rule, "fieldPath")), &schema).value_or("");
  return out;
}

}  // namespace

struct ValidationRules::Node {
  std::string type;  // the schema's type, as failures name the value
  std::vector<CompiledRule> rules;
  std::map<std::string, std::unique_ptr<Node>> properties;
  std::unique_ptr<Node> additional;  // additionalProperties
  std::unique_ptr<Node> items;
  std::string list_type;
  std::vector<std::string> map_keys;
};

namespace {

using Node = ValidationRules::Node;

// The rule tree of `schema`; null where no rule is at or below it.
std::unique_ptr<Node> build(const json& schema, bool resource_root) {
  if (!schema.is_object()) return nullptr;
  auto node = std::make_unique<Node>();
  node->type = api::text(schema, "type");
  bool any = false;
  if (auto rules = schema.find("x-kubernetes-validations"); rules != schema.end() && rules->is_array())
    for (const auto& rule : *rules) {
      node->rules.push_back(compile_rule(rule, schema, resource_root));
      any = true;
    }
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
    for (const auto& [name, sub] : props->items())
      if (auto below = build(sub, sub.is_object() && sub.value("x-kubernetes-embedded-resource", false))) {
        node->properties.emplace(name, std::move(below));
        any = true;
      }
  if (auto extra = schema.find("additionalProperties"); extra != schema.end())
    if ((node->additional = build(*extra, false))) any = true;
  if (auto items = schema.find("items"); items != schema.end())
    if ((node->items = build(*items, items->is_object() && items->value("x-kubernetes-embedded-resource", false))))
      any = true;
  node->list_type = api::text(schema, "x-kubernetes-list-type");
  if (auto keys = schema.find("x-kubernetes-list-map-keys"); keys != schema.end() && keys->is_array())
    for (const auto& key : *keys)
      if (key.is_string()) node->map_keys.push_back(key.get<std::string>());
  return any ? std::move(node) : nullptr;
}

class Walker {
 public:
  explicit Walker(json& causes) : m_causes(causes) {}

  void walk(const Node& node, const json& value, const json* old, const std::string& path) {
    if (value.is_null() || m_stopped) return;
    run_rules(node, value, old, path);
    if (value.is_object()) {
      for (const auto& [name, below] : node.properties)
        if (auto found = value.find(name); found != value.end())
          walk(*below, *found, member(old, name), child_path(path, name));
      if (node.additional)
        for (const auto& [key, item] : value.items())
          if (!node.properties.contains(key)) walk(*node.additional, item, member(old, key), path + "[" + key + "]");
    } else if (value.is_array() && node.items) {
      for (std::size_t i = 0; i < value.size(); ++i)
        walk(*node.items, value[i], correlated_item(node.list_type, node.map_keys, value[i], old), path + "[" + std::to_string(i) + "]");
    }
  }

 private:
  static const json* member(const json* old, const std::string& name) {
    if (old == nullptr || !old->is_object()) return nullptr;
    const auto found = old->find(name);
    return found == old->end() || found->is_null() ? nullptr : &*found;
  }

  void add(const std::string& path, const std::string& reason, const std::string& message) {
    m_causes.push_back({{"reason", reason}, {"message", message}, {"field", path.empty() ? "<nil>" : path}});
  }
  void invalid(const std::string& path, const std::string& type, const std::string& detail) {
    add(path, "FieldValueInvalid", "Invalid value: " + util::go_quote(type) + ": " + detail);
  }
  // kube's fieldErrorForReason.
  void failed(const std::string& path, const std::string& type, const std::string& detail, const std::string& reason) {
    if (reason == "FieldValueForbidden") add(path, reason, "Forbidden: " + detail);
    else if (reason == "FieldValueRequired") add(path, reason, "Required value: " + detail);
    else if (reason == "FieldValueDuplicate") add(path, reason, "Duplicate value: " + util::go_quote(type));
    else invalid(path, type, detail);
  }

  void run_rules(const Node& node, const json& value, const json* old, const std::string& path) {
    if (node.rules.empty()) return;
    cel::MapActivation activation;
    activation.bind_json("self", value);
    if (old) activation.bind_json("oldSelf", *old);
    for (const auto& compiled : node.rules) {
      if (m_stopped) return;
      if (!compiled.error.empty()) {
        invalid(path, node.type, "rule compile error: " + compiled.error);
        continue;
      }
      const auto flag = compiled.rule.find("optionalOldSelf");  // null or absent: false
      const bool optional_old_self = flag != compiled.rule.end() && flag->is_boolean() && flag->get<bool>();
      if (!compiled.program || (compiled.uses_old_self && old == nullptr && !optional_old_self)) continue;
      // A rule without oldSelf ratchets: a value equal to its old value is not checked again.
      if (!compiled.uses_old_self && old != nullptr && *old == value) continue;
      if (!optional_old_self) {
        run_rule(node, compiled, activation, path);
        continue;
      }
      // optionalOldSelf: the rule also runs without an old value, oldSelf being an optional.
      cel::MapActivation optional;
      optional.bind_json("self", value);
      optional.bind("oldSelf", old ? cel::Value::optional_of(cel::Value::from_json(*old)) : cel::Value::optional_none());
      run_rule(node, compiled, optional, path);
    }
  }

  void run_rule(const Node& node, const CompiledRule& compiled, const cel::Activation& activation,
                const std::string& path) {
    const std::uint64_t limit = std::min(k_per_call_limit, m_remaining);
    auto result = compiled.program->evaluate(activation, limit);
    if (!result) {
      const std::string& why = result.error().message;
      if (why.starts_with(k_cost_exceeded)) {
        if (limit < k_per_call_limit) invalid(path, node.type, k_out_of_budget);
        else invalid(path, node.type, "'" + why + "': no further validation rules will be run due to call cost "
                                                    "exceeds limit for rule: " + rule_name(compiled.rule));
        m_stopped = true;
      } else if (why.starts_with("no such overload")) {
        invalid(path, node.type, "'" + why + "': call arguments did not match a supported operator, function or "
                                             "macro signature for rule: " + rule_name(compiled.rule));
      } else {
        invalid(path, node.type, why + " evaluating rule: " + rule_name(compiled.rule));
      }
      return;
    }
    m_remaining -= std::min(m_remaining, result->cost);
    const auto passed = json_of<bool>(result->value, cel::Value::Kind::boolean);
    if (passed && *passed) return;
    if (!passed) {
      invalid(path, node.type, "cel expression must evaluate to a bool evaluating rule: " + rule_name(compiled.rule));
      return;
    }
    const std::string at = compiled.field_path.empty()            ? path
                           : compiled.field_path.front() == '[' ? path + compiled.field_path
                                                                : child_path(path, compiled.field_path);
    failed(at, node.type, failure_message(compiled, activation), api::text(compiled.rule, "reason"));
  }

  // The messageExpression's text when it gives a usable one, the rule's message otherwise.
  std::string failure_message(const CompiledRule& compiled, const cel::Activation& activation) {
    if (!compiled.message_expression) return default_message(compiled.rule);
    auto result = compiled.message_expression->evaluate(activation, std::min(k_per_call_limit, m_remaining));
    if (!result) return default_message(compiled.rule);
    m_remaining -= std::min(m_remaining, result->cost);
    const auto text = json_of<std::string>(result->value, cel::Value::Kind::string);
    if (!text) return default_message(compiled.rule);
    const std::string message = std::string(util::trim(*text));
    if (message.empty() || message.find('\n') != std::string::npos || message.size() > 5 * 1024)
      return default_message(compiled.rule);
    return message;
  }

  json& m_causes;
  std::uint64_t m_remaining = k_request_budget;
  bool m_stopped = false;
};

// Go's %#v of an apiextensions.ValidationRule, as CRD validation shows the rule.
std::string go_rule_text(const json& rule) {
  const auto pointer = [&](const char* key, const char* type) {
    const auto found = rule.find(key);
    if (found == rule.end() || found->is_null()) return "(" + std::string(type) + ")(nil)";
    return std::string("(") + type + ")(" + (found->is_string() ? util::go_quote(found->get<std::string>()) : found->dump()) + ")";
  };
  return "apiextensions.ValidationRule{Rule:" + util::go_quote(api::text(rule, "rule")) +
         ", Message:" + util::go_quote(api::text(rule, "message")) +
         ", MessageExpression:" + util::go_quote(api::text(rule, "messageExpression")) +
         ", Reason:" + pointer("reason", "*apiextensions.FieldValueErrorReason") +
         ", FieldPath:" + util::go_quote(api::text(rule, "fieldPath")) +
         ", OptionalOldSelf:" + pointer("optionalOldSelf", "*bool") + "}";
}

void add_cause(json& causes, const std::string& reason, const std::string& field, const std::string& message) {
  causes.push_back({{"reason", reason}, {"message", message}, {"field", field}});
}

bool valid_reason(const std::string& reason) {
  return reason == "FieldValueInvalid" || reason == "FieldValueForbidden" || reason == "FieldValueRequired" ||
         reason == "FieldValueDuplicate";
}

// The checks kube makes of one x-kubernetes-validations entry before compiling it.
bool check_rule_fields(const json& rule, const json& schema, const std::string& at, json& causes) {
  const std::string source = api::text(rule, "rule"), message = api::text(rule, "message");
  const std::size_t before = causes.size();
  if (std::string(util::trim(source)).empty()) {
    add_cause(causes, "FieldValueRequired", at + ".rule", "Required value: rule is not specified");
  } else if (!message.empty() && std::string(util::trim(message)).empty()) {
    add_cause(causes, "FieldValueInvalid", at + ".message",
              "Invalid value: " + util::go_quote(message) + ": message must be non-empty if specified");
  } else if (std::string(util::trim(message)).find('\n') != std::string::npos) {
    add_cause(causes, "FieldValueInvalid", at + ".message",
              "Invalid value: " + util::go_quote(message) + ": message must not contain line breaks");
  } else if (std::string(util::trim(source)).find('\n') != std::string::npos && std::string(util::trim(message)).empty()) {
    add_cause(causes, "FieldValueRequired", at + ".message",
              "Required value: message must be specified if rule contains line breaks");
  }
  if (const std::string expression = api::text(rule, "messageExpression"); !expression.empty() && std::string(util::trim(expression)).empty())
    add_cause(causes, "FieldValueRequired", at + ".messageExpression",
              "Required value: messageExpression must be non-empty if specified");
  if (const std::string field_path = api::text(rule, "fieldPath"); !field_path.empty()) {
    if (util::trim(field_path).empty())
      add_cause(causes, "FieldValueInvalid", at + ".fieldPath",
                "Invalid value: " + util::go_quote(field_path) + ": fieldPath must be non-empty if specified");
    if (field_path.find_first_of("\r\n") != std::string::npos)
      add_cause(causes, "FieldValueInvalid", at + ".fieldPath",
                "Invalid value: " + util::go_quote(field_path) + ": fieldPath must not contain line breaks");
    if (!schema_field_path(field_path, &schema))
      add_cause(causes, "FieldValueInvalid", at + ".fieldPath",
                "Invalid value: " + util::go_quote(field_path) + ": fieldPath must be a valid path");
  }
  if (const std::string reason = api::text(rule, "reason"); rule.contains("reason") && !valid_reason(reason))
    add_cause(causes, "FieldValueNotSupported", at + ".reason",
              "Unsupported value: " + util::go_quote(reason) +
                  ": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", "
                  "\"FieldValueRequired\"");
  return causes.size() == before;
}

bool embedded_resource(const json& schema) {
  return schema.is_object() && schema.value("x-kubernetes-embedded-resource", false);
}

// Appends the rule problems of `schema` and below: first the problems of the rules' fields, then
// (only when there are none at this level or deeper, as in kube) the rules that do not compile.
// Returns the number of field problems found at this level or deeper.
std::size_t check_rules_into(const json& schema, const std::string& path, bool resource_root, json& field_causes,
                             json& compile_causes) {
  if (!schema.is_object()) return 0;
  std::size_t problems = 0;
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
    for (const auto& [key, sub] : props->items())
      problems += check_rules_into(sub, path + ".properties[" + key + "]", embedded_resource(sub), field_causes,
                                   compile_causes);
  if (auto items = schema.find("items"); items != schema.end() && items->is_object())
    problems += check_rules_into(*items, path + ".items", embedded_resource(*items), field_causes, compile_causes);
  if (auto extra = schema.find("additionalProperties"); extra != schema.end() && extra->is_object())
    problems += check_rules_into(*extra, path + ".additionalProperties", false, field_causes, compile_causes);
  const auto rules = schema.find("x-kubernetes-validations");
  if (rules == schema.end() || !rules->is_array()) return problems;
  const auto at = [&](std::size_t i) { return path + ".x-kubernetes-validations[" + std::to_string(i) + "]"; };
  for (std::size_t i = 0; i < rules->size(); ++i)
    if (!check_rule_fields((*rules)[i], schema, at(i), field_causes)) ++problems;
  if (problems > 0) return problems;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    const json& rule = (*rules)[i];
    const CompiledRule compiled = compile_rule(rule, schema, resource_root);
    if (!compiled.error.empty())
      add_cause(compile_causes, "FieldValueInvalid", at(i) + ".rule",
                "Invalid value: " + go_rule_text(rule) + ": " + compiled.error);
    if (!compiled.message_expression_error.empty())
      add_cause(compile_causes, "FieldValueInvalid", at(i) + ".messageExpression",
                "Invalid value: " + go_rule_text(rule) + ": " + compiled.message_expression_error);
    if (compiled.error.empty() && !compiled.uses_old_self && rule.contains("optionalOldSelf") &&
        rule["optionalOldSelf"].is_boolean())
      add_cause(compile_causes, "FieldValueInvalid", at(i) + ".optionalOldSelf",
                "Invalid value: " + rule["optionalOldSelf"].dump() + ": may not be set if oldSelf is not used in rule");
  }
  return 0;
}

}  // namespace

ValidationRules::ValidationRules(std::unique_ptr<Node> root) : m_root(std::move(root)) {}
ValidationRules::~ValidationRules() = default;

std::shared_ptr<const ValidationRules> ValidationRules::compile(const json& schema) {
  return std::shared_ptr<const ValidationRules>(new ValidationRules(build(schema, true)));
}

bool ValidationRules::empty() const { return m_root == nullptr; }

void ValidationRules::validate(const json& object, const json* old, json& causes) const {
  if (!m_root) return;
  Walker walker(causes);
  walker.walk(*m_root, object, old, "");
}

void check_rules(const json& schema, const std::string& path, json& causes) {
  json compile_causes = json::array();
  check_rules_into(schema, path, true, causes, compile_causes);
  for (auto& cause : compile_causes) causes.push_back(std::move(cause));
}

}  // namespace kw::crd
