#include "server/auth/node_authorizer.hpp"

#include <algorithm>
#include <mutex>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::auth {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr std::string_view k_node_prefix = "system:node:";
constexpr const char* k_nodes_group = "system:nodes";
constexpr const char* k_lease_namespace = "kube-node-lease";
constexpr const char* k_mirror_annotation = "kubernetes.io/config.mirror";

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

// kube's VisitPVSecretNames, the kubelet-visible secrets: a source's secretRef in its own
// namespace or, without one, the claim's.
std::vector<std::string> volume_secrets(const json& spec, const std::string& claim_namespace) {
  std::vector<std::string> secrets;
  auto add = [&](const json& ref, const std::string& default_namespace) {
    const std::string name = str(at(ref, {"name"}));
    if (name.empty()) return;
    const std::string ns = str(at(ref, {"namespace"}));
    secrets.push_back(key_of(ns.empty() ? default_namespace : ns, name));
  };
  if (const json& azure = at(spec, {"azureFile"}); azure.is_object()) {
    const std::string ns = str(at(azure, {"secretNamespace"}));
    if (const std::string name = str(at(azure, {"secretName"})); !name.empty())
      secrets.push_back(key_of(ns.empty() ? claim_namespace : ns, name));
  }
  for (const char* source : {"cephfs", "flexVolume", "rbd", "scaleIO", "iscsi"})
    add(at(spec, {source, "secretRef"}), claim_namespace);
  for (const char* source : {"cinder", "storageos"}) add(at(spec, {source, "secretRef"}), "");
  for (const char* ref : {"nodePublishSecretRef", "nodeStageSecretRef"}) add(at(spec, {"csi", ref}), "");
  return secrets;
}

}  // namespace

// ---- the graph ------------------------------------------------------------------------------------

void NodeGraph::apply(const std::string& kind, const json& object) {
  std::unique_lock lock(m_mutex);
  apply_locked(kind, object);
}

void NodeGraph::apply_locked(const std::string& kind, const json& object) {
  const std::string name = str(at(object, {"metadata", "name"}));
  if (kind == "pods") {
    apply_pod(object);
  } else if (kind == "persistentvolumes") {
    apply_volume(object);
  } else if (kind == "volumeattachments") {
    if (const std::string node = str(at(object, {"spec", "nodeName"})); !node.empty()) m_attachments[name] = node;
    else m_attachments.erase(name);
  } else if (kind == "nodes") {
    const json& source = at(object, {"spec", "configSource", "configMap"});
    if (const std::string map = str(at(source, {"name"})); !map.empty())
      m_node_config_maps[name] = key_of(str(at(source, {"namespace"})), map);
    else
      m_node_config_maps.erase(name);
  }
}

void NodeGraph::remove(const std::string& kind, const std::string& ns, const std::string& name) {
  std::unique_lock lock(m_mutex);
  if (kind == "pods") remove_pod(key_of(ns, name));
  else if (kind == "persistentvolumes") remove_volume(name);
  else if (kind == "volumeattachments") m_attachments.erase(name);
  else if (kind == "nodes") m_node_config_maps.erase(name);
}

void NodeGraph::replace(const std::string& kind, const ObjectVisitor& each) {
  std::unique_lock lock(m_mutex);  // readers see the old state or the new one, never a part
  clear_kind(kind);
  each([&](const json& object) { apply_locked(kind, object); });
}

void NodeGraph::clear_kind(const std::string& kind) {
  if (kind == "pods") {
    m_pods.clear();
    m_used.clear();
  } else if (kind == "persistentvolumes") {
    m_volumes.clear();
    m_volume_secrets.clear();
  } else if (kind == "volumeattachments") {
    m_attachments.clear();
  } else if (kind == "nodes") {
    m_node_config_maps.clear();
  }
}

void NodeGraph::apply_pod(const json& pod) {
  const json& meta = at(pod, {"metadata"});
  const std::string ns = str(at(meta, {"namespace"}));
  const std::string name = str(at(meta, {"name"}));
  const std::string key = key_of(ns, name);
  const json& spec = at(pod, {"spec"});
  const std::string node = str(at(spec, {"nodeName"}));
  if (node.empty()) return;  // not bound yet: nothing on a node uses it
  const std::string uid = str(at(meta, {"uid"}));
  // A pod's references cannot change once it is bound; only a new pod (uid) or node matters.
  if (auto found = m_pods.find(key); found != m_pods.end() && found->second.node == node && found->second.uid == uid)
    return;
  remove_pod(key);
  Pod record{.node = node, .uid = uid, .uses = {}};
  if (!at(meta, {"annotations", k_mirror_annotation}).is_string()) {
    std::set<std::pair<NodeObject, std::string>> uses;
    if (const std::string account = str(at(spec, {"serviceAccountName"})); !account.empty())
      uses.emplace(NodeObject::service_account, key_of(ns, account));
    kinds::visit_secret_names(spec, [&](const std::string& secret) { uses.emplace(NodeObject::secret, key_of(ns, secret)); });
    kinds::visit_config_map_names(spec, [&](const std::string& map) { uses.emplace(NodeObject::config_map, key_of(ns, map)); });
    if (const json& volumes = at(spec, {"volumes"}); volumes.is_array())
      for (const auto& volume : volumes) {
        std::string claim = str(at(volume, {"persistentVolumeClaim", "claimName"}));
        if (claim.empty() && at(volume, {"ephemeral"}).is_object()) claim = name + "-" + str(at(volume, {"name"}));
        if (!claim.empty()) uses.emplace(NodeObject::claim, key_of(ns, claim));
      }
    record.uses.assign(uses.begin(), uses.end());
  }
  for (const auto& [kind, used] : record.uses) ++m_used[kind][used][node];
  m_pods.emplace(key, std::move(record));
}

