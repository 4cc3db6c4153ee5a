#include "server/auth/rbac.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>
#include <span>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/auth/service_account.hpp"

namespace kw::auth {

namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using util::go_quote;

std::vector<PolicyRule> rules_of(const json& object) {
  std::vector<PolicyRule> rules;
  if (const auto found = object.find("rules"); found != object.end() && found->is_array())
    for (const auto& rule : *found) rules.push_back(PolicyRule::from_json(rule));
  return rules;
}

std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// Where the subject index files a binding subject: under the user name (a ServiceAccount is
// the user system:serviceaccount:NS:NAME) or the group. Null when the subject can match no one
// (a ServiceAccount without a namespace in a ClusterRoleBinding, an unknown kind).
std::optional<std::pair<bool, std::string>> index_entry(const std::string& ns, const Subject& subject) {
  if (subject.kind == "User") return std::make_pair(false, subject.name);
  if (subject.kind == "Group") return std::make_pair(true, subject.name);
  if (subject.kind == "ServiceAccount") {
    const std::string& sa_ns = subject.namespace_.empty() ? ns : subject.namespace_;
    if (sa_ns.empty()) return std::nullopt;
    return std::make_pair(false, service_account_user(sa_ns, subject.name));
  }
  return std::nullopt;
}

bool applies_to(const Subject& subject, const UserInfo& user, const std::string& binding_ns) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return user.in_group(subject.name);
  if (subject.kind == "ServiceAccount") {
    const std::string& sa_ns = subject.namespace_.empty() ? binding_ns : subject.namespace_;
    return !sa_ns.empty() && user.name == service_account_user(sa_ns, subject.name);
  }
  return false;
}

std::string describe_subject(const Subject& subject, const std::string& binding_ns) {
  if (subject.kind == "ServiceAccount")
    return subject.kind + " " + go_quote(subject.name + "/" + (subject.namespace_.empty() ? binding_ns : subject.namespace_));
  return subject.kind + " " + go_quote(subject.name);
}

class RbacMode final : public AuthorizerMode {
 public:
  explicit RbacMode(std::shared_ptr<const RbacPolicy> policy) : m_policy(std::move(policy)) {}
  Verdict authorize(const Attributes& attributes, std::string& reason, bool explain_allow) const override {
    return m_policy->authorize(attributes, reason, explain_allow);
  }
  RuleSet rules_for(const UserInfo& user, const std::string& ns) const override { return m_policy->rules_for(user, ns); }

 private:
  std::shared_ptr<const RbacPolicy> m_policy;
};

}  // namespace

void RbacPolicy::apply(RbacKind kind, const json& object) {
  std::unique_lock lock(m_mutex);
  apply_locked(kind, object);
}

void RbacPolicy::apply_locked(RbacKind kind, const json& object) {
  const json& meta = at(object, {"metadata"});
  const std::string name = str(at(meta, {"name"}));
  const std::string ns = kind == RbacKind::role || kind == RbacKind::role_binding ? str(at(meta, {"namespace"})) : "";
  switch (kind) {
    case RbacKind::cluster_role: m_cluster_roles[name] = Role{rules_of(object)}; return;
    case RbacKind::role: m_roles[object_key(ns, name)] = Role{rules_of(object)}; return;
    case RbacKind::role_binding:
    case RbacKind::cluster_role_binding: break;
  }
  auto binding = std::make_shared<Binding>();
  binding->namespace_ = ns;
  binding->name = name;
  const json role_ref = object.value("roleRef", json::object());
  binding->role_kind = str(at(role_ref, {"kind"}));
  binding->role_name = str(at(role_ref, {"name"}));
  binding->role_key = binding->role_kind == "Role" ? object_key(ns, binding->role_name) : binding->role_name;
  if (const auto subjects = object.find("subjects"); subjects != object.end() && subjects->is_array())
    for (const auto& subject : *subjects)
      if (subject.is_object())
        binding->subjects.push_back(
            {str(at(subject, {"kind"})), str(at(subject, {"name"})), str(at(subject, {"namespace"}))});
  for (const auto& subject : binding->subjects)
    if (auto entry = index_entry(ns, subject);
        entry && std::ranges::find(binding->index_entries, *entry) == binding->index_entries.end())
      binding->index_entries.push_back(std::move(*entry));
  remove_binding_locked(ns, name);
  add_binding_locked(std::move(binding));
}

