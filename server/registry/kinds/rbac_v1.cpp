// rbac.authorization.k8s.io/v1: ClusterRoleBinding, ClusterRole, RoleBinding, Role.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

constexpr std::string_view k_group = "rbac.authorization.k8s.io";

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

// --- RBAC ------------------------------------------------------------------------------------

// Go's %#v of a string, as field errors print struct members: "text".
std::string go_quoted(const json& value) { return json(str(value)).dump(); }

// Go's %#v of a []string, as field errors print a list value: []string{"a", "b"}.
std::string go_string_slice(const json& list) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < arr(list).size(); ++i) out += (i ? ", " : "") + go_quoted(list[i]);
  return out + "}";
}

// Go's %#v of a RoleRef: rbac.RoleRef{APIGroup:"...", Kind:"...", Name:"..."}.
std::string go_role_ref(const json& ref) {
  return "rbac.RoleRef{APIGroup:" + go_quoted(at(ref, {"apiGroup"})) + ", Kind:" + go_quoted(at(ref, {"kind"})) +
         ", Name:" + go_quoted(at(ref, {"name"})) + "}";
}

// path.IsValidPathSegmentName: what RBAC asks of role names (no "." or "..", no '/' or '%').
std::vector<std::string> path_segment_errors(std::string_view name) {
  for (std::string_view reserved : {".", ".."})
    if (name == reserved) return {"may not be '" + std::string(reserved) + "'"};
  std::vector<std::string> errors;
  for (std::string_view forbidden : {"/", "%"})
    if (name.find(forbidden) != std::string_view::npos)
      errors.push_back("may not contain '" + std::string(forbidden) + "'");
  return errors;
}

Cells print_binding(const json& binding, TimePoint now) {
  std::vector<std::string> users, groups, service_accounts;
  for (const auto& subject : arr(at(binding, {"subjects"}))) {
    const std::string kind = str(at(subject, {"kind"}));
    const std::string name = str(at(subject, {"name"}));
    if (kind == "ServiceAccount")
      service_accounts.push_back(str(at(subject, {"namespace"})) + "/" + name);
    else if (kind == "User")
      users.push_back(name);
    else if (kind == "Group")
      groups.push_back(name);
  }
  const json& ref = at(binding, {"roleRef"});
  return {name_of(binding),     str(at(ref, {"kind"})) + "/" + str(at(ref, {"name"})),
          age_of(binding, now), join(users, ", "),
          join(groups, ", "),   join(service_accounts, ", ")};
}

// SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding and SetDefaults_Subject.
void default_binding(json& binding) {
  auto& ref = object_member(binding, "roleRef");
  if (str(at(ref, {"apiGroup"})).empty()) ref["apiGroup"] = k_group;
  auto subjects = binding.find("subjects");
  if (subjects == binding.end() || !subjects->is_array()) return;
  for (auto& subject : *subjects) {
    if (!subject.is_object() || !str(at(subject, {"apiGroup"})).empty()) continue;
    const std::string kind = str(at(subject, {"kind"}));
    if (kind == "User" || kind == "Group") subject["apiGroup"] = k_group;
  }
}

// ValidatePolicyRule.
void validate_rule(Causes& causes, const json& rule, bool namespaced, const std::string& path) {
  if (arr(at(rule, {"verbs"})).empty()) required(causes, path + ".verbs", "verbs must contain at least one value");
  const json& urls = arr(at(rule, {"nonResourceURLs"}));
  const bool resources = !arr(at(rule, {"resources"})).empty();
  const bool groups = !arr(at(rule, {"apiGroups"})).empty();
  if (!urls.empty()) {
    const std::string value = "Invalid value: " + go_string_slice(urls) + ": ";
    if (namespaced)
      add_cause(causes, path + ".nonResourceURLs", "FieldValueInvalid",
                value + "namespaced rules cannot apply to non-resource URLs");
    if (groups || resources || !arr(at(rule, {"resourceNames"})).empty())
      add_cause(causes, path + ".nonResourceURLs", "FieldValueInvalid",
                value + "rules cannot apply to both regular resources and non-resource URLs");
    return;
  }
  if (!groups) required(causes, path + ".apiGroups", "resource rules must supply at least one api group");
  if (!resources) required(causes, path + ".resources", "resource rules must supply at least one resource");
}