void NodeGraph::remove_pod(const std::string& key) {
  auto found = m_pods.find(key);
  if (found == m_pods.end()) return;
  const Pod& pod = found->second;
  for (const auto& [kind, used] : pod.uses) {
    auto& by_object = m_used[kind];
    auto object = by_object.find(used);
    if (object == by_object.end()) continue;
    if (auto count = object->second.find(pod.node); count != object->second.end() && --count->second <= 0)
      object->second.erase(count);
    if (object->second.empty()) by_object.erase(object);
  }
  m_pods.erase(found);
}

void NodeGraph::apply_volume(const json& volume) {
  const std::string name = str(at(volume, {"metadata", "name"}));
  remove_volume(name);
  const json& claim = at(volume, {"spec", "claimRef"});
  if (!claim.is_object()) return;  // unbound: no claim leads to it
  const std::string claim_namespace = str(at(claim, {"namespace"}));
  Volume record{.claim = key_of(claim_namespace, str(at(claim, {"name"}))),
                .secrets = volume_secrets(at(volume, {"spec"}), claim_namespace)};
  for (const auto& secret : record.secrets) m_volume_secrets[secret].insert(name);
  m_volumes.emplace(name, std::move(record));
}

void NodeGraph::remove_volume(const std::string& name) {
  auto found = m_volumes.find(name);
  if (found == m_volumes.end()) return;
  for (const auto& secret : found->second.secrets)
    if (auto volumes = m_volume_secrets.find(secret); volumes != m_volume_secrets.end()) {
      volumes->second.erase(name);
      if (volumes->second.empty()) m_volume_secrets.erase(volumes);
    }
  m_volumes.erase(found);
}

bool NodeGraph::used_on(NodeObject kind, const std::string& key, const std::string& node) const {
  auto by_object = m_used.find(kind);
  if (by_object == m_used.end()) return false;
  auto object = by_object->second.find(key);
  return object != by_object->second.end() && object->second.contains(node);
}

bool NodeGraph::related(const std::string& node, NodeObject kind, const std::string& ns,
                        const std::string& name) const {
  std::shared_lock lock(m_mutex);
  const std::string key = key_of(ns, name);
  auto volume_on_node = [&](const std::string& volume) {
    auto found = m_volumes.find(volume);
    return found != m_volumes.end() && used_on(NodeObject::claim, found->second.claim, node);
  };
  switch (kind) {
    case NodeObject::secret:
      if (used_on(kind, key, node)) return true;
      if (auto volumes = m_volume_secrets.find(key); volumes != m_volume_secrets.end())
        return std::ranges::any_of(volumes->second, volume_on_node);
      return false;
    case NodeObject::config_map: {
      if (used_on(kind, key, node)) return true;
      auto configured = m_node_config_maps.find(node);
      return configured != m_node_config_maps.end() && configured->second == key;
    }
    case NodeObject::claim:
    case NodeObject::service_account: return used_on(kind, key, node);
    case NodeObject::volume: return volume_on_node(name);
    case NodeObject::attachment: {
      auto found = m_attachments.find(name);
      return found != m_attachments.end() && found->second == node;
    }
  }
  return false;
}

// ---- the authorization mode -------------------------------------------------------------------------

std::optional<std::string> node_identity(const UserInfo& user) {
  if (!user.name.starts_with(k_node_prefix) || !user.in_group(k_nodes_group)) return std::nullopt;
  return user.name.substr(k_node_prefix.size());
}

namespace {

using Verdict = AuthorizerMode::Verdict;

class NodeMode final : public AuthorizerMode {
 public:
  NodeMode(std::shared_ptr<const NodeGraph> graph, std::vector<PolicyRule> rules)
      : m_graph(std::move(graph)), m_rules(std::move(rules)) {}