void RbacPolicy::add_binding_locked(BindingPtr binding) {
  Scope& scope = m_scopes[binding->namespace_];
  for (const auto& [group, who] : binding->index_entries) {
    auto& list = (group ? scope.groups : scope.users)[who];
    // Kept in name order: the first binding that allows is the one a reason names.
    const auto at = std::ranges::lower_bound(list, binding->name, {}, [](const Binding* b) { return b->name; });
    list.insert(at, binding.get());
  }
  m_bindings[object_key(binding->namespace_, binding->name)] = std::move(binding);
}

void RbacPolicy::remove_binding_locked(const std::string& ns, const std::string& name) {
  const auto found = m_bindings.find(object_key(ns, name));
  if (found == m_bindings.end()) return;
  const Binding* binding = found->second.get();
  if (const auto scope = m_scopes.find(ns); scope != m_scopes.end()) {
    for (const auto& [group, who] : binding->index_entries) {
      auto& lists = group ? scope->second.groups : scope->second.users;
      const auto list = lists.find(who);
      if (list == lists.end()) continue;
      std::erase(list->second, binding);
      if (list->second.empty()) lists.erase(list);
    }
    if (scope->second.users.empty() && scope->second.groups.empty()) m_scopes.erase(scope);
  }
  m_bindings.erase(found);
}

void RbacPolicy::remove(RbacKind kind, const std::string& ns, const std::string& name) {
  std::unique_lock lock(m_mutex);
  switch (kind) {
    case RbacKind::cluster_role: m_cluster_roles.erase(name); break;
    case RbacKind::role: m_roles.erase(object_key(ns, name)); break;
    case RbacKind::role_binding: remove_binding_locked(ns, name); break;
    case RbacKind::cluster_role_binding: remove_binding_locked("", name); break;
  }
}

void RbacPolicy::clear_locked(RbacKind kind) {
  switch (kind) {
    case RbacKind::cluster_role: m_cluster_roles.clear(); return;
    case RbacKind::role: m_roles.clear(); return;
    case RbacKind::role_binding:
    case RbacKind::cluster_role_binding: break;
  }
  const bool cluster = kind == RbacKind::cluster_role_binding;
  std::vector<std::pair<std::string, std::string>> doomed;
  for (const auto& [key, binding] : m_bindings)
    if (binding->namespace_.empty() == cluster) doomed.emplace_back(binding->namespace_, binding->name);
  for (const auto& [ns, name] : doomed) remove_binding_locked(ns, name);
}

void RbacPolicy::replace(RbacKind kind, const std::vector<const json*>& objects) {
  std::unique_lock lock(m_mutex);
  clear_locked(kind);
  for (const json* object : objects) apply_locked(kind, *object);
}

std::size_t RbacPolicy::size(RbacKind kind) const {
  std::shared_lock lock(m_mutex);
  switch (kind) {
    case RbacKind::cluster_role: return m_cluster_roles.size();
    case RbacKind::role: return m_roles.size();
    case RbacKind::role_binding:
      return static_cast<std::size_t>(std::ranges::count_if(m_bindings, [](const auto& e) { return !e.second->namespace_.empty(); }));
    case RbacKind::cluster_role_binding:
      return static_cast<std::size_t>(std::ranges::count_if(m_bindings, [](const auto& e) { return e.second->namespace_.empty(); }));
  }
  return 0;
}

const std::vector<PolicyRule>* RbacPolicy::role_rules_locked(const Binding& binding, std::string& error) const {
  if (binding.role_kind == "ClusterRole") {
    const auto found = m_cluster_roles.find(binding.role_key);
    if (found != m_cluster_roles.end()) return &found->second.rules;
    error = "clusterrole.rbac.authorization.k8s.io " + go_quote(binding.role_name) + " not found";
    return nullptr;
  }
  if (binding.role_kind == "Role") {
    const auto found = m_roles.find(binding.role_key);
    if (found != m_roles.end()) return &found->second.rules;
    error = "role.rbac.authorization.k8s.io " + go_quote(binding.role_name) + " not found";
    return nullptr;
  }
  error = "unsupported role reference kind: " + go_quote(binding.role_kind);
  return nullptr;
}

