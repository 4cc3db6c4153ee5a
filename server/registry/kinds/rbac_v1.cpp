// rbac.authorization.k8s.io/v1: ClusterRoleBinding, ClusterRole, RoleBinding, Role.
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

// --- RBAC ------------------------------------------------------------------------------------

// Go's %#v of a RoleRef: rbac.RoleRef{APIGroup:"...", Kind:"...", Name:"..."}.
std::string go_role_ref(const json& ref) {
  return "rbac.RoleRef{APIGroup:" + go_quoted(at(ref, {"apiGroup"})) + ", Kind:" + go_quoted(at(ref, {"kind"})) +
         ", Name:" + go_quoted(at(ref, {"name"})) + "}";
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
    if (namespaced)
      invalid_rendered(causes, path + ".nonResourceURLs", go_slice(urls),
                       "namespaced rules cannot apply to non-resource URLs");
    if (groups || resources || !arr(at(rule, {"resourceNames"})).empty())
      invalid_rendered(causes, path + ".nonResourceURLs", go_slice(urls),
                       "rules cannot apply to both regular resources and non-resource URLs");
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
    if (!name.empty()) invalid_each(causes, path + ".name", name, subdomain_errors(name));
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
  invalid_each(causes, "roleRef.name", name, path_segment_errors(name));
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
  if (ref != at(old, {"roleRef"})) invalid_rendered(causes, "roleRef", go_role_ref(ref), "cannot change roleRef");
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

// Kubernetes checks RBAC names (metadata.name and roleRef.name) as path segments only:
// "system:aggregate-to-admin" is a valid ClusterRole name.
std::vector<KindSpec> rbac_v1_kinds() {
  std::vector<KindSpec> rows{cluster_role_binding_row(), cluster_role_row(), role_binding_row(), role_row()};
  for (auto& row : rows) row.name_rule = NameRule::path_segment;
  return rows;
}

}  // namespace kw::kinds
