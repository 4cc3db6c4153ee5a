// kw create role | clusterrole | rolebinding | clusterrolebinding: RBAC objects from flags,
// built as kubectl's generators build them (resources resolved through discovery, verbs
// checked, subjects from --user, --group and --serviceaccount).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/client/discovery.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/verbs.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

constexpr const char* k_rbac_group = "rbac.authorization.k8s.io";
constexpr const char* k_rbac_version = "rbac.authorization.k8s.io/v1";

struct RbacCreateOptions {
  ConnectionFlags connection;
  WriteOutput write;
  ValidateFlag validate;
  std::string kind;  // Role, ClusterRole, RoleBinding, ClusterRoleBinding
  std::string name;
  std::vector<std::string> verbs, resources, resource_names, non_resource_urls, aggregation_rule;
  std::string role, cluster_role;
  std::vector<std::string> users, groups, service_accounts;
};

std::vector<std::string> flattened(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values)
    for (auto& one : split_list(value, ',')) out.push_back(std::move(one));
  return out;
}

// The rules of a role: one per API group of the resources, as kubectl groups them.
VerbResult<json> role_rules(ApiClient& api, const RbacCreateOptions& o) {
  const auto verbs = flattened(o.verbs);
  if (verbs.empty()) return std::unexpected(usage_error("at least one verb must be specified"));
  const auto resources = flattened(o.resources);
  const auto urls = flattened(o.non_resource_urls);
  if (resources.empty() && urls.empty() && o.aggregation_rule.empty())
    return std::unexpected(usage_error("at least one resource must be specified"));
  Resolver resolver(api);
  std::vector<std::pair<std::string, std::vector<std::string>>> by_group;  // group -> resources, in order
  for (const auto& typed : resources) {
    std::string type = typed, sub;
    if (const auto slash = typed.find('/'); slash != std::string::npos) {
      type = typed.substr(0, slash);
      sub = typed.substr(slash);
    }
    std::string group, plural = type;
    if (type != "*") {
      auto resolved = resolver.resolve(type);
      if (!resolved) return std::unexpected(resolved.error());
      group = resolved->group;
      plural = resolved->plural;
    }
    auto found = std::ranges::find_if(by_group, [&](const auto& entry) { return entry.first == group; });
    if (found == by_group.end()) found = by_group.insert(by_group.end(), {group, {}});
    found->second.push_back(plural + sub);
  }
  json rules = json::array();
  for (const auto& [group, plurals] : by_group) {
    json rule = {{"verbs", verbs}, {"apiGroups", {group}}, {"resources", plurals}};
    if (!o.resource_names.empty()) rule["resourceNames"] = flattened(o.resource_names);
    rules.push_back(std::move(rule));
  }
  if (!urls.empty()) rules.push_back({{"verbs", verbs}, {"nonResourceURLs", urls}});
  return rules;
}

VerbResult<json> subjects(const RbacCreateOptions& o) {
  json out = json::array();
  for (const auto& user : o.users) out.push_back({{"kind", "User"}, {"apiGroup", k_rbac_group}, {"name", user}});
  for (const auto& group : o.groups) out.push_back({{"kind", "Group"}, {"apiGroup", k_rbac_group}, {"name", group}});
  for (const auto& account : o.service_accounts) {
    const auto colon = account.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == account.size())
      return std::unexpected(usage_error("serviceaccount must be <namespace>:<name>"));
    out.push_back({{"kind", "ServiceAccount"}, {"namespace", account.substr(0, colon)}, {"name", account.substr(colon + 1)}});
  }
  return out;
}

