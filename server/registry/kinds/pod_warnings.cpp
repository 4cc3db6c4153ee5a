#include "server/registry/kinds/pod_warnings.hpp"

#include <initializer_list>
#include <map>
#include <set>
#include <string_view>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

// Node labels kube warns about where a pod selects nodes by them.
const std::map<std::string_view, std::string_view>& deprecated_node_labels() {
  static const std::map<std::string_view, std::string_view> labels = {
      {"beta.kubernetes.io/arch", R"(deprecated since v1.14; use "kubernetes.io/arch" instead)"},
      {"beta.kubernetes.io/os", R"(deprecated since v1.14; use "kubernetes.io/os" instead)"},
      {"failure-domain.beta.kubernetes.io/region", R"(deprecated since v1.17; use "topology.kubernetes.io/region" instead)"},
      {"failure-domain.beta.kubernetes.io/zone", R"(deprecated since v1.17; use "topology.kubernetes.io/zone" instead)"},
      {"beta.kubernetes.io/instance-type", R"(deprecated since v1.17; use "node.kubernetes.io/instance-type" instead)"},
      {"app.kubernetes.io/created-by", "deprecated since v1.9"},
      {"scheduler.alpha.kubernetes.io/preferAvoidPods", "deprecated since v1.22; use Taints and Tolerations instead"},
      {"node-role.kubernetes.io/master", R"(use "node-role.kubernetes.io/control-plane" instead)"},
  };
  return labels;
}

std::string_view deprecated_label(const std::string& key) {
  const auto found = deprecated_node_labels().find(key);
  return found == deprecated_node_labels().end() ? std::string_view() : found->second;
}

// A member of a field path ("" for a Pod's own fields); the index and key forms are checks.hpp's.
std::string child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

void node_selector_term(const json& term, const std::string& path, std::vector<std::string>& out) {
  const json& expressions = api::arr(at(term, {"matchExpressions"}));
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const std::string label = str(at(expressions[i], {"key"}));
    if (const auto why = deprecated_label(label); !why.empty())
      out.push_back(child(index_path(child(path, "matchExpressions"), i), "key") + ": " + label + " is " + std::string(why));
  }
}

void affinity_terms(const json& terms, const std::string& path, bool weighted, std::vector<std::string>& out) {
  if (!terms.is_array()) return;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const json& term = weighted ? at(terms[i], {"podAffinityTerm"}) : terms[i];
    if (!at(term, {"labelSelector"}).is_object())
      out.push_back(child(weighted ? child(index_path(path, i), "podAffinityTerm") : index_path(path, i), "labelSelector") +
                    ": a null labelSelector results in matching no pod");
  }
}

// A quantity of `resources` (byte counts) that is not a whole number of bytes.
void fractional_bytes(const json& list, const std::string& path, std::vector<std::string>& out,
                      std::initializer_list<const char*> resources = {"memory", "ephemeral-storage"}) {
  for (const char* resource : resources) {
    const json& value = at(list, {resource});
    if (!value.is_string()) continue;
    auto quantity = api::parse_go_quantity(std::string_view(value.get_ref<const std::string&>()));
    if (quantity && quantity->milli_value() % 1000 != 0)
      out.push_back(key_path(path, resource) + ": fractional byte value " + util::go_quote(quantity->string()) +
                    " is invalid, must be an integer");
  }
}

// The beta storage-class annotation of a claim or volume.
void beta_storage_class(const json& object, std::vector<std::string>& out) {
  constexpr const char* k_beta_class = "volume.beta.kubernetes.io/storage-class";
  if (const json& annotations = at(object, {"metadata", "annotations"});
      annotations.is_object() && annotations.contains(k_beta_class))
    out.push_back(key_path("metadata.annotations", k_beta_class) +
                  R"(: deprecated since v1.8; use "storageClassName" attribute instead)");
}

// Every container with its path: init containers, containers, ephemeral containers.
template <typename Visit>
void visit_containers(const json& spec, const std::string& spec_path, Visit visit) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const json& containers = api::arr(at(spec, {list}));
    for (std::size_t i = 0; i < containers.size(); ++i) visit(containers[i], index_path(child(spec_path, list), i));
  }
}

