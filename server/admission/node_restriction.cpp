// NodeRestriction: what a kubelet (system:node:NAME in system:nodes) may write, beyond what the
// Node authorizer lets it reach. It keeps to its own Node (no taints, configSource or
// restricted labels of its own choosing), its own Lease and CSINode, mirror pods bound to it
// and the status of pods bound to it, evictions of those pods, tokens bound to them, and the
// status of claims (capacity and conditions only). Refusals are 403 in kube's words.
#include <algorithm>
#include <set>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"
#include "server/auth/node_authorizer.hpp"
#include "server/auth/user_info.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using registry::AdmissionRequest;
using registry::ApiResult;

constexpr const char* k_mirror_pod_annotation = "kubernetes.io/config.mirror";
constexpr const char* k_node_lease_namespace = "kube-node-lease";

std::unexpected<registry::ApiError> refuse(const AdmissionRequest& r, const std::string& why) {
  return std::unexpected(registry::admission_forbidden(r, why));
}

// The name a request writes: the path's, else (a create) the object's.
std::string requested_name(const AdmissionRequest& r) {
  if (!r.name.empty()) return r.name;
  return str(at(r.object, {"metadata", "name"}));
}

// The prefix of a label key ("" without one).
std::string_view label_prefix(std::string_view key) {
  const auto slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view() : key.substr(0, slash);
}

bool in_domain(std::string_view prefix, std::string_view domain) {
  return prefix == domain ||
         (prefix.size() > domain.size() && prefix.ends_with(domain) && prefix[prefix.size() - domain.size() - 1] == '.');
}

// The labels a kubelet sets on its own Node (kubelet's well-known labels and the
// kubelet.kubernetes.io and node.kubernetes.io prefixes).
bool kubelet_label(std::string_view key) {
  static constexpr std::string_view k_labels[] = {
      "kubernetes.io/hostname",           "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region",    "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/instance-type",
      "node.kubernetes.io/instance-type", "kubernetes.io/os",
      "kubernetes.io/arch",               "beta.kubernetes.io/os",
      "beta.kubernetes.io/arch"};
  if (std::ranges::find(k_labels, key) != std::end(k_labels)) return true;
  const auto prefix = label_prefix(key);
  return in_domain(prefix, "kubelet.kubernetes.io") || in_domain(prefix, "node.kubernetes.io");
}

// The changed label keys (added, removed or with another value) a node may not change: the
// node-restriction.kubernetes.io ones, and kubernetes.io and k8s.io ones that are not a
// kubelet's. Sorted, as Go's string set lists them.
std::vector<std::string> forbidden_label_changes(const json& labels, const json& old_labels) {
  std::set<std::string> changed;
  auto collect = [&changed](const json& from, const json& other) {
    if (!from.is_object()) return;
    for (const auto& [key, value] : from.items()) {
      const auto found = other.is_object() ? other.find(key) : other.end();
      if (!other.is_object() || found == other.end() || *found != value) changed.insert(key);
    }
  };
  collect(labels, old_labels);
  collect(old_labels, labels);
  std::vector<std::string> forbidden;
  for (const auto& key : changed) {
    const auto prefix = label_prefix(key);
    const bool kubernetes = in_domain(prefix, "kubernetes.io") || in_domain(prefix, "k8s.io");
    if (in_domain(prefix, "node-restriction.kubernetes.io") || (kubernetes && !kubelet_label(key)))
      forbidden.push_back(key);
  }
  return forbidden;
}

ApiResult<std::optional<json>> stored_pod(registry::Registry& registry, const AdmissionRequest& r,
                                          const std::string& name) {
  return cached_object(registry, "", "v1", "pods", r.namespace_, name);
}