int run_create_rbac(const RbacCreateOptions& o) {
  auto validation = o.validate.field_validation();
  if (!validation) return report_usage(validation.error().message);
  auto api = ApiClient::create(o.connection);
  if (!api) return report_usage(api.error().message);
  const bool namespaced = o.kind == "Role" || o.kind == "RoleBinding";
  json object = {{"apiVersion", k_rbac_version}, {"kind", o.kind}, {"metadata", {{"name", o.name}}}};
  if (namespaced) object["metadata"]["namespace"] = (*api)->config().namespace_name;
  if (o.kind == "Role" || o.kind == "ClusterRole") {
    if (!o.aggregation_rule.empty()) {
      json labels = json::object();
      for (const auto& pair : flattened(o.aggregation_rule)) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos) return report_usage("--aggregation-rule takes key=value pairs");
        labels[pair.substr(0, eq)] = pair.substr(eq + 1);
      }
      object["aggregationRule"] = {{"clusterRoleSelectors", json::array({{{"matchLabels", labels}}})}};
    } else {
      auto rules = role_rules(**api, o);
      if (!rules) return report(rules.error());
      object["rules"] = std::move(*rules);
    }
  } else {
    if (o.role.empty() == o.cluster_role.empty())
      return report_usage(o.kind == "RoleBinding" ? "exactly one of clusterrole or role must be specified"
                                                  : "--clusterrole is required");
    object["roleRef"] = {{"apiGroup", k_rbac_group},
                         {"kind", o.role.empty() ? "ClusterRole" : "Role"},
                         {"name", o.role.empty() ? o.cluster_role : o.role}};
    auto listed = subjects(o);
    if (!listed) return report(listed.error());
    if (!listed->empty()) object["subjects"] = std::move(*listed);
  }
  const std::string plural = o.kind == "Role"                  ? "roles"
                             : o.kind == "ClusterRole"         ? "clusterroles"
                             : o.kind == "RoleBinding"         ? "rolebindings"
                                                               : "clusterrolebindings";
  const std::string kind_name = plural.substr(0, plural.size() - 1) + "." + k_rbac_group + "/" + o.name;
  if (o.write.client_dry_run()) {
    return o.write.print_typed(object, kind_name, kind_name + " created") ? k_exit_ok : k_exit_usage;
  }
  std::string path = "/apis/" + std::string(k_rbac_version);
  if (namespaced) path += "/namespaces/" + url_escape((*api)->config().namespace_name);
  path += "/" + plural;
  const WriteQuery query{"kubectl-create", std::move(*validation)};
  auto created = call_json(**api, "POST", query.apply_to(o.write.with_dry_run(path)), std::string(k_json), object.dump());
  if (!created) return report(created.error());
  return o.write.print_typed(*created, kind_name, kind_name + " created") ? k_exit_ok : k_exit_usage;
}

CLI::App* rbac_command(CLI::App& create, const char* name, const char* kind, const char* description,
                       std::shared_ptr<RbacCreateOptions> options, int* exit_code) {
  options->kind = kind;
  CLI::App* command = create.add_subcommand(name, description);
  const bool binding = options->kind.ends_with("Binding");
  add_connection_flags(*command, options->connection, !binding);
  add_write_output_flags(*command, options->write);
  add_validate_flag(*command, options->validate);
  command->add_option("name", options->name, std::string("The name of the ") + kind)->required();
  command->footer(std::string(k_client_exit_codes));
  command->callback([options, exit_code] { *exit_code = run_create_rbac(*options); });
  return command;
}

void add_rule_flags(CLI::App& command, RbacCreateOptions& o, bool cluster) {
  command.add_option("--verb", o.verbs, "Verbs the rule allows (comma-separated or repeated)");
  command.add_option("--resource", o.resources, "Resources the rule covers (pods, deployments.apps, pods/log, *)");
  command.add_option("--resource-name", o.resource_names, "Object names the rule is limited to");
  if (!cluster) return;
  command.add_option("--non-resource-url", o.non_resource_urls, "URL paths the rule covers (/logs/*)");
  command.add_option("--aggregation-rule", o.aggregation_rule,
                     "key=value labels of the ClusterRoles whose rules this one aggregates");
}

void add_subject_flags(CLI::App& command, RbacCreateOptions& o, bool namespaced) {
  if (namespaced) command.add_option("--role", o.role, "The Role to bind");
  command.add_option("--clusterrole", o.cluster_role, "The ClusterRole to bind");
  command.add_option("--user", o.users, "A user to bind (repeatable)");
  command.add_option("--group", o.groups, "A group to bind (repeatable)");
  command.add_option("--serviceaccount", o.service_accounts, "A ServiceAccount to bind, as NAMESPACE:NAME (repeatable)");
}

}  // namespace

void add_create_rbac_commands(CLI::App& create, int* exit_code) {
  auto role = std::make_shared<RbacCreateOptions>();
  add_rule_flags(*rbac_command(create, "role", "Role", "Create a Role (kubectl create role)", role, exit_code), *role,
                 false);
  auto cluster_role = std::make_shared<RbacCreateOptions>();
  add_rule_flags(*rbac_command(create, "clusterrole", "ClusterRole", "Create a ClusterRole (kubectl create clusterrole)",
                               cluster_role, exit_code),
                 *cluster_role, true);
  auto binding = std::make_shared<RbacCreateOptions>();
  add_subject_flags(*rbac_command(create, "rolebinding", "RoleBinding",
                                  "Bind a Role or ClusterRole in a namespace (kubectl create rolebinding)", binding,
                                  exit_code),
                    *binding, true);
  auto cluster_binding = std::make_shared<RbacCreateOptions>();
  add_subject_flags(*rbac_command(create, "clusterrolebinding", "ClusterRoleBinding",
                                  "Bind a ClusterRole everywhere (kubectl create clusterrolebinding)", cluster_binding,
                                  exit_code),
                    *cluster_binding, false);
}

}  // namespace kw::cli
