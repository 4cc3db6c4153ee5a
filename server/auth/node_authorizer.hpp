#pragma once
// kube-apiserver's Node authorization mode: a kubelet (user system:node:NAME in group
// system:nodes) may read the secrets, ConfigMaps, PersistentVolumeClaims, PersistentVolumes and
// VolumeAttachments, and ask tokens for the ServiceAccounts, of the pods bound to its node
// only; it may write its own Lease and CSINode and, for the rest, what the system:node
// ClusterRole's rules allow. Every other user gets no opinion.
//
// The relations live in a NodeGraph, kept from the watch caches of pods, PersistentVolumes,
// VolumeAttachments and nodes (control::NodeGraphFeed); never a storage read per request.
//
//   auto graph = std::make_shared<auth::NodeGraph>();
//   auto authz = auth::Authorizer::load({.mode = "Node,RBAC", .rbac = policy, .node_graph = graph,
//                                        .node_rules = rules});
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/auth/authorizer.hpp"

namespace kw::auth {

// What a node may be related to (the starting points of kube's graph walk).
enum class NodeObject { secret, config_map, claim, volume, service_account, attachment };

class NodeGraph {
 public:
  // A pod, PersistentVolume, VolumeAttachment or Node (by `kind`) was added or changed.
  void apply(const std::string& kind, const nlohmann::json& object);
  void remove(const std::string& kind, const std::string& ns, const std::string& name);
  // Everything of `kind` is now what `each` hands, one at a time, to the callback it gets (an
  // informer's initial state or relist; each can be a tree made for the moment).
  using ObjectVisitor = std::function<void(const std::function<void(const nlohmann::json&)>&)>;
  void replace(const std::string& kind, const ObjectVisitor& each);

  // Whether `node` reaches the object: a pod on the node uses it (secrets, ConfigMaps,
  // claims, ServiceAccounts), directly or through a PersistentVolume bound to a claim a pod on
  // the node uses (the volume's kubelet-visible secrets), or it names the node itself (a
  // VolumeAttachment, the node's configSource ConfigMap). Thread-safe.
  bool related(const std::string& node, NodeObject kind, const std::string& ns, const std::string& name) const;

 private:
  struct Pod {
    std::string node, uid;
    std::vector<std::pair<NodeObject, std::string>> uses;  // kind, "ns/name"
  };
  struct Volume {
    std::string claim;                 // "ns/name" of its claimRef
    std::vector<std::string> secrets;  // "ns/name", the kubelet-visible ones
  };
  using NodeCounts = std::map<std::string, int>;  // node -> pods that use the object there

  void apply_locked(const std::string& kind, const nlohmann::json& object);
  void apply_pod(const nlohmann::json& pod);
  void remove_pod(const std::string& key);
  void apply_volume(const nlohmann::json& volume);
  void remove_volume(const std::string& name);
  void clear_kind(const std::string& kind);
  bool used_on(NodeObject kind, const std::string& key, const std::string& node) const;

  mutable std::shared_mutex m_mutex;
  std::map<std::string, Pod> m_pods;  // by "ns/name"; only pods bound to a node
  std::map<NodeObject, std::unordered_map<std::string, NodeCounts>> m_used;  // kind -> "ns/name" -> nodes
  std::map<std::string, Volume> m_volumes;                                   // by name
  std::unordered_map<std::string, std::set<std::string>> m_volume_secrets;   // secret "ns/name" -> volumes
  std::map<std::string, std::string> m_attachments;                          // VolumeAttachment -> node
  std::map<std::string, std::string> m_node_config_maps;                     // node -> ConfigMap "ns/name"
};

// kube's NodeIdentity: the node's name for a user system:node:NAME in group system:nodes (""
// when the name names none), nullopt for anyone else.
std::optional<std::string> node_identity(const UserInfo& user);

// The Node mode over `graph`; `node_rules` are the system:node ClusterRole's rules, what a
// node may do beyond the objects the graph relates it to.
std::shared_ptr<const AuthorizerMode> node_mode(std::shared_ptr<const NodeGraph> graph,
                                               std::vector<PolicyRule> node_rules);

}  // namespace kw::auth
