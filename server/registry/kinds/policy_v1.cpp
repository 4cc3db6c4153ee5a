// policy/v1: PodDisruptionBudget. (Eviction, also in this group version, is served as the
// pods/eviction subresource, not as a resource of its own.)
#include <charconv>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
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

// ValidateLabelSelector (meta/v1 validation).
void validate_label_selector(Causes& causes, const json& selector, const std::string& path) {
  if (!selector.is_object()) return;
  validate_labels(causes, at(selector, {"matchLabels"}), path + ".matchLabels");
  const json& expressions = arr(at(selector, {"matchExpressions"}));
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const json& requirement = expressions[i];
    const std::string field = path + ".matchExpressions[" + std::to_string(i) + "]";
    const std::string op = str(at(requirement, {"operator"}));
    const json& values = arr(at(requirement, {"values"}));
    if (op == "In" || op == "NotIn") {
      if (values.empty()) required(causes, field + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty())
        add_cause(causes, field + ".values", "FieldValueForbidden",
                  "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else {
      invalid_value(causes, field + ".operator", op, "not a valid selector operator");
    }
    const std::string key = str(at(requirement, {"key"}));
    for (const auto& message : qualified_name_errors(key)) invalid_value(causes, field + ".key", key, message);
    for (std::size_t j = 0; j < values.size(); ++j)
      for (const auto& message : label_value_errors(str(values[j])))
        invalid_value(causes, field + ".values[" + std::to_string(j) + "]", values[j], message);
  }
}

// --- PodDisruptionBudget ---------------------------------------------------------------------

// IntOrString's String(): the number or the text; "N/A" when unset.
std::string int_or_string(const json& value) {
  if (value.is_number()) return std::to_string(num(value));
  if (value.is_string()) return value.get<std::string>();
  return "N/A";
}

Cells print_pdb(const json& pdb, TimePoint now) {
  const json& spec = at(pdb, {"spec"});
  return {name_of(pdb), int_or_string(at(spec, {"minAvailable"})), int_or_string(at(spec, {"maxUnavailable"})),
          num(at(pdb, {"status", "disruptionsAllowed"})), age_of(pdb, now)};
}

// PrepareForCreate: no status from the client (kube-apiserver answers with its zero counters),
// generation 1.
void prepare_pdb(json& pdb) {
  pdb["status"] = {{"disruptionsAllowed", 0}, {"currentHealthy", 0}, {"desiredHealthy", 0}, {"expectedPods", 0}};
  object_member(pdb, "metadata")["generation"] = 1;
}

// Go's %#v of an IntOrString, as its field errors print it.
std::string go_int_or_string(const json& value) {
  if (value.is_string()) return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + value.dump() + "}";
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(num(value)) + ", StrVal:\"\"}";
}

// ValidatePositiveIntOrPercent and IsNotMoreThan100Percent (apps validation).
void validate_int_or_percent(Causes& causes, const json& value, const std::string& path) {
  if (value.is_number()) {
    non_negative(causes, path, value);
    return;
  }
  if (!value.is_string()) return;
  const std::string text = value.get<std::string>();
  const auto invalid = [&](const std::string& why) {
    add_cause(causes, path, "FieldValueInvalid", "Invalid value: " + go_int_or_string(value) + ": " + why);
  };
  const bool digits = text.size() > 1 && text.back() == '%' && text.find_first_not_of("0123456789") == text.size() - 1;
  if (!digits) {
    invalid(
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
        "regex used for validation is '[0-9]+%')");
    return;
  }
  long long percent = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size() - 1, percent);
  if (error == std::errc() && percent > 100) invalid("must not be greater than 100%");
}