// Go's %+v of a core/v1 ContainerPort.
std::string port_struct(const json& port) {
  return "{Name:" + str(at(port, {"name"})) + " HostPort:" + std::to_string(at(port, {"hostPort"}).is_number() ? at(port, {"hostPort"}).get<int>() : 0) +
         " ContainerPort:" + std::to_string(at(port, {"containerPort"}).is_number() ? at(port, {"containerPort"}).get<int>() : 0) +
         " Protocol:" + str(at(port, {"protocol"})) + " HostIP:" + str(at(port, {"hostIP"})) + "}";
}

void container_warnings(const json& meta, const json& spec_of_pod, const json& container, const std::string& path,
                        const std::string& meta_path, bool template_path, std::vector<std::string>& out) {
  const json& annotations = at(meta, {"annotations"});
  const std::string name = str(at(container, {"name"}));
  if (!at(container, {"securityContext", "seccompProfile"}).is_object()) {
    const std::string annotation = "container.seccomp.security.alpha.kubernetes.io/" + name;
    if (annotations.is_object() && annotations.contains(annotation))
      out.push_back(key_path(child(meta_path, "annotations"), annotation) +
                    R"(: non-functional in v1.27+; use the "seccompProfile" field instead)");
  }
  // (a Pod's own AppArmor annotations are turned into fields instead)
  if (template_path && !at(spec_of_pod, {"securityContext", "appArmorProfile"}).is_object() &&
      !at(container, {"securityContext", "appArmorProfile"}).is_object()) {
    const std::string annotation = "container.apparmor.security.beta.kubernetes.io/" + name;
    if (annotations.is_object() && annotations.contains(annotation))
      out.push_back(key_path(child(meta_path, "annotations"), annotation) +
                    R"(: deprecated since v1.30; use the "appArmorProfile" field instead)");
  }
  fractional_bytes(at(container, {"resources", "limits"}), child(child(path, "resources"), "limits"), out);
  fractional_bytes(at(container, {"resources", "requests"}), child(child(path, "resources"), "requests"), out);
  // An env name given twice, where the later one does not build on the earlier.
  const json& env = api::arr(at(container, {"env"}));
  std::set<std::string> names;
  for (std::size_t i = 0; i < env.size(); ++i) {
    const std::string env_name = str(at(env[i], {"name"}));
    if (names.insert(env_name).second) continue;
    const std::string value = str(at(env[i], {"value"}));
    const std::string ref = "$(" + env_name + ")";
    if (at(env[i], {"valueFrom"}).is_object() || value == ref || value.find(ref) == std::string::npos)
      out.push_back(index_path(child(path, "env"), i) + ": hides previous definition of " + util::go_quote(env_name) +
                    ", which may be dropped when using apply");
  }
}

struct PortSeen {
  std::string path;
  std::string host_ip;
  std::int64_t host_port;
};

void port_warnings(const json& spec, const std::string& spec_path, std::vector<std::string>& out) {
  std::map<std::string, std::vector<PortSeen>> seen;  // "80/TCP" -> the ports declared so far
  visit_containers(spec, spec_path, [&](const json& container, const std::string& path) {
    const json& ports = api::arr(at(container, {"ports"}));
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const json& port = ports[i];
      const std::string port_path = index_path(child(path, "ports"), i);
      const std::string host_ip = str(at(port, {"hostIP"}));
      const std::int64_t host_port = at(port, {"hostPort"}).is_number() ? at(port, {"hostPort"}).get<std::int64_t>() : 0;
      if (!host_ip.empty() && host_port == 0)
        out.push_back(port_path + ": hostIP set without hostPort: " + port_struct(port));
      const std::int64_t container_port =
          at(port, {"containerPort"}).is_number() ? at(port, {"containerPort"}).get<std::int64_t>() : 0;
      auto& others = seen[std::to_string(container_port) + "/" + str(at(port, {"protocol"}))];
      for (const auto& other : others) {
        if (host_ip == other.host_ip && host_port == other.host_port)
          out.push_back(port_path + ": duplicate port definition with " + other.path);
        else if (host_port == 0 || other.host_port == 0)
          out.push_back(port_path + ": overlapping port definition with " + other.path);
        else if (host_port == other.host_port && (host_ip.empty() != other.host_ip.empty()))
          out.push_back(port_path + ": dangerously ambiguous port definition with " + other.path);
      }
      others.push_back({port_path, host_ip, host_port});
    }
  });
}

}  // namespace

