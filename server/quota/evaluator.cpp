#include "server/quota/evaluator.hpp"

#include <algorithm>
#include <set>

#include "core/api/print_support.hpp"
#include "core/api/selector.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::quota {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

const json k_empty = json::array();
const json& items(const json& value) { return value.is_array() ? value : k_empty; }

api::GoQuantity count(std::int64_t n) { return api::scaled_quantity(n, 0); }

// The names a pod's usage can have besides the prefixed ones.
const std::set<std::string> k_pod_resources = {
    "count/pods",  "cpu",         "memory",          "ephemeral-storage", "requests.cpu",
    "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage", "pods"};
// The names a pod must request in every container when a quota limits them.
const std::set<std::string> k_pod_validated = {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu",
                                               "limits.memory"};
const std::set<std::string> k_service_resources = {"count/services", "services", "services.nodeports",
                                                   "services.loadbalancers"};
const std::set<std::string> k_claim_resources = {"count/persistentvolumeclaims", "persistentvolumeclaims",
                                                 "requests.storage"};
constexpr std::string_view k_storage_class_suffix = ".storageclass.storage.k8s.io/";

// The legacy object-count names of four core resources.
std::string legacy_alias(const std::string& group, const std::string& resource) {
  if (!group.empty()) return "";
  for (const char* r : {"configmaps", "secrets", "replicationcontrollers", "resourcequotas"})
    if (resource == r) return resource;
  return "";
}

// podComputeUsageHelper: one pod's (or container's) compute usage from its requests and limits.
ResourceList compute_usage(const ResourceList& requests, const ResourceList& limits) {
  ResourceList out = {{"pods", count(1)}};
  for (const char* name : {"cpu", "memory", "ephemeral-storage"}) {
    if (const auto r = requests.find(name); r != requests.end()) {
      out[name] = r->second;
      out[std::string("requests.") + name] = r->second;
    }
    if (const auto l = limits.find(name); l != limits.end()) out[std::string("limits.") + name] = l->second;
  }
  for (const auto& [name, value] : requests) {
    if (name.starts_with("hugepages-")) {
      out[name] = value;
      out["requests." + name] = value;
    }
    if (kinds::is_extended_resource(name)) out["requests." + name] = value;
  }
  return out;
}

// QuotaV1Pod: a pod that finished, or is past its deletion grace period, uses no compute resources.
bool counts_compute(const json& pod, std::chrono::system_clock::time_point now) {
  const std::string phase = str(at(pod, {"status", "phase"}));
  if (phase == "Succeeded" || phase == "Failed") return false;
  const json& deletion = at(pod, {"metadata", "deletionTimestamp"});
  const json& grace = at(pod, {"metadata", "deletionGracePeriodSeconds"});
  if (deletion.is_string() && grace.is_number_integer()) {
    const auto deleted = api::print::time_of(deletion);
    if (deleted && now > *deleted + std::chrono::seconds(grace.get<std::int64_t>())) return false;
  }
  return true;
}

ResourceList pod_usage(const json& pod, std::chrono::system_clock::time_point now) {
  ResourceList out = {{"count/pods", count(1)}};
  if (!counts_compute(pod, now)) return out;
  ResourceList requests, limits;
  for (const auto& c : items(at(pod, {"spec", "containers"}))) {
    requests = add(requests, resource_list(at(c, {"resources", "requests"})));
    limits = add(limits, resource_list(at(c, {"resources", "limits"})));
  }
  // Init containers run one at a time before the others: the largest of them counts if it is
  // more than the sum of the rest.
  for (const auto& c : items(at(pod, {"spec", "initContainers"}))) {
    requests = max(requests, resource_list(at(c, {"resources", "requests"})));
    limits = max(limits, resource_list(at(c, {"resources", "limits"})));
  }
  const ResourceList overhead = resource_list(at(pod, {"spec", "overhead"}));
  requests = add(requests, overhead);
  limits = add(limits, overhead);
  return add(out, compute_usage(requests, limits));
}

