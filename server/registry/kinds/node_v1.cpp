// node.k8s.io/v1: RuntimeClass.
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// --- messages of apimachinery's name checks (generic: candidates for checks.*) ---------------

bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// RegexError: why a value does not match a format, with examples.
std::string regex_error(std::string message, std::string_view format,
                        std::initializer_list<std::string_view> examples) {
  message += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) message += " or ";
    message += "'" + std::string(example) + "', ";
    first = false;
  }
  return message + "regex used for validation is '" + std::string(format) + "')";
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], the name part of a qualified name, any length.
bool matches_name_part(std::string_view v) {
  if (v.empty() || !ascii_alnum(v.front()) || !ascii_alnum(v.back())) return false;
  for (char c : v)
    if (!ascii_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, any length.
bool matches_subdomain(std::string_view v) {
  const auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (std::size_t start = 0;;) {
    const auto dot = v.find('.', start);
    const auto part = v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// IsDNS1123Subdomain.
std::vector<std::string> subdomain_errors(std::string_view v) {
  std::vector<std::string> errors;
  if (v.size() > 253) errors.emplace_back("must be no more than 253 characters");
  if (!matches_subdomain(v)) errors.emplace_back(k_subdomain_help);
  return errors;
}

// IsQualifiedName: a label or annotation key, [prefix/]name.
std::vector<std::string> qualified_name_errors(std::string_view v) {
  static const std::string k_name_help = regex_error(
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
      "alphanumeric character",
      "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", {"MyName", "my.name", "123-abc"});
  std::vector<std::string> errors;
  std::string_view name = v;
  if (const auto slash = v.find('/'); slash != std::string_view::npos) {
    if (v.find('/', slash + 1) != std::string_view::npos)
      return {"a qualified name " + k_name_help +
              " with an optional DNS subdomain prefix and '/' (e.g. "
              "'example.com/MyName')"};
    const std::string_view prefix = v.substr(0, slash);
    name = v.substr(slash + 1);
    if (prefix.empty())
      errors.emplace_back("prefix part must be non-empty");
    else
      for (const auto& message : subdomain_errors(prefix)) errors.push_back("prefix part " + message);
  }
  if (name.empty())
    errors.emplace_back("name part must be non-empty");
  else if (name.size() > 63)
    errors.emplace_back("name part must be no more than 63 characters");
  if (!matches_name_part(name)) errors.push_back("name part " + k_name_help);
  return errors;
}

// IsValidLabelValue.
std::vector<std::string> label_value_errors(std::string_view v) {
  std::vector<std::string> errors;
  if (v.size() > 63) errors.emplace_back("must be no more than 63 characters");
  if (!v.empty() && !matches_name_part(v))
    errors.push_back(
        regex_error("a valid label must be an empty string or consist of alphanumeric characters, "
                    "'-', '_' or '.', and must start and end with an alphanumeric character",
                    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", {"MyValue", "my_value", "12345"}));
  return errors;
}

// ValidateLabels: keys and values of a label map, reported at the map's path.
void validate_labels(Causes& causes, const json& labels, const std::string& path) {
  if (!labels.is_object()) return;
  for (const auto& [key, value] : labels.items()) {
    for (const auto& message : qualified_name_errors(key)) invalid_value(causes, path, key, message);
    for (const auto& message : label_value_errors(str(value))) invalid_value(causes, path, value, message);
  }
}

// IsDNS1123Label.
std::vector<std::string> label_errors(std::string_view v) {
  std::vector<std::string> errors;
  if (v.size() > 63) errors.emplace_back("must be no more than 63 characters");
  if (!matches_subdomain(v))
    errors.emplace_back(k_label_help);
  else if (v.find('.') != std::string_view::npos)
    errors.emplace_back("must not contain dots");
  return errors;
}

// Go's %#v of a core.Toleration, as its field errors print it.
std::string go_toleration(const json& t) {
  const json& seconds = at(t, {"tolerationSeconds"});
  return "core.Toleration{Key:" + json(str(at(t, {"key"}))).dump() +
         ", Operator:" + json(str(at(t, {"operator"}))).dump() + ", Value:" + json(str(at(t, {"value"}))).dump() +
         ", Effect:" + json(str(at(t, {"effect"}))).dump() +
         ", TolerationSeconds:" + (seconds.is_number() ? seconds.dump() : std::string("(*int64)(nil)")) + "}";
}

// ValidateTolerations (core validation), for the tolerations at `path`.
void validate_tolerations(Causes& causes, const json& tolerations, const std::string& path) {
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const json& t = tolerations[i];
    const std::string field = path + "[" + std::to_string(i) + "]";
    const std::string key = str(at(t, {"key"}));
    const std::string op = str(at(t, {"operator"}));
    const std::string value = str(at(t, {"value"}));
    const std::string effect = str(at(t, {"effect"}));
    if (!key.empty())
      for (const auto& message : qualified_name_errors(key)) invalid_value(causes, field + ".key", key, message);
    if (key.empty() && op != "Exists")
      invalid_value(causes, field + ".operator", op,
                    "operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
    if (at(t, {"tolerationSeconds"}).is_number() && effect != "NoExecute")
      invalid_value(causes, field + ".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (op == "Equal" || op.empty()) {
      std::string joined;
      for (const auto& message : label_value_errors(value)) joined += (joined.empty() ? "" : ";") + message;
      if (!joined.empty()) invalid_value(causes, field + ".operator", value, joined);
    } else if (op == "Exists") {
      if (!value.empty())
        add_cause(causes, field + ".operator", "FieldValueInvalid",
                  "Invalid value: " + go_toleration(t) + ": value must be empty when `operator` is 'Exists'");
    } else {
      unsupported(causes, field + ".operator", op, {"Equal", "Exists"});
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      unsupported(causes, field + ".effect", effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
  }
}

// --- RuntimeClass ----------------------------------------------------------------------------

Cells print_runtime_class(const json& rc, TimePoint now) {
  return {name_of(rc), str(at(rc, {"handler"})), age_of(rc, now)};
}

// The pod overhead, checked as container limits are: names of container resources, amounts
// not negative.
void validate_overhead(Causes& causes, const json& pod_fixed) {
  if (!pod_fixed.is_object()) return;
  for (const auto& [name, quantity] : pod_fixed.items()) {
    const std::string field = "overhead.limits[" + name + "]";
    for (const auto& message : qualified_name_errors(name)) invalid_value(causes, field, name, message);
    const bool standard =
        name == "cpu" || name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
    if (name.find('/') == std::string::npos && !standard)
      invalid_value(causes, field, name, "must be a standard resource for containers");
    const std::string amount = str(quantity);
    const std::string mantissa = amount.substr(0, amount.find_first_not_of("-+0123456789."));
    if (amount.starts_with("-") && mantissa.find_first_of("123456789") != std::string::npos)
      invalid_value(causes, field, amount, "must be greater than or equal to 0");
  }
}

void validate_runtime_class(const json& rc, Causes& causes) {
  const std::string handler = str(at(rc, {"handler"}));
  for (const auto& message : label_errors(handler)) invalid_value(causes, "handler", handler, message);
  validate_overhead(causes, at(rc, {"overhead", "podFixed"}));
  const json& scheduling = at(rc, {"scheduling"});
  if (!scheduling.is_object()) return;
  validate_labels(causes, at(scheduling, {"nodeSelector"}), "scheduling.nodeSelector");
  // Kubernetes names the tolerations' own checks scheduling.tolerations.tolerations[i] (the
  // path is extended twice) and their duplicates scheduling.tolerations[i].
  const json& tolerations = arr(at(scheduling, {"tolerations"}));
  validate_tolerations(causes, tolerations, "scheduling.tolerations.tolerations");
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const json& t = tolerations[i];
    const auto key =
        std::make_tuple(str(at(t, {"key"})), str(at(t, {"operator"})), str(at(t, {"value"})), str(at(t, {"effect"})));
    if (!seen.insert(key).second)
      add_cause(causes, "scheduling.tolerations[" + std::to_string(i) + "]", "FieldValueDuplicate",
                "Duplicate value: " + go_toleration(t));
  }
}

void validate_runtime_class_update(const json& rc, const json& old, Causes& causes) {
  immutable(causes, "handler", at(rc, {"handler"}), at(old, {"handler"}));
}

KindSpec runtime_class_row() {
  return {.info = {.group = "node.k8s.io",
                   .version = "v1",
                   .kind = "RuntimeClass",
                   .plural = "runtimeclasses",
                   .namespaced = false,
                   // kube-apiserver's printer describes Handler with a key ObjectMeta does not have: "".
                   .columns = {name_col(), col("Handler", "string", ""), age_col()},
                   .printer = print_runtime_class},
          .strategy = {.validate = validate_runtime_class, .validate_update = validate_runtime_class_update}};
}

}  // namespace

std::vector<KindSpec> node_v1_kinds() { return {runtime_class_row()}; }

}  // namespace kw::kinds