// ValidateConditions (meta/v1 validation): metav1.Condition lists.
void validate_conditions(Causes& causes, const json& conditions, const std::string& path) {
  static const std::string k_reason_help = regex_error(
      "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
      "characters or '_,:', and must end with an alphanumeric character or '_'",
      "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?", {"my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"});
  const auto valid_reason = [](const std::string& r) {
    const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (r.empty() || !letter(r.front()) || !(ascii_alnum(r.back()) || r.back() == '_')) return false;
    for (char c : r)
      if (!ascii_alnum(c) && c != '_' && c != ',' && c != ':') return false;
    return true;
  };
  std::set<std::string> types;
  for (std::size_t i = 0; i < conditions.size(); ++i) {
    const json& condition = conditions[i];
    const std::string field = path + "[" + std::to_string(i) + "]";
    const std::string type = str(at(condition, {"type"}));
    if (!types.insert(type).second)
      add_cause(causes, field + ".type", "FieldValueDuplicate", "Duplicate value: " + json(type).dump());
    for (const auto& message : qualified_name_errors(type)) invalid_value(causes, field + ".type", type, message);
    const std::string status = str(at(condition, {"status"}));
    if (status != "True" && status != "False" && status != "Unknown")
      unsupported(causes, field + ".status", status, {"False", "True", "Unknown"});
    if (num(at(condition, {"observedGeneration"})) < 0)
      invalid_value(causes, field + ".observedGeneration", at(condition, {"observedGeneration"}),
                    "must be greater than or equal to zero");
    if (str(at(condition, {"lastTransitionTime"})).empty())
      required(causes, field + ".lastTransitionTime", "must be set");
    const std::string reason = str(at(condition, {"reason"}));
    if (reason.empty()) {
      required(causes, field + ".reason", "must be set");
    } else {
      if (!valid_reason(reason)) invalid_value(causes, field + ".reason", reason, k_reason_help);
      if (reason.size() > 1024)
        add_cause(causes, field + ".reason", "FieldValueTooLong", "Too long: may not be more than 1024 bytes");
    }
    if (str(at(condition, {"message"})).size() > 32768)
      add_cause(causes, field + ".message", "FieldValueTooLong", "Too long: may not be more than 32768 bytes");
  }
}

// ValidatePodDisruptionBudgetStatusUpdate (v1): what the disruption controller may write.
// Kubernetes checks it on status writes; kw's registry runs it with the rest on every write.
void validate_pdb_status(Causes& causes, const json& status) {
  validate_conditions(causes, arr(at(status, {"conditions"})), "status.conditions");
  for (const char* field : {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"})
    non_negative(causes, std::string("status.") + field, at(status, {field}));
}

void validate_pdb(const json& pdb, Causes& causes) {
  const json& spec = at(pdb, {"spec"});
  const json& min_available = at(spec, {"minAvailable"});
  const json& max_unavailable = at(spec, {"maxUnavailable"});
  if (!min_available.is_null() && !max_unavailable.is_null())
    invalid_value(causes, "spec", spec, "minAvailable and maxUnavailable cannot be both set");
  validate_int_or_percent(causes, min_available, "spec.minAvailable");
  validate_int_or_percent(causes, max_unavailable, "spec.maxUnavailable");
  validate_label_selector(causes, at(spec, {"selector"}), "spec.selector");
  const json& policy = at(spec, {"unhealthyPodEvictionPolicy"});
  if (policy.is_string() && policy != "IfHealthyBudget" && policy != "AlwaysAllow")
    unsupported(causes, "spec.unhealthyPodEvictionPolicy", policy, {"AlwaysAllow", "IfHealthyBudget"});
  validate_pdb_status(causes, at(pdb, {"status"}));
}

KindSpec pdb_row() {
  return {.info = {.group = "policy",
                   .version = "v1",
                   .kind = "PodDisruptionBudget",
                   .plural = "poddisruptionbudgets",
                   .short_names = {"pdb"},
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("Min Available", "string", "The minimum number of pods that must be available."),
                               col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
                               col("Allowed Disruptions", "integer",
                                   "Calculated number of pods that may be disrupted at this time."),
                               age_col()},
                   .printer = print_pdb},
          .strategy = {.prepare_create = prepare_pdb, .validate = validate_pdb}};
}

}  // namespace

std::vector<KindSpec> policy_v1_kinds() { return {pdb_row()}; }

}  // namespace kw::kinds