ApiResult<void> admit_pod_create(registry::Registry& registry, const AdmissionRequest& r, const std::string& node) {
  const json& pod = r.object;
  const std::string quoted = util::go_quote(node);
  if (!at(pod, {"metadata", "annotations"}).contains(k_mirror_pod_annotation))
    return refuse(r, "pod does not have " + util::go_quote(k_mirror_pod_annotation) + " annotation, node " + quoted +
                         " can only create mirror pods");
  const json& spec = at(pod, {"spec"});
  if (str(at(spec, {"nodeName"})) != node)
    return refuse(r, "node " + quoted + " can only create pods with spec.nodeName set to itself");
  const json& owners = at(pod, {"metadata", "ownerReferences"});
  const std::size_t owner_count = owners.is_array() ? owners.size() : 0;
  if (owner_count > 1)
    return refuse(r, "node " + quoted + " can only create pods with a single owner reference set to itself");
  if (owner_count == 0) return refuse(r, "node " + quoted + " can only create pods with an owner reference set to itself");
  const json& owner = owners[0];
  if (str(at(owner, {"apiVersion"})) != "v1" || str(at(owner, {"kind"})) != "Node" || str(at(owner, {"name"})) != node)
    return refuse(r, "node " + quoted + " can only create pods with an owner reference set to itself");
  if (at(owner, {"controller"}) != json(true))
    return refuse(r, "node " + quoted + " can only create pods with a controller owner reference set to itself");
  if (at(owner, {"blockOwnerDeletion"}) == json(true))
    return refuse(r, "node " + quoted + " must not set blockOwnerDeletion on an owner reference");
  auto found = cached_object(registry, "", "v1", "nodes", "", node);
  if (!found) return refuse(r, "error looking up node " + node + " to verify uid: " + found.error().message);
  if (!*found) return std::unexpected(registry::not_found("", "nodes", node));
  const std::string uid = str(at(**found, {"metadata", "uid"}));
  if (str(at(owner, {"uid"})) != uid)
    // (kube's words name the owner reference's uid as the expected one)
    return refuse(r, "node " + node + " UID mismatch: expected " + str(at(owner, {"uid"})) + " got " + uid);

  // A mirror pod reaches no other API object.
  if (!str(at(spec, {"serviceAccountName"})).empty())
    return refuse(r, "node " + quoted + " can not create pods that reference a service account");
  bool references = false;
  kinds::visit_secret_names(spec, [&references](const std::string&) { references = true; });
  if (references) return refuse(r, "node " + quoted + " can not create pods that reference secrets");
  kinds::visit_config_map_names(spec, [&references](const std::string&) { references = true; });
  if (references) return refuse(r, "node " + quoted + " can not create pods that reference configmaps");
  const json& volumes = at(spec, {"volumes"});
  if (volumes.is_array()) {
    for (const auto& volume : volumes)
      for (const auto& source : api::arr(at(volume, {"projected", "sources"})))
        if (source.contains("clusterTrustBundle"))
          return refuse(r, "node " + quoted + " can not create pods that reference clustertrustbundles");
    for (const auto& volume : volumes)
      if (volume.contains("persistentVolumeClaim"))
        return refuse(r, "node " + quoted + " can not create pods that reference persistentvolumeclaims");
  }
  return {};
}

// A pod `node` may delete or evict: one bound to it (404 when there is none).
ApiResult<void> bound_here(registry::Registry& registry, const AdmissionRequest& r, const std::string& pod_name,
                           const std::string& node, const std::string& refusal) {
  auto pod = stored_pod(registry, r, pod_name);
  if (!pod) return refuse(r, pod.error().message);
  if (!*pod) return std::unexpected(registry::not_found("", "pods", pod_name));
  if (str(at(**pod, {"spec", "nodeName"})) != node) return refuse(r, refusal);
  return {};
}

// Pod resource claim statuses compare by name and claim name, in order.
bool same_claim_statuses(const json& a, const json& b) {
  const std::size_t a_size = a.is_array() ? a.size() : 0;
  const std::size_t b_size = b.is_array() ? b.size() : 0;
  if (a_size != b_size) return false;
  for (std::size_t i = 0; i < a_size; ++i)
    if (at(a[i], {"name"}) != at(b[i], {"name"}) || at(a[i], {"resourceClaimName"}) != at(b[i], {"resourceClaimName"}))
      return false;
  return true;
}