ResourceList service_usage(const json& service) {
  const auto ports = static_cast<std::int64_t>(items(at(service, {"spec", "ports"})).size());
  ResourceList out = {{"count/services", count(1)},
                      {"services", count(1)},
                      {"services.loadbalancers", count(0)},
                      {"services.nodeports", count(0)}};
  const std::string type = str(at(service, {"spec", "type"}));
  if (type == "NodePort") {
    out["services.nodeports"] = count(ports);
  } else if (type == "LoadBalancer") {
    // Without node port allocation only the ports given a node port explicitly take one.
    std::int64_t node_ports = ports;
    if (at(service, {"spec", "allocateLoadBalancerNodePorts"}) == json(false)) {
      node_ports = 0;
      for (const auto& port : items(at(service, {"spec", "ports"})))
        if (const json& n = at(port, {"nodePort"}); n.is_number_integer() && n.get<std::int64_t>() != 0) ++node_ports;
    }
    out["services.nodeports"] = count(node_ports);
    out["services.loadbalancers"] = count(1);
  }
  return out;
}

ResourceList claim_usage(const json& claim) {
  ResourceList out = {{"persistentvolumeclaims", count(1)}, {"count/persistentvolumeclaims", count(1)}};
  // GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName.
  std::string storage_class = str(at(claim, {"spec", "storageClassName"}));
  if (const json& beta = at(claim, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
      beta.is_string())
    storage_class = beta.get<std::string>();
  if (!storage_class.empty())
    out[storage_class + std::string(k_storage_class_suffix) + "persistentvolumeclaims"] = count(1);
  const ResourceList requests = resource_list(at(claim, {"spec", "resources", "requests"}));
  if (const auto storage = requests.find("storage"); storage != requests.end()) {
    api::GoQuantity rounded = storage->second;
    rounded.round_up(0);  // whole bytes
    out["requests.storage"] = rounded;
    if (!storage_class.empty()) out[storage_class + std::string(k_storage_class_suffix) + "requests.storage"] = rounded;
  }
  return out;
}

// The pod's affinity terms name other namespaces (namespaces or namespaceSelector).
bool cross_namespace_affinity(const json& pod) {
  const auto crosses = [](const json& term) {
    return !items(at(term, {"namespaces"})).empty() || at(term, {"namespaceSelector"}).is_object();
  };
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const json& affinity = at(pod, {"spec", "affinity", kind});
    for (const auto& term : items(at(affinity, {"requiredDuringSchedulingIgnoredDuringExecution"})))
      if (crosses(term)) return true;
    for (const auto& weighted : items(at(affinity, {"preferredDuringSchedulingIgnoredDuringExecution"})))
      if (crosses(at(weighted, {"podAffinityTerm"}))) return true;
  }
  return false;
}

// A PriorityClass requirement: a label selector on {"PriorityClass": the pod's class}.
Result<bool> priority_class_matches(const json& requirement, const json& pod) {
  const std::string op = str(at(requirement, {"operator"}));
  if (op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist")
    return fail("\"" + op + "\" is not a valid scope selector operator");
  json expression = {{"key", str(at(requirement, {"scopeName"}))}, {"operator", op}};
  if (at(requirement, {"values"}).is_array()) expression["values"] = at(requirement, {"values"});
  auto selector = api::LabelSelector::from_label_selector_json({{"matchExpressions", json::array({expression})}});
  if (!selector) return std::unexpected(selector.error());
  std::map<std::string, std::string> labels;
  if (const std::string name = str(at(pod, {"spec", "priorityClassName"})); !name.empty()) labels["PriorityClass"] = name;
  return selector->matches(labels);
}

}  // namespace

Evaluator::Evaluator(std::string group, std::string resource, Kind kind, std::string alias)
    : m_group(std::move(group)), m_resource(std::move(resource)), m_kind(kind), m_alias(std::move(alias)) {
  m_count_name = "count/" + m_resource + (m_group.empty() ? "" : "." + m_group);
}

Evaluator Evaluator::of(std::string group, std::string resource) {
  Kind kind = Kind::count;
  if (group.empty() && resource == "pods") kind = Kind::pods;
  if (group.empty() && resource == "services") kind = Kind::services;
  if (group.empty() && resource == "persistentvolumeclaims") kind = Kind::claims;
  std::string alias = legacy_alias(group, resource);
  return Evaluator(std::move(group), std::move(resource), kind, std::move(alias));
}

bool Evaluator::handles(std::string_view operation) const {
  if (operation == "CREATE") return true;
  return operation == "UPDATE" && (m_kind == Kind::services || m_kind == Kind::claims);
}

