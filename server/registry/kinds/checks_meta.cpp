// metav1 validation (k8s.io/apimachinery/pkg/apis/meta/v1/validation): label maps, annotation
// keys, label selectors and conditions (checks.hpp).
#include <set>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {
namespace {

using api::print::arr;
using api::print::at;
using api::print::num;
using api::print::str;
using nlohmann::json;

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// [A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?
bool condition_reason_shape(std::string_view r) {
  if (r.empty() || !letter(r.front()) || !(ascii_alnum(r.back()) || r.back() == '_')) return false;
  for (char c : r)
    if (!ascii_alnum(c) && c != '_' && c != ',' && c != ':') return false;
  return true;
}

const char* const k_condition_reason_help =
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
    "characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
    "'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
    "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";

constexpr std::size_t k_max_reason = 1024;
constexpr std::size_t k_max_message = 32 * 1024;

}  // namespace

void validate_labels(Causes& causes, const json& labels, const std::string& path) {
  if (!labels.is_object()) return;
  for (const auto& [key, value] : labels.items()) {
    invalid_each(causes, path, key, qualified_name_errors(key));
    invalid_each(causes, path, value, label_value_errors(str(value)));
  }
}

void validate_annotation_keys(Causes& causes, const json& annotations, const std::string& path) {
  if (!annotations.is_object()) return;
  for (const auto& [key, value] : annotations.items())
    invalid_each(causes, path, key, qualified_name_errors(util::to_lower(key)));
}

void validate_label_selector(Causes& causes, const json& selector, const std::string& path) {
  if (!selector.is_object()) return;
  validate_labels(causes, at(selector, {"matchLabels"}), path + ".matchLabels");
  const json& expressions = arr(at(selector, {"matchExpressions"}));
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const json& requirement = expressions[i];
    const std::string field = index_path(path + ".matchExpressions", i);
    const std::string op = str(at(requirement, {"operator"}));
    const json& values = arr(at(requirement, {"values"}));
    if (op == "In" || op == "NotIn") {
      if (values.empty()) required(causes, field + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty())
        forbidden(causes, field + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else {
      invalid_value(causes, field + ".operator", op, "not a valid selector operator");
    }
    const std::string key = str(at(requirement, {"key"}));
    invalid_each(causes, field + ".key", key, qualified_name_errors(key));
    for (std::size_t v = 0; v < values.size(); ++v)
      invalid_each(causes, index_path(field + ".values", v), values[v], label_value_errors(str(values[v])));
  }
}

void validate_conditions(Causes& causes, const json& conditions, const std::string& path) {
  const json& list = arr(conditions);
  std::set<std::string> types;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& condition = list[i];
    const std::string field = index_path(path, i);
    const std::string type = str(at(condition, {"type"}));
    if (!types.insert(type).second) duplicate(causes, field + ".type", type);
    invalid_each(causes, field + ".type", type, qualified_name_errors(type));
    const std::string status = str(at(condition, {"status"}));
    if (!one_of(status, {"True", "False", "Unknown"}))
      unsupported(causes, field + ".status", status, {"False", "True", "Unknown"});
    if (num(at(condition, {"observedGeneration"})) < 0)
      invalid_value(causes, field + ".observedGeneration", at(condition, {"observedGeneration"}),
                    "must be greater than or equal to zero");
    if (!api::print::time_of(at(condition, {"lastTransitionTime"})))
      required(causes, field + ".lastTransitionTime", "must be set");
    const std::string reason = str(at(condition, {"reason"}));
    if (reason.empty()) {
      required(causes, field + ".reason", "must be set");
    } else {
      if (!condition_reason_shape(reason)) invalid_value(causes, field + ".reason", reason, k_condition_reason_help);
      if (reason.size() > k_max_reason) too_long(causes, field + ".reason", k_max_reason);
    }
    if (str(at(condition, {"message"})).size() > k_max_message) too_long(causes, field + ".message", k_max_message);
  }
}

}  // namespace kw::kinds