void claim_spec_warnings(const nlohmann::json& spec, const std::string& path, std::vector<std::string>& out) {
  const std::string resources = child(path, "resources");
  fractional_bytes(at(spec, {"resources", "requests"}), child(resources, "requests"), out, {"storage"});
  fractional_bytes(at(spec, {"resources", "limits"}), child(resources, "limits"), out, {"storage"});
}

void claim_warnings(const nlohmann::json& claim, std::vector<std::string>& out) {
  beta_storage_class(claim, out);
  claim_spec_warnings(at(claim, {"spec"}), "spec", out);
}

void volume_warnings(const nlohmann::json& volume, std::vector<std::string>& out) {
  beta_storage_class(volume, out);
  const json& spec = at(volume, {"spec"});
  if (str(at(spec, {"persistentVolumeReclaimPolicy"})) == "Recycle")
    out.push_back("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the "
                  "recommended approach is to use dynamic provisioning.");
  const json& terms = api::arr(at(spec, {"nodeAffinity", "required", "nodeSelectorTerms"}));
  for (std::size_t i = 0; i < terms.size(); ++i)
    node_selector_term(terms[i], index_path("spec.nodeAffinity.required.nodeSelectorTerms", i), out);
  static constexpr std::pair<std::string_view, std::string_view> k_old_plugins[] = {
      {"cephfs", "deprecated in v1.28, non-functional in v1.31+"},
      {"photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
      {"scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
      {"storageos", "deprecated in v1.22, non-functional in v1.25+"},
      {"glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
      {"rbd", "deprecated in v1.28, non-functional in v1.31+"},
  };
  for (const auto& [plugin, why] : k_old_plugins)
    if (spec.is_object() && spec.contains(std::string(plugin)))
      out.push_back(child("spec", plugin == "storageos" ? "storageOS" : plugin) + ": " + std::string(why));
}

void pod_warnings(const nlohmann::json& holder, const std::string& path, std::vector<std::string>& out) {
  const json& spec = at(holder, {"spec"});
  const json& meta = at(holder, {"metadata"});
  const std::string spec_path = child(path, "spec");
  const std::string meta_path = child(path, "metadata");

  // Deprecated node labels in node selection (map keys sorted: Go's order is random).
  if (const json& selector = at(spec, {"nodeSelector"}); selector.is_object())
    for (const auto& [label, value] : selector.items())
      if (const auto why = deprecated_label(label); !why.empty())
        out.push_back(key_path(child(spec_path, "nodeSelector"), label) + ": " + std::string(why));
  const json& node_affinity = at(spec, {"affinity", "nodeAffinity"});
  const std::string node_affinity_path = child(child(spec_path, "affinity"), "nodeAffinity");
  {
    const json& terms = api::arr(at(node_affinity, {"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}));
    const std::string terms_path = child(child(node_affinity_path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    for (std::size_t i = 0; i < terms.size(); ++i) node_selector_term(terms[i], index_path(terms_path, i), out);
    const json& preferred = api::arr(at(node_affinity, {"preferredDuringSchedulingIgnoredDuringExecution"}));
    const std::string preferred_path = child(node_affinity_path, "preferredDuringSchedulingIgnoredDuringExecution");
    for (std::size_t i = 0; i < preferred.size(); ++i)
      node_selector_term(at(preferred[i], {"preference"}), child(index_path(preferred_path, i), "preference"), out);
  }
  const json& spread = api::arr(at(spec, {"topologySpreadConstraints"}));
  for (std::size_t i = 0; i < spread.size(); ++i) {
    const std::string at_path = index_path(child(spec_path, "topologySpreadConstraints"), i);
    const std::string topology_key = str(at(spread[i], {"topologyKey"}));
    if (const auto why = deprecated_label(topology_key); !why.empty())
      out.push_back(child(at_path, "topologyKey") + ": " + topology_key + " is " + std::string(why));
    if (!at(spread[i], {"labelSelector"}).is_object())
      out.push_back(child(at_path, "labelSelector") + ": a null labelSelector results in matching no pod");
  }

  // Annotations that stopped working.
  const json& annotations = at(meta, {"annotations"});
  static constexpr std::pair<std::string_view, std::string_view> k_dead_annotations[] = {
      {"scheduler.alpha.kubernetes.io/critical-pod", R"(non-functional in v1.16+; use the "priorityClassName" field instead)"},
      {"security.alpha.kubernetes.io/sysctls", R"(non-functional in v1.11+; use the "sysctls" field instead)"},
      {"security.alpha.kubernetes.io/unsafe-sysctls", R"(non-functional in v1.11+; use the "sysctls" field instead)"},
  };
  for (const auto& [annotation, why] : k_dead_annotations)
    if (annotations.is_object() && annotations.contains(std::string(annotation)))
      out.push_back(key_path(child(meta_path, "annotations"), std::string(annotation)) + ": " + std::string(why));

  // Volume types that are deprecated or gone.
  static constexpr std::pair<std::string_view, std::string_view> k_old_volumes[] = {
      {"photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
      {"gitRepo", "deprecated in v1.11"},
      {"scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
      {"flocker", "deprecated in v1.22, non-functional in v1.25+"},
      {"storageos", "deprecated in v1.22, non-functional in v1.25+"},
      {"quobyte", "deprecated in v1.22, non-functional in v1.25+"},
      {"glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
      {"cephfs", "deprecated in v1.28, non-functional in v1.31+"},
      {"rbd", "deprecated in v1.28, non-functional in v1.31+"},
  };
  const json& volumes = api::arr(at(spec, {"volumes"}));
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    const std::string volume_path = index_path(child(spec_path, "volumes"), i);
    for (const auto& [type, why] : k_old_volumes) {
      if (type == "cephfs")  // kube looks at an ephemeral volume's claim template between glusterfs and cephfs
        if (const json& claim = at(volumes[i], {"ephemeral", "volumeClaimTemplate"}); claim.is_object())
          claim_spec_warnings(at(claim, {"spec"}), child(child(child(volume_path, "ephemeral"), "volumeClaimTemplate"), "spec"),
                              out);
      if (volumes[i].contains(std::string(type)))
        out.push_back(child(volume_path, type == "storageos" ? "storageOS" : type) + ": " + std::string(why));
    }
  }

  // Projected files at the path of the service account token.
  std::set<std::string> token_paths;
  for (const auto& volume : volumes)
    for (const auto& source : api::arr(at(volume, {"projected", "sources"})))
      if (const json& token = at(source, {"serviceAccountToken"}); token.is_object()) token_paths.insert(str(at(token, {"path"})));
  if (!token_paths.empty()) {
    for (std::size_t i = 0; i < volumes.size(); ++i) {
      const std::string sources_path = child(child(index_path(child(spec_path, "volumes"), i), "projected"), "sources");
      for (const auto& source : api::arr(at(volumes[i], {"projected", "sources"}))) {
        const auto duplicated = [&](const json& items, const std::string& items_path) {
          if (!items.is_array()) return;
          for (std::size_t j = 0; j < items.size(); ++j)
            if (const std::string file = str(at(items[j], {"path"})); token_paths.contains(file))
              out.push_back(index_path(items_path, j) + ": has duplicated path with ServiceAccountToken " + util::go_quote(file));
        };
        if (at(source, {"configMap"}).is_object()) duplicated(at(source, {"configMap", "items"}), child(sources_path, "configMap"));
        if (at(source, {"secret"}).is_object()) duplicated(at(source, {"secret", "items"}), child(sources_path, "secrets"));
        if (at(source, {"downwardAPI"}).is_object())
          duplicated(at(source, {"downwardAPI", "items"}), child(sources_path, "downwardAPI"));
        if (const json& bundle = at(source, {"clusterTrustBundle"}); bundle.is_object())
          if (const std::string file = str(at(bundle, {"path"})); token_paths.contains(file))
            out.push_back(child(sources_path, "ClusterTrustBundle") + ": has duplicated path with ServiceAccountToken " +
                          util::go_quote(file));
      }
    }
  }

  // Repeated host aliases and image pull secrets; pull secrets without a name.
  const auto duplicates = [&](const char* list, const char* field, const char* what) {
    const json& items = api::arr(at(spec, {list}));
    std::set<std::string> seen;
    if (items.size() < 2) return;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (const std::string value = str(at(items[i], {field})); !seen.insert(value).second)
        out.push_back(child(index_path(child(spec_path, list), i), field) + ": duplicate " + what + " " + util::go_quote(value));
  };
  duplicates("hostAliases", "ip", "ip");
  duplicates("imagePullSecrets", "name", "name");
  const json& pull_secrets = api::arr(at(spec, {"imagePullSecrets"}));
  for (std::size_t i = 0; i < pull_secrets.size(); ++i)
    if (str(at(pull_secrets[i], {"name"})).empty())
      out.push_back(child(index_path(child(spec_path, "imagePullSecrets"), i), "name") + R"(: invalid empty name "")");

  fractional_bytes(at(spec, {"overhead"}), child(spec_path, "overhead"), out);

  if (!at(spec, {"securityContext", "seccompProfile"}).is_object() && annotations.is_object() &&
      annotations.contains("seccomp.security.alpha.kubernetes.io/pod"))
    out.push_back(key_path(child(meta_path, "annotations"), "seccomp.security.alpha.kubernetes.io/pod") +
                  R"(: non-functional in v1.27+; use the "seccompProfile" field instead)");

  visit_containers(spec, spec_path, [&](const json& container, const std::string& container_path) {
    container_warnings(meta, spec, container, container_path, meta_path, !path.empty(), out);
  });
  port_warnings(spec, spec_path, out);

  if (const json& grace = at(spec, {"terminationGracePeriodSeconds"}); grace.is_number_integer() && grace.get<std::int64_t>() < 0)
    out.push_back(child(spec_path, "terminationGracePeriodSeconds") +
                  ": must be >= 0; negative values are invalid and will be treated as 1");

  const std::string affinity_path = child(spec_path, "affinity");
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const json& affinity = at(spec, {"affinity", kind});
    if (!affinity.is_object()) continue;
    affinity_terms(at(affinity, {"requiredDuringSchedulingIgnoredDuringExecution"}),
                   child(child(affinity_path, kind), "requiredDuringSchedulingIgnoredDuringExecution"), false, out);
    affinity_terms(at(affinity, {"preferredDuringSchedulingIgnoredDuringExecution"}),
                   child(child(affinity_path, kind), "preferredDuringSchedulingIgnoredDuringExecution"), true, out);
  }
}

void pod_write_warnings(const nlohmann::json& pod, const nlohmann::json*, std::vector<std::string>& out) {
  pod_warnings(pod, "", out);
}

void claim_write_warnings(const nlohmann::json& claim, const nlohmann::json*, std::vector<std::string>& out) {
  claim_warnings(claim, out);
}

void volume_write_warnings(const nlohmann::json& volume, const nlohmann::json*, std::vector<std::string>& out) {
  volume_warnings(volume, out);
}

void stateful_set_warnings(const nlohmann::json& stateful_set, const nlohmann::json* old, std::vector<std::string>& out) {
  const json& claims = api::arr(at(stateful_set, {"spec", "volumeClaimTemplates"}));
  for (std::size_t i = 0; i < claims.size(); ++i)
    claim_spec_warnings(at(claims[i], {"spec"}), index_path("spec.volumeClaimTemplates", i) + (old ? ".Spec" : ""), out);
}

}  // namespace kw::kinds
