#include "server/control/rbac_controller.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/api/selector.hpp"
#include "core/util/parallel.hpp"
#include "core/util/text.hpp"
#include "server/control/work_queue.hpp"
#include "server/registry/informer.hpp"

namespace kw::control {

// The bootstrap policy (rbac_bootstrap.json), embedded by the build.
extern const unsigned char k_rbac_bootstrap[];
extern const std::size_t k_rbac_bootstrap_size;

namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using auth::RbacKind;

constexpr const char* k_group = "rbac.authorization.k8s.io";
constexpr const char* k_autoupdate = "rbac.authorization.kubernetes.io/autoupdate";

struct RbacResource {
  RbacKind kind;
  const char* plural;
  const char* bootstrap_section;  // its array in rbac_bootstrap.json
  bool binding;
};
// Roles before the bindings that name them.
constexpr RbacResource k_resources[] = {
    {RbacKind::cluster_role, "clusterroles", "clusterRoles", false},
    {RbacKind::role, "roles", "roles", false},
    {RbacKind::cluster_role_binding, "clusterrolebindings", "clusterRoleBindings", true},
    {RbacKind::role_binding, "rolebindings", "roleBindings", true},
};

const json& meta_of(const json& object) { return at(object, {"metadata"}); }

bool protected_from_update(const json& existing) {
  return str(at(at(meta_of(existing), {"annotations"}), {k_autoupdate})) == "false";
}

// kube's merge(expected, existing): expected's entries, overridden by existing ones.
bool merge_map(json& meta, const json& expected_meta, const char* key) {
  const json& wanted = at(expected_meta, {key});
  if (!wanted.is_object() || wanted.empty()) return false;
  json merged = wanted;
  if (const json& have = at(meta, {key}); have.is_object()) merged.update(have);
  if (merged == at(meta, {key})) return false;
  meta[key] = std::move(merged);
  return true;
}

bool merge_labels_and_annotations(json& object, const json& expected) {
  json& meta = object["metadata"];
  const bool annotations = merge_map(meta, meta_of(expected), "annotations");
  const bool labels = merge_map(meta, meta_of(expected), "labels");
  return annotations || labels;
}

std::vector<auth::PolicyRule> rules_of(const json& object) {
  std::vector<auth::PolicyRule> rules;
  if (const json& list = at(object, {"rules"}); list.is_array())
    for (const auto& rule : list) rules.push_back(auth::PolicyRule::from_json(rule));
  return rules;
}

json selectors_of(const json& role) {
  const json& selectors = at(role, {"aggregationRule", "clusterRoleSelectors"});
  return selectors.is_array() ? selectors : json::array();
}

// kube's computeReconciledRole (union mode: nothing the cluster added is taken away). Null
// when the stored role needs no change.
std::optional<json> reconciled_role(const json& existing, const json& expected) {
  if (protected_from_update(existing)) return std::nullopt;
  json out = existing;
  bool changed = merge_labels_and_annotations(out, expected);
  const auto missing = auth::uncovered_rules(rules_of(existing), rules_of(expected));
  if (!missing.empty()) {
    json& rules = out["rules"];
    if (!rules.is_array()) rules = json::array();
    for (const auto& rule : missing) rules.push_back(rule.to_json());
    changed = true;
  }
  const json& wanted = at(expected, {"aggregationRule"});
  if (wanted.is_null() && !at(existing, {"aggregationRule"}).is_null()) {
    out.erase("aggregationRule");
    changed = true;
  } else if (!wanted.is_null()) {
    json selectors = selectors_of(existing);
    bool added = false;
    for (const auto& selector : selectors_of(expected))
      if (std::ranges::find(selectors, selector) == selectors.end()) selectors.push_back(selector), added = true;
    if (added) {
      out["aggregationRule"]["clusterRoleSelectors"] = std::move(selectors);
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

bool same_subject(const json& a, const json& b) {
  for (const char* key : {"kind", "apiGroup", "name", "namespace"})
    if (str(at(a, {key})) != str(at(b, {key}))) return false;
  return true;
}

bool same_role_ref(const json& a, const json& b) {
  for (const char* key : {"apiGroup", "kind", "name"})
    if (str(at(at(a, {"roleRef"}), {key})) != str(at(at(b, {"roleRef"}), {key}))) return false;
  return true;
}

// kube's computeReconciledRoleBinding (union mode). Null when nothing changes.
std::optional<json> reconciled_binding(const json& existing, const json& expected) {
  if (protected_from_update(existing)) return std::nullopt;
  json out = existing;
  bool changed = merge_labels_and_annotations(out, expected);
  json subjects = at(existing, {"subjects"}).is_array() ? at(existing, {"subjects"}) : json::array();
  for (const auto& subject : at(expected, {"subjects"}).is_array() ? at(expected, {"subjects"}) : json::array()) {
    if (std::ranges::any_of(subjects, [&](const json& have) { return same_subject(have, subject); })) continue;
    subjects.push_back(subject);
    changed = true;
  }
  if (!changed) return std::nullopt;
  out["subjects"] = std::move(subjects);
  return out;
}

const api::ResourceInfo* rbac_info(const api::ResourceTable& table, const char* plural) {
  return table.find_plural(k_group, "v1", plural);
}

std::string describe(const api::ResourceInfo& info, const std::string& ns, const std::string& name) {
  return info.plural + " " + (ns.empty() ? name : ns + "/" + name);
}

// One object of the bootstrap policy brought to the stored state it should have.
Result<void> reconcile_one(registry::Registry& registry, const api::ResourceInfo& info, const RbacResource& resource,
                           const json& expected, const std::map<std::string, json>& stored) {
  const std::string ns = str(at(meta_of(expected), {"namespace"}));
  const std::string name = str(at(meta_of(expected), {"name"}));
  auto failed = [&](const registry::ApiError& error) {
    return fail("cannot reconcile the bootstrap " + describe(info, ns, name) + ": " + error.message);
  };
  const auto found = stored.find(ns + "/" + name);
  if (found == stored.end()) {
    if (auto created = registry.create(info, ns, expected, {}); !created && created.error().code != 409)
      return failed(created.error());
    return {};
  }
  const json& existing = found->second;
  if (resource.binding && !same_role_ref(existing, expected) && !protected_from_update(existing)) {
    // A binding's roleRef cannot change: it is made again.
    if (auto removed = registry.remove(info, ns, name, nullptr, {}); !removed && removed.error().code != 404)
      return failed(removed.error());
    if (auto created = registry.create(info, ns, expected, {}); !created) return failed(created.error());
    return {};
  }
  const auto wanted = resource.binding ? reconciled_binding(existing, expected) : reconciled_role(existing, expected);
  if (!wanted) return {};
  auto updated = registry.update_with(
      info, ns, name,
      [&](const json& current) -> registry::ApiResult<json> {
        auto again = resource.binding ? reconciled_binding(current, expected) : reconciled_role(current, expected);
        return again ? std::move(*again) : current;
      },
      {});
  if (!updated) return failed(updated.error());
  return {};
}

// The embedded bootstrap policy, parsed once.
const json& bootstrap_policy() {
  static const json policy =
      json::parse(std::string_view(reinterpret_cast<const char*>(k_rbac_bootstrap), k_rbac_bootstrap_size), nullptr,
                  false);
  return policy;
}

Result<void> reconcile_bootstrap(registry::Registry& registry, const api::ResourceTable& table) {
  const json& policy = bootstrap_policy();
  if (!policy.is_object()) return fail("the embedded bootstrap RBAC policy is not a JSON object");
  for (const auto& resource : k_resources) {
    const auto* info = rbac_info(table, resource.plural);
    if (info == nullptr) return fail(std::string("the server does not serve ") + resource.plural);
    auto listed = registry.list(*info, {});
    if (!listed) return fail("cannot list " + info->plural + ": " + listed.error().message);
    std::map<std::string, json> stored;
    for (const auto& item : listed->items) stored.emplace(item->namespace_ + "/" + item->name, item->object());
    // Several at a time: storage commits the writes that wait together in one transaction.
    const json& section = at(policy, {resource.bootstrap_section});
    std::vector<const json*> expected;
    for (const auto& item : section) expected.push_back(&item);
    auto reconciled = util::try_each_parallel(expected, registry::k_start_up_writers, [&](const json* item) {
      return reconcile_one(registry, *info, resource, *item, stored);
    });
    if (!reconciled) return reconciled;
  }
  return {};
}

// The rules an aggregated ClusterRole should hold: those of every other ClusterRole its
// selectors pick, in name order, each once (kube's syncClusterRole).
json aggregated_rules(const json& role, const std::map<std::string, cache::ObjectPtr>& roles) {
  json rules = json::array();
  const std::string self = str(at(meta_of(role), {"name"}));
  for (const auto& selector_json : selectors_of(role)) {
    auto selector = api::LabelSelector::from_label_selector_json(selector_json);
    if (!selector) continue;
    for (const auto& [name, other] : roles) {
      if (name == self || !selector->matches(other->labels)) continue;
      if (const json& list = at(other->object(), {"rules"}); list.is_array())
        for (const auto& rule : list)
          if (std::ranges::find(rules, rule) == rules.end()) rules.push_back(rule);
    }
  }
  return rules;
}

}  // namespace

// What runs while the server does: the informers and the aggregation worker.
struct RbacController::State {
  registry::Registry& registry;
  std::shared_ptr<auth::RbacPolicy> policy;
  api::ResourceInfo cluster_roles;

  std::mutex mutex;  // guards roles
  std::map<std::string, cache::ObjectPtr> roles;  // the ClusterRoles, by name

  std::optional<WorkQueue> aggregation;  // one key: every aggregated ClusterRole
  std::vector<std::unique_ptr<registry::Informer>> informers;  // declared last: stopped first

  State(registry::Registry& r, std::shared_ptr<auth::RbacPolicy> p, api::ResourceInfo info)
      : registry(r), policy(std::move(p)), cluster_roles(std::move(info)) {}

  void roles_changed(const std::function<void(std::map<std::string, cache::ObjectPtr>&)>& change) {
    {
      std::lock_guard lock(mutex);
      change(roles);
    }
    if (aggregation) aggregation->add("");
  }

  bool aggregate_all() {
    std::unique_lock lock(mutex);
    const auto snapshot = roles;
    lock.unlock();
    return aggregate(snapshot);
  }

  bool aggregate(const std::map<std::string, cache::ObjectPtr>& snapshot) {
    bool ok = true;
    for (const auto& [name, role] : snapshot) {
      if (selectors_of(role->object()).empty()) continue;
      const json wanted = aggregated_rules(role->object(), snapshot);
      const json& have = at(role->object(), {"rules"});
      if (have == wanted || (have.is_null() && wanted.empty())) continue;
      auto updated = registry.update_with(
          cluster_roles, "", name,
          [&](const json& current) -> registry::ApiResult<json> {
            json next = current;
            if (wanted.empty()) next.erase("rules");
            else next["rules"] = wanted;
            return next;
          },
          {});
      if (!updated && updated.error().code != 404) {
        std::cerr << "kw: cannot aggregate the rules of ClusterRole " << name << ": " << updated.error().message << "\n";
        ok = false;
      }
    }
    return ok;
  }
};

RbacController::RbacController(std::unique_ptr<State> state) : m_state(std::move(state)) {}

RbacController::~RbacController() { m_state->informers.clear(); }

Result<std::unique_ptr<RbacController>> RbacController::start(registry::Registry& registry,
                                                              std::shared_ptr<auth::RbacPolicy> policy,
                                                              bool aggregate) {
  const auto table = registry.resources();
  if (auto reconciled = reconcile_bootstrap(registry, *table); !reconciled) return std::unexpected(reconciled.error());
  auto state = std::make_unique<State>(registry, std::move(policy), *rbac_info(*table, "clusterroles"));
  State* s = state.get();
  // Before the informers, whose first state wakes it.
  if (aggregate) s->aggregation.emplace([s](const std::string&) { return s->aggregate_all(); });
  for (const auto& resource : k_resources) {
    const RbacKind kind = resource.kind;
    const bool cluster_roles = kind == RbacKind::cluster_role;
    registry::InformerHandlers handlers;
    handlers.replace = [s, kind, cluster_roles](const std::vector<cache::ObjectPtr>& all) {
      std::vector<const json*> objects;
      objects.reserve(all.size());
      for (const auto& object : all) objects.push_back(&object->object());
      s->policy->replace(kind, objects);
      if (cluster_roles)
        s->roles_changed([&](auto& roles) {
          roles.clear();
          for (const auto& object : all) roles[object->name] = object;
        });
    };
    handlers.change = [s, kind, cluster_roles](cache::EventType type, const cache::ObjectPtr& object) {
      if (type == cache::EventType::deleted) s->policy->remove(kind, object->namespace_, object->name);
      else s->policy->apply(kind, object->object());
      if (cluster_roles)
        s->roles_changed([&](auto& roles) {
          if (type == cache::EventType::deleted) roles.erase(object->name);
          else roles[object->name] = object;
        });
    };
    auto informer = registry::Informer::start(registry, *rbac_info(*table, resource.plural), std::move(handlers));
    if (!informer) return fail("cannot follow " + std::string(resource.plural) + ": " + informer.error().message);
    state->informers.push_back(std::move(*informer));
  }

  return std::unique_ptr<RbacController>(new RbacController(std::move(state)));
}

std::vector<auth::PolicyRule> bootstrap_cluster_role_rules(const std::string& name) {
  if (const json& roles = at(bootstrap_policy(), {"clusterRoles"}); roles.is_array())
    for (const auto& role : roles)
      if (str(at(meta_of(role), {"name"})) == name) return rules_of(role);
  return {};
}

// ---- escalation prevention -------------------------------------------------------------------

namespace {

// kube's ConfirmNoEscalation: the rules `user` holds in `ns` must cover `rules`. The message
// of the refusal, or nothing.
std::optional<std::string> escalation(const auth::RbacPolicy& policy, const auth::UserInfo& user, const std::string& ns,
                                      const std::vector<auth::PolicyRule>& rules) {
  const auth::RuleSet held = policy.rules_for(user, ns);
  const auto missing = auth::uncovered_rules(held.rules, rules);
  if (missing.empty()) return std::nullopt;
  std::vector<std::string> lines;
  for (const auto& rule : auth::compact_rules(missing)) lines.push_back(auth::compact_string(rule));
  std::ranges::sort(lines);
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string message = "user " + util::go_quote(user.name) + " (groups=" + util::go_quote_list(user.groups) +
                        ") is attempting to grant RBAC permissions not currently held:";
  for (const auto& line : lines) message += "\n" + line;
  if (!held.errors.empty()) message += "; resolution errors: [" + auth::aggregate_errors(held.errors) + "]";
  return message;
}

registry::ApiError forbidden(const registry::AdmissionRequest& r, const std::string& why) {
  return registry::forbidden(r.info.group, r.info.plural, r.name, why);
}

// An update that changes nothing but owner references and finalizers (the garbage
// collector's writes) is not a grant.
bool only_gc_fields_change(const json& object, const json& old) {
  auto stripped = [](json copy) {
    json& meta = copy["metadata"];
    for (const char* key : {"ownerReferences", "finalizers", "selfLink", "managedFields", "resourceVersion"})
      meta.erase(key);
    return copy;
  };
  return stripped(object) == stripped(old);
}

bool has_aggregation_rule(const json* role) { return role != nullptr && !selectors_of(*role).empty(); }

}  // namespace

registry::AdmissionCheck rbac_escalation_check(std::shared_ptr<const auth::RbacPolicy> policy,
                                               const auth::Authorizer& authorizer) {
  return [policy = std::move(policy), &authorizer](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (r.info.group != k_group || r.user.is_null() || !r.subresource.empty() || r.operation == "DELETE") return {};
    const std::string& plural = r.info.plural;
    const bool role = plural == "roles" || plural == "clusterroles";
    if (!role && plural != "rolebindings" && plural != "clusterrolebindings") return {};
    const auth::UserInfo user = auth::user_info_from_json(r.user);
    if (user.in_group(auth::k_group_masters)) return {};
    if (role) {
      const auto may_escalate =
          auth::resource_attributes(user, "escalate", r.namespace_, k_group, plural, "", r.name, "");
      if (authorizer.authorize(may_escalate).allowed) return {};
      if (r.old != nullptr && only_gc_fields_change(r.object, *r.old)) return {};
      if (auto refused = escalation(*policy, user, r.namespace_, rules_of(r.object)))
        return std::unexpected(forbidden(r, *refused));
      if (plural == "clusterroles" && (has_aggregation_rule(&r.object) || has_aggregation_rule(r.old)) &&
          escalation(*policy, user, r.namespace_, auth::all_rules()))
        return std::unexpected(forbidden(r, "must have cluster-admin privileges to use the aggregationRule"));
      return {};
    }
    if (r.old != nullptr && only_gc_fields_change(r.object, *r.old)) return {};
    const json& role_ref = at(r.object, {"roleRef"});
    const std::string ref_kind = str(at(role_ref, {"kind"}));
    if (ref_kind == "ClusterRole" || ref_kind == "Role") {
      const auto may_bind = auth::resource_attributes(user, "bind", r.namespace_, str(at(role_ref, {"apiGroup"})),
                                                      ref_kind == "Role" ? "roles" : "clusterroles", "",
                                                      str(at(role_ref, {"name"})), "");
      if (authorizer.authorize(may_bind).allowed) return {};
    }
    const auth::RuleSet granted = policy->role_reference_rules(role_ref, r.namespace_);
    if (!granted.errors.empty())  // the role is read as a GET of it would: 404 naming the role
      return std::unexpected(
          registry::not_found(k_group, ref_kind == "Role" ? "roles" : "clusterroles", str(at(role_ref, {"name"}))));
    if (auto refused = escalation(*policy, user, r.namespace_, granted.rules))
      return std::unexpected(forbidden(r, *refused));
    return {};
  };
}

}  // namespace kw::control