std::vector<std::string> Evaluator::matching_resources(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& name : names) {
    bool match = false;
    switch (m_kind) {
      case Kind::pods:
        match = k_pod_resources.contains(name) || name.starts_with("hugepages-") ||
                name.starts_with("requests.hugepages-") ||
                (!kinds::is_native_resource(name) && name.starts_with("requests."));
        break;
      case Kind::services: match = k_service_resources.contains(name); break;
      case Kind::claims:
        match = k_claim_resources.contains(name) ||
                name.ends_with(std::string(k_storage_class_suffix) + "persistentvolumeclaims") ||
                name.ends_with(std::string(k_storage_class_suffix) + "requests.storage");
        break;
      case Kind::count: match = name == m_count_name || (!m_alias.empty() && name == m_alias); break;
    }
    if (match) out.push_back(name);
  }
  return out;
}

Result<bool> Evaluator::in_scope(const json& requirement, const json& object) const {
  if (m_kind != Kind::pods) return false;
  const std::string scope = str(at(requirement, {"scopeName"}));
  const json& deadline = at(object, {"spec", "activeDeadlineSeconds"});
  const bool terminating = deadline.is_number_integer() && deadline.get<std::int64_t>() >= 0;
  const bool best_effort = kinds::pod_qos_class(object) == "BestEffort";
  if (scope == "Terminating") return terminating;
  if (scope == "NotTerminating") return !terminating;
  if (scope == "BestEffort") return best_effort;
  if (scope == "NotBestEffort") return !best_effort;
  if (scope == "PriorityClass") return priority_class_matches(requirement, object);
  if (scope == "CrossNamespacePodAffinity") return cross_namespace_affinity(object);
  return false;
}

Result<bool> Evaluator::matches(const json& quota, const json& object) const {
  if (matching_resources(names(resource_list(at(quota, {"status", "hard"}))))
          .empty())
    return false;
  for (const auto& requirement : scope_selectors(quota)) {
    auto in = in_scope(requirement, object);
    if (!in || !*in) return in;
  }
  return true;
}

std::string Evaluator::constraints(const std::vector<std::string>& required, const json& object) const {
  if (m_kind != Kind::pods) return "";
  std::set<std::string> wanted;
  for (const auto& name : required)
    if (k_pod_validated.contains(name)) wanted.insert(name);
  std::set<std::string> missing;
  for (const char* list : {"containers", "initContainers"})
    for (const auto& c : items(at(object, {"spec", list}))) {
      const ResourceList usage = compute_usage(resource_list(at(c, {"resources", "requests"})),
                                               resource_list(at(c, {"resources", "limits"})));
      for (const auto& name : wanted)
        if (!usage.contains(name)) missing.insert(name);
    }
  if (missing.empty()) return "";
  return "must specify " + pretty_print_names(missing);
}

ResourceList Evaluator::usage(const json& object, std::chrono::system_clock::time_point now) const {
  switch (m_kind) {
    case Kind::pods: return pod_usage(object, now);
    case Kind::services: return service_usage(object);
    case Kind::claims: return claim_usage(object);
    case Kind::count: break;
  }
  ResourceList out = {{m_count_name, count(1)}};
  if (!m_alias.empty()) out[m_alias] = count(1);
  return out;
}

std::vector<json> scope_selectors(const json& quota) {
  std::vector<json> out;
  for (const auto& scope : items(at(quota, {"spec", "scopes"})))
    out.push_back({{"scopeName", scope}, {"operator", "Exists"}});
  for (const auto& expression : items(at(quota, {"spec", "scopeSelector", "matchExpressions"})))
    out.push_back(expression);
  return out;
}

std::vector<Evaluator> evaluators_for(const std::vector<std::string>& names) {
  std::vector<Evaluator> all;
  for (const char* resource :
       {"pods", "services", "persistentvolumeclaims", "configmaps", "secrets", "replicationcontrollers", "resourcequotas"})
    all.push_back(Evaluator::of("", resource));
  for (const auto& name : names) {
    if (!name.starts_with("count/")) continue;
    const std::string counted = name.substr(6);
    const auto dot = counted.find('.');
    std::string resource = counted.substr(0, dot), group = dot == std::string::npos ? "" : counted.substr(dot + 1);
    if (resource.empty()) continue;
    if (std::ranges::none_of(all, [&](const Evaluator& e) { return e.group() == group && e.resource() == resource; }))
      all.push_back(Evaluator::of(std::move(group), std::move(resource)));
  }
  std::vector<Evaluator> out;
  for (auto& evaluator : all)
    if (!evaluator.matching_resources(names).empty()) out.push_back(std::move(evaluator));
  return out;
}

}  // namespace kw::quota
