#pragma once
// Role-based access control (kube-apiserver's --authorization-mode=RBAC) over the Roles,
// ClusterRoles, RoleBindings and ClusterRoleBindings the server holds.
//
// RbacPolicy is the evaluation side: the four kinds, fed as objects change (the watch caches
// feed it, see server/control/rbac_controller.hpp), indexed by subject so that a decision
// looks only at the bindings naming the user or one of its groups, never at storage.
//
//   auto policy = std::make_shared<kw::auth::RbacPolicy>();
//   policy->apply(RbacKind::cluster_role_binding, binding_json);   // from events
//   auto rbac = kw::auth::rbac_mode(policy);                      // an Authorizer mode
//
// The wording of reasons and errors is kube-apiserver's: "RBAC: allowed by ClusterRoleBinding
// "x" of ClusterRole "y" to User "alice"", `clusterrole.rbac.authorization.k8s.io "y" not
// found`, and the escalation message listing the rules a user does not hold.
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/auth/authorizer.hpp"

namespace kw::auth {

enum class RbacKind { role, cluster_role, role_binding, cluster_role_binding };

// Who a binding grants its role to.
struct Subject {
  std::string kind;  // User, Group, ServiceAccount
  std::string name;
  std::string namespace_;  // ServiceAccount only
};

class RbacPolicy {
 public:
  // An object of `kind` was created or changed / deleted. Thread-safe.
  void apply(RbacKind kind, const nlohmann::json& object);
  void remove(RbacKind kind, const std::string& ns, const std::string& name);
  // Every object of `kind` is now `objects` (at start, and after a relist).
  void replace(RbacKind kind, const std::vector<const nlohmann::json*>& objects);

  // The decision for `attributes` (kube's RBACAuthorizer.Authorize): allowed (with the
  // binding that allowed it as the reason when explain_allow is set), or no opinion with the
  // resolution errors as the reason.
  AuthorizerMode::Verdict authorize(const Attributes& attributes, std::string& reason,
                                    bool explain_allow = true) const;
  // Every rule `user` holds in `ns` ("" = cluster-wide bindings only), kube's RulesFor.
  RuleSet rules_for(const UserInfo& user, const std::string& ns) const;
  // The rules a binding's roleRef names, as a binding in `ns` ("" for a ClusterRoleBinding)
  // would grant them; the error kube words when the role is missing.
  RuleSet role_reference_rules(const nlohmann::json& role_ref, const std::string& ns) const;

  std::size_t size(RbacKind kind) const;

 private:
  struct Role {
    std::vector<PolicyRule> rules;
  };
  struct Binding {
    std::string namespace_;  // "" for ClusterRoleBindings
    std::string name;
    std::string role_kind;   // Role or ClusterRole
    std::string role_name;
    std::string role_key;    // the role's key in m_roles or m_cluster_roles
    std::vector<Subject> subjects;
    // Where the subject index lists it: (group?, user or group name), each once.
    std::vector<std::pair<bool, std::string>> index_entries;
  };
  using BindingPtr = std::shared_ptr<const Binding>;
  // Maps keyed by std::string, looked up by std::string_view without a copy.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
  };
  template <class T>
  using NameMap = std::unordered_map<std::string, T, NameHash, std::equal_to<>>;
  // The bindings of one namespace ("" for ClusterRoleBindings), by the user name or group
  // their subjects name; each list in binding name order.
  struct Scope {
    NameMap<std::vector<const Binding*>> users;
    NameMap<std::vector<const Binding*>> groups;
  };

  // Calls visit(binding, rules, error) for each binding of the user (cluster bindings first,
  // then those of `ns`, each in name order) until it returns false.
  template <class Visit>
  void visit_locked(const UserInfo& user, const std::string& ns, Visit&& visit) const;
  const std::vector<PolicyRule>* role_rules_locked(const Binding& binding, std::string& error) const;
  void add_binding_locked(BindingPtr binding);
  void remove_binding_locked(const std::string& ns, const std::string& name);
  void apply_locked(RbacKind kind, const nlohmann::json& object);
  void clear_locked(RbacKind kind);

  mutable std::shared_mutex m_mutex;
  NameMap<Role> m_cluster_roles;                 // by name
  NameMap<Role> m_roles;                         // by "namespace/name"
  std::map<std::string, BindingPtr> m_bindings;  // by "namespace/name" ("/name": cluster)
  NameMap<Scope> m_scopes;                       // the subject index, by namespace
};

// The RBAC mode of an authorizer chain, reading `policy`.
std::shared_ptr<const AuthorizerMode> rbac_mode(std::shared_ptr<const RbacPolicy> policy);

}  // namespace kw::auth