ApiResult<void> admit_pod(registry::Registry& registry, const AdmissionRequest& r, const std::string& node) {
  const std::string quoted = util::go_quote(node);
  if (r.subresource.empty()) {
    if (r.operation == "CREATE") return admit_pod_create(registry, r, node);
    if (r.operation == "DELETE")
      return bound_here(registry, r, r.name, node,
                        "node " + quoted + " can only delete pods with spec.nodeName set to itself");
    return refuse(r, "unexpected operation " + util::go_quote(r.operation) + ", node " + quoted +
                         " can only create and delete mirror pods");
  }
  if (r.subresource == "status") {
    if (r.operation != "UPDATE" || r.old == nullptr) return refuse(r, "unexpected operation " + util::go_quote(r.operation));
    if (str(at(*r.old, {"spec", "nodeName"})) != node)
      return refuse(r, "node " + quoted + " can only update pod status for pods with spec.nodeName set to itself");
    if (!kinds::semantic_equal(at(r.object, {"metadata", "labels"}), at(*r.old, {"metadata", "labels"})))
      return refuse(r, "node " + quoted + " cannot update labels through pod status");
    if (!same_claim_statuses(at(r.object, {"status", "resourceClaimStatuses"}),
                             at(*r.old, {"status", "resourceClaimStatuses"})))
      return refuse(r, "node " + quoted + " cannot update resource claim statues");
    return {};
  }
  if (r.subresource == "eviction") {
    if (r.operation != "CREATE") return refuse(r, "unexpected operation " + std::string(r.operation));
    std::string pod = r.name.empty() ? str(at(r.object, {"metadata", "name"})) : r.name;
    if (pod.empty()) return refuse(r, "could not determine pod from request data");
    return bound_here(registry, r, pod, node, "node " + node + " can only evict pods with spec.nodeName set to itself");
  }
  return refuse(r, "unexpected pod subresource " + util::go_quote(r.subresource) +
                       ", only 'status' and 'eviction' are allowed");
}

ApiResult<void> admit_node(const AdmissionRequest& r, const std::string& node) {
  const std::string quoted = util::go_quote(node);
  const std::string requested = requested_name(r);
  if (requested != node) return refuse(r, "node " + quoted + " is not allowed to modify node " + util::go_quote(requested));
  const json& config_source = at(r.object, {"spec", "configSource"});
  if (r.operation == "CREATE") {
    if (!config_source.is_null())
      return refuse(r, "node " + quoted + " is not allowed to create pods with a non-nil configSource");
    if (auto labels = forbidden_label_changes(at(r.object, {"metadata", "labels"}), json()); !labels.empty())
      return refuse(r, "node " + quoted + " is not allowed to set the following labels: " + api::print::join(labels, ", "));
  }
  if (r.operation == "UPDATE" && r.old != nullptr) {
    if (!config_source.is_null() && !kinds::semantic_equal(config_source, at(*r.old, {"spec", "configSource"})))
      return refuse(r, "node " + quoted + " is not allowed to update configSource to a new non-nil configSource");
    if (!kinds::semantic_equal(at(r.object, {"spec", "taints"}), at(*r.old, {"spec", "taints"})))
      return refuse(r, "node " + quoted + " is not allowed to modify taints");
    if (auto labels = forbidden_label_changes(at(r.object, {"metadata", "labels"}), at(*r.old, {"metadata", "labels"}));
        !labels.empty())
      return refuse(r, "is not allowed to modify labels: " + api::print::join(labels, ", "));
  }
  return {};
}