void validate_rules(Causes& causes, const json& role, bool namespaced) {
  const json& rules = arr(at(role, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i)
    validate_rule(causes, rules[i], namespaced, "rules[" + std::to_string(i) + "]");
}

void validate_role(const json& role, Causes& causes) { validate_rules(causes, role, true); }

void validate_cluster_role(const json& role, Causes& causes) {
  validate_rules(causes, role, false);
  const json& aggregation = at(role, {"aggregationRule"});
  if (!aggregation.is_object()) return;
  const json& selectors = arr(at(aggregation, {"clusterRoleSelectors"}));
  if (selectors.empty())
    required(causes, "aggregationRule.clusterRoleSelectors",
             "at least one clusterRoleSelector required if aggregationRule is non-nil");
  for (std::size_t i = 0; i < selectors.size(); ++i)
    validate_label_selector(causes, selectors[i], "aggregationRule.clusterRoleSelectors[" + std::to_string(i) + "]");
}

// ValidateRoleBindingSubject.
void validate_subject(Causes& causes, const json& subject, bool namespaced, const std::string& path) {
  const std::string name = str(at(subject, {"name"}));
  const std::string api_group = str(at(subject, {"apiGroup"}));
  const std::string kind = str(at(subject, {"kind"}));
  if (name.empty()) required(causes, path + ".name");
  if (kind == "ServiceAccount") {
    if (!name.empty())
      for (const auto& message : subdomain_errors(name)) invalid_value(causes, path + ".name", name, message);
    if (!api_group.empty()) unsupported(causes, path + ".apiGroup", api_group, {""});
    if (!namespaced && str(at(subject, {"namespace"})).empty()) required(causes, path + ".namespace");
  } else if (kind == "User" || kind == "Group") {
    if (api_group != k_group) unsupported(causes, path + ".apiGroup", api_group, {k_group});
  } else {
    unsupported(causes, path + ".kind", kind, {"ServiceAccount", "User", "Group"});
  }
}

// ValidateRoleBinding / ValidateClusterRoleBinding: a binding in a namespace may name a Role or
// a ClusterRole; a cluster binding only a ClusterRole, and its service accounts a namespace.
void validate_binding(Causes& causes, const json& binding, bool namespaced) {
  const json& ref = at(binding, {"roleRef"});
  const std::string api_group = str(at(ref, {"apiGroup"}));
  if (api_group != k_group) unsupported(causes, "roleRef.apiGroup", api_group, {k_group});
  const std::string kind = str(at(ref, {"kind"}));
  if (namespaced && kind != "Role" && kind != "ClusterRole")
    unsupported(causes, "roleRef.kind", kind, {"Role", "ClusterRole"});
  else if (!namespaced && kind != "ClusterRole")
    unsupported(causes, "roleRef.kind", kind, {"ClusterRole"});
  const std::string name = str(at(ref, {"name"}));
  if (name.empty()) required(causes, "roleRef.name");
  for (const auto& message : path_segment_errors(name)) invalid_value(causes, "roleRef.name", name, message);
  const json& subjects = arr(at(binding, {"subjects"}));
  for (std::size_t i = 0; i < subjects.size(); ++i)
    validate_subject(causes, subjects[i], namespaced, "subjects[" + std::to_string(i) + "]");
}

void validate_role_binding(const json& binding, Causes& causes) { validate_binding(causes, binding, true); }
void validate_cluster_role_binding(const json& binding, Causes& causes) { validate_binding(causes, binding, false); }

// Kubernetes' update validation runs the whole-object checks twice (the strategy and
// ValidateXUpdate both do), so an invalid update reports each of those causes twice.
void validate_role_update(const json& role, const json&, Causes& causes) { validate_role(role, causes); }
void validate_cluster_role_update(const json& role, const json&, Causes& causes) {
  validate_cluster_role(role, causes);
}

void validate_binding_update(Causes& causes, const json& binding, const json& old, bool namespaced) {
  validate_binding(causes, binding, namespaced);
  const json& ref = at(binding, {"roleRef"});
  if (ref != at(old, {"roleRef"}))
    add_cause(causes, "roleRef", "FieldValueInvalid", "Invalid value: " + go_role_ref(ref) + ": cannot change roleRef");
}
void validate_role_binding_update(const json& binding, const json& old, Causes& causes) {
  validate_binding_update(causes, binding, old, true);
}
void validate_cluster_role_binding_update(const json& binding, const json& old, Causes& causes) {
  validate_binding_update(causes, binding, old, false);
}

// Roles have no printer in kube-apiserver: its default table, name and creation time.
std::vector<api::ColumnDefinition> role_columns() { return {name_col(), col("Created At", "date", k_created_doc)}; }

std::vector<api::ColumnDefinition> binding_columns(const std::string& role_doc, const std::string& kind) {
  return {name_col(),
          col("Role", "string", role_doc),
          age_col(),
          col("Users", "string", "Users in the " + kind, 1),
          col("Groups", "string", "Groups in the " + kind, 1),
          col("ServiceAccounts", "string", "ServiceAccounts in the " + kind, 1)};
}

KindSpec cluster_role_binding_row() {
  return {.info = {.group = std::string(k_group),
                   .version = "v1",
                   .kind = "ClusterRoleBinding",
                   .plural = "clusterrolebindings",
                   .namespaced = false,
                   .columns = binding_columns("roleRef can only reference a ClusterRole in the global namespace. If "
                                              "the RoleRef cannot be resolved, the Authorizer must return an error.",
                                              "clusterRoleBinding"),
                   .printer = print_binding},
          .strategy = {.defaults = default_binding,
                       .validate = validate_cluster_role_binding,
                       .validate_update = validate_cluster_role_binding_update}};
}

KindSpec cluster_role_row() {
  return {.info = {.group = std::string(k_group),
                   .version = "v1",
                   .kind = "ClusterRole",
                   .plural = "clusterroles",
                   .namespaced = false,
                   .columns = role_columns()},
          .strategy = {.validate = validate_cluster_role, .validate_update = validate_cluster_role_update}};
}

KindSpec role_binding_row() {
  return {.info = {.group = std::string(k_group),
                   .version = "v1",
                   .kind = "RoleBinding",
                   .plural = "rolebindings",
                   .columns = binding_columns("roleRef can reference a Role in the current namespace or a ClusterRole "
                                              "in the global namespace. If the RoleRef cannot be resolved, the "
                                              "Authorizer must return an error.",
                                              "roleBinding"),
                   .printer = print_binding},
          .strategy = {.defaults = default_binding,
                       .validate = validate_role_binding,
                       .validate_update = validate_role_binding_update}};
}

KindSpec role_row() {
  return {.info = {.group = std::string(k_group),
                   .version = "v1",
                   .kind = "Role",
                   .plural = "roles",
                   .columns = role_columns()},
          .strategy = {.validate = validate_role, .validate_update = validate_role_update}};
}

}  // namespace

// Kubernetes checks RBAC names (metadata.name and roleRef.name) as path segments only, which
// NameRule cannot say yet: metadata.name is checked as a DNS subdomain for now.
std::vector<KindSpec> rbac_v1_kinds() {
  return {cluster_role_binding_row(), cluster_role_row(), role_binding_row(), role_row()};
}

}  // namespace kw::kinds