  Verdict authorize(const Attributes& a, std::string& reason, bool) const override {
    const auto node = node_identity(a.user);
    if (!node) return Verdict::no_opinion;
    if (node->empty()) {
      reason = "unknown node for user \"" + a.user.name + "\"";
      return Verdict::no_opinion;
    }
    if (a.resource_request) {
      const bool core = a.api_group.empty(), storage = a.api_group == "storage.k8s.io";
      if (core && a.resource == "secrets") return read_namespaced(*node, NodeObject::secret, a, reason);
      if (core && a.resource == "configmaps") return read_namespaced(*node, NodeObject::config_map, a, reason);
      if (core && a.resource == "persistentvolumeclaims")
        return a.subresource == "status" ? status_update(*node, a, reason) : get(*node, NodeObject::claim, a, reason);
      if (core && a.resource == "persistentvolumes") return get(*node, NodeObject::volume, a, reason);
      if (storage && a.resource == "volumeattachments") return get(*node, NodeObject::attachment, a, reason);
      if (core && a.resource == "serviceaccounts") return create_token(*node, a, reason);
      if (a.api_group == "coordination.k8s.io" && a.resource == "leases") return lease(*node, a, reason);
      if (storage && a.resource == "csinodes") return csi_node(*node, a, reason);
    }
    return rules_allow(a, m_rules) ? Verdict::allow : Verdict::no_opinion;
  }

  RuleSet rules_for(const UserInfo& user, const std::string&) const override {
    if (!node_identity(user)) return {};
    return {.rules = {}, .incomplete = true, .errors = {"node authorizer does not support user rule resolution"}};
  }

 private:
  static Verdict refuse(std::string& reason, std::string why) {
    reason = std::move(why);
    return Verdict::no_opinion;
  }

  Verdict related(const std::string& node, NodeObject kind, const Attributes& a, std::string& reason) const {
    if (a.name.empty()) return refuse(reason, "No Object name found");
    if (!m_graph->related(node, kind, a.namespace_, a.name))
      return refuse(reason, "no relationship found between node '" + node + "' and this object");
    return Verdict::allow;
  }

  Verdict read_namespaced(const std::string& node, NodeObject kind, const Attributes& a, std::string& reason) const {
    if (a.verb != "get" && a.verb != "list" && a.verb != "watch")
      return refuse(reason, "can only read resources of this type");
    if (!a.subresource.empty()) return refuse(reason, "cannot read subresource");
    if (a.namespace_.empty()) return refuse(reason, "can only read namespaced object of this type");
    return related(node, kind, a, reason);
  }

  Verdict get(const std::string& node, NodeObject kind, const Attributes& a, std::string& reason) const {
    if (a.verb != "get") return refuse(reason, "can only get individual resources of this type");
    if (!a.subresource.empty()) return refuse(reason, "cannot get subresource");
    return related(node, kind, a, reason);
  }

  Verdict status_update(const std::string& node, const Attributes& a, std::string& reason) const {
    if (a.verb != "update" && a.verb != "patch") return refuse(reason, "can only get/update/patch this type");
    return related(node, NodeObject::claim, a, reason);
  }

  Verdict create_token(const std::string& node, const Attributes& a, std::string& reason) const {
    if (a.verb != "create" || a.name.empty())
      return refuse(reason, "can only create tokens for individual service accounts");
    if (a.subresource != "token") return refuse(reason, "can only create token subresource of serviceaccount");
    if (!m_graph->related(node, NodeObject::service_account, a.namespace_, a.name))
      return refuse(reason, "no relationship found between node '" + node + "' and this object");
    return Verdict::allow;
  }

  static bool writes_own(const Attributes& a) {
    return a.verb == "get" || a.verb == "create" || a.verb == "update" || a.verb == "patch" || a.verb == "delete";
  }

  static Verdict lease(const std::string& node, const Attributes& a, std::string& reason) {
    if (!writes_own(a)) return refuse(reason, "can only get, create, update, patch, or delete a node lease");
    if (a.namespace_ != k_lease_namespace)
      return refuse(reason, std::string("can only access leases in the \"") + k_lease_namespace + "\" system namespace");
    if (a.verb != "create" && a.name != node)
      return refuse(reason, "can only access node lease with the same name as the requesting node");
    return Verdict::allow;
  }

  static Verdict csi_node(const std::string& node, const Attributes& a, std::string& reason) {
    if (!writes_own(a)) return refuse(reason, "can only get, create, update, patch, or delete a CSINode");
    if (!a.subresource.empty()) return refuse(reason, "cannot authorize CSINode subresources");
    if (a.verb != "create" && a.name != node)
      return refuse(reason, "can only access CSINode with the same name as the requesting node");
    return Verdict::allow;
  }

  std::shared_ptr<const NodeGraph> m_graph;
  std::vector<PolicyRule> m_rules;
};

}  // namespace

std::shared_ptr<const AuthorizerMode> node_mode(std::shared_ptr<const NodeGraph> graph,
                                               std::vector<PolicyRule> node_rules) {
  return std::make_shared<const NodeMode>(std::move(graph), std::move(node_rules));
}

}  // namespace kw::auth