// A claim's status from a node: only status.capacity, status.conditions and the expansion
// recovery fields may change.
ApiResult<void> admit_claim(const AdmissionRequest& r, const std::string& node) {
  if (r.subresource != "status") return refuse(r, "may only update PVC status");
  if (r.operation != "UPDATE" || r.old == nullptr) return refuse(r, "unexpected operation " + util::go_quote(r.operation));
  auto comparable = [](json claim) {
    if (claim["metadata"].is_object()) {
      claim["metadata"].erase("resourceVersion");
      claim["metadata"].erase("managedFields");
    }
    if (claim["status"].is_object())
      for (const char* field : {"capacity", "conditions", "allocatedResources", "allocatedResourceStatuses"})
        claim["status"].erase(field);
    return claim;
  };
  const json before = comparable(*r.old);
  const json after = comparable(r.object);
  if (!kinds::semantic_equal(before, after))
    return refuse(r, "node " + util::go_quote(node) +
                         " is not allowed to update fields other than status.capacity and status.conditions: " +
                         json::diff(before, after).dump());
  return {};
}

ApiResult<void> admit_token(registry::Registry& registry, const AdmissionRequest& r, const std::string& node) {
  if (r.operation != "CREATE" || r.subresource != "token") return {};
  const json& ref = at(r.object, {"spec", "boundObjectRef"});
  if (!ref.is_object() || str(at(ref, {"apiVersion"})) != "v1" || str(at(ref, {"kind"})) != "Pod" ||
      str(at(ref, {"name"})).empty())
    return refuse(r, "node requested token not bound to a pod");
  const std::string uid = str(at(ref, {"uid"}));
  if (uid.empty()) return refuse(r, "node requested token with a pod binding without a uid");
  const std::string name = str(at(ref, {"name"}));
  auto pod = stored_pod(registry, r, name);
  if (!pod) return refuse(r, pod.error().message);
  if (!*pod) return std::unexpected(registry::not_found("", "pods", name));
  if (str(at(**pod, {"metadata", "uid"})) != uid)
    return refuse(r, "the UID in the bound object reference (" + uid +
                         ") does not match the UID in record. The object might have been deleted and then recreated");
  if (str(at(**pod, {"spec", "nodeName"})) != node)
    return refuse(r, "node requested token bound to a pod scheduled on a different node");
  return {};
}

ApiResult<void> admit_own_object(const AdmissionRequest& r, const std::string& node, const char* what) {
  if (requested_name(r) != node)
    return refuse(r, std::string("can only access ") + what + " with the same name as the requesting node");
  return {};
}

}  // namespace

registry::AdmissionMutation node_restriction(registry::Registry& registry) {
  return [&registry](const AdmissionRequest& r, json&) -> ApiResult<void> {
    if (r.operation != "CREATE" && r.operation != "UPDATE" && r.operation != "DELETE") return {};
    // (most requests are not a kubelet's: the user's name tells before anything is parsed)
    if (!r.user.is_object() || !r.user.value("username", std::string()).starts_with("system:node:")) return {};
    const auto user = auth::user_info_from_json(r.user);
    const auto node = auth::node_identity(user);
    if (!node) return {};
    if (node->empty()) return refuse(r, "could not determine node from user " + util::go_quote(user.name));
    const auto& group = r.info.group;
    const auto& plural = r.info.plural;
    if (group.empty() && plural == "pods") return admit_pod(registry, r, *node);
    if (group.empty() && plural == "nodes") return admit_node(r, *node);
    if (group.empty() && plural == "persistentvolumeclaims") return admit_claim(r, *node);
    if (group.empty() && plural == "serviceaccounts") return admit_token(registry, r, *node);
    if (group == "coordination.k8s.io" && plural == "leases") {
      if (r.namespace_ != k_node_lease_namespace)
        return refuse(r, "can only access leases in the " + util::go_quote(k_node_lease_namespace) + " system namespace");
      return admit_own_object(r, *node, "node lease");
    }
    if (group == "storage.k8s.io" && plural == "csinodes") return admit_own_object(r, *node, "CSINode");
    return {};
  };
}

}  // namespace kw::admission