template <class Visit>
void RbacPolicy::visit_locked(const UserInfo& user, const std::string& ns, Visit&& visit) const {
  // The bindings naming the user or one of its groups, in name order, each once (a binding
  // can name the user and a group of it). Most users have a handful: no allocation then.
  constexpr std::size_t k_inline = 16;
  std::array<const Binding*, k_inline> inline_found{};
  std::vector<const Binding*> more;
  auto visit_scope = [&](std::string_view scope_name) {
    const auto scope = m_scopes.find(scope_name);
    if (scope == m_scopes.end()) return true;
    std::size_t count = 0;
    std::size_t lists = 0;
    auto take = [&](const std::vector<const Binding*>& list) {
      ++lists;
      for (const Binding* b : list) {
        if (count < k_inline) inline_found[count] = b;
        else more.push_back(b);
        ++count;
      }
    };
    if (const auto list = scope->second.users.find(std::string_view(user.name)); list != scope->second.users.end())
      take(list->second);
    for (const auto& group : user.groups)
      if (const auto list = scope->second.groups.find(std::string_view(group)); list != scope->second.groups.end())
        take(list->second);
    std::span<const Binding*> found(inline_found.data(), std::min(count, k_inline));
    if (count > k_inline) {
      more.insert(more.begin(), inline_found.begin(), inline_found.end());
      found = more;
    }
    if (lists > 1) {  // each list is in name order already
      std::ranges::sort(found, {}, [](const Binding* b) -> const std::string& { return b->name; });
      found = found.first(static_cast<std::size_t>(std::unique(found.begin(), found.end()) - found.begin()));
    }
    for (const Binding* binding : found) {
      std::string error;
      const auto* rules = role_rules_locked(*binding, error);
      if (!visit(*binding, rules, error)) return false;
    }
    more.clear();
    return true;
  };
  // ClusterRoleBindings first, then the RoleBindings of the namespace, as kube visits them.
  if (visit_scope("") && !ns.empty()) visit_scope(ns);
}

AuthorizerMode::Verdict RbacPolicy::authorize(const Attributes& attributes, std::string& reason,
                                              bool explain_allow) const {
  std::shared_lock lock(m_mutex);
  std::vector<std::string> errors;
  const Binding* allowed_by = nullptr;
  visit_locked(attributes.user, attributes.namespace_,
               [&](const Binding& binding, const std::vector<PolicyRule>* rules, const std::string& error) {
                 if (rules == nullptr) {
                   errors.push_back(error);
                   return true;
                 }
                 if (!rules_allow(attributes, *rules)) return true;
                 allowed_by = &binding;
                 return false;
               });
  if (allowed_by == nullptr) {
    reason = errors.empty() ? "" : "RBAC: " + aggregate_errors(errors);
    return AuthorizerMode::Verdict::no_opinion;
  }
  if (!explain_allow) return AuthorizerMode::Verdict::allow;
  const Binding& b = *allowed_by;
  const auto subject = std::ranges::find_if(
      b.subjects, [&](const Subject& s) { return applies_to(s, attributes.user, b.namespace_); });
  const std::string subject_text = subject == b.subjects.end() ? "" : describe_subject(*subject, b.namespace_);
  reason = "RBAC: allowed by " +
           (b.namespace_.empty() ? "ClusterRoleBinding " + go_quote(b.name)
                                 : "RoleBinding " + go_quote(b.name + "/" + b.namespace_)) +
           " of " + b.role_kind + " " + go_quote(b.role_name) + " to " + subject_text;
  return AuthorizerMode::Verdict::allow;
}

RuleSet RbacPolicy::rules_for(const UserInfo& user, const std::string& ns) const {
  std::shared_lock lock(m_mutex);
  RuleSet out;
  visit_locked(user, ns, [&](const Binding&, const std::vector<PolicyRule>* rules, const std::string& error) {
    if (rules == nullptr) out.errors.push_back(error);
    else out.rules.insert(out.rules.end(), rules->begin(), rules->end());
    return true;
  });
  return out;
}

RuleSet RbacPolicy::role_reference_rules(const json& role_ref, const std::string& ns) const {
  Binding binding;
  binding.namespace_ = ns;
  binding.role_kind = str(at(role_ref, {"kind"}));
  binding.role_name = str(at(role_ref, {"name"}));
  binding.role_key = binding.role_kind == "Role" ? object_key(ns, binding.role_name) : binding.role_name;
  std::shared_lock lock(m_mutex);
  RuleSet out;
  std::string error;
  if (const auto* rules = role_rules_locked(binding, error)) out.rules = *rules;
  else out.errors.push_back(error);
  return out;
}

std::shared_ptr<const AuthorizerMode> rbac_mode(std::shared_ptr<const RbacPolicy> policy) {
  return std::make_shared<const RbacMode>(std::move(policy));
}

}  // namespace kw::auth
