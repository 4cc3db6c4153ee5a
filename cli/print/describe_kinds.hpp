#pragma once
// kubectl describe's text for one object: the describer of its kind (Pod, Deployment,
// Service, ...) or, for any other kind, custom resources included, the generic one that prints
// the object's fields. Rendering is pure: the verb reads what a describer shows besides the
// object (its events, the pods of a controller, a namespace's quotas) and passes it in.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/print/describe_parts.hpp"

namespace kw::cli::describe {

// What a kind's describer reads from the server besides the object itself.
enum class Need {
  pods,                          // the pods of the object's namespace its selector matches (controllers)
  namespace_pods,                // every pod of the object's namespace (those that mount a claim)
  replica_sets,                  // the ReplicaSets of the namespace (a Deployment's old and new ones)
  quotas_and_limits,             // the namespace's ResourceQuotas and LimitRanges
  node_pods_and_lease,           // the pods bound to the Node that have not ended, and its Lease
  secrets,                       // the Secrets of the namespace (a ServiceAccount's tokens)
  services_and_endpoint_slices,  // the Services of the namespace and the EndpointSlices of those
                                 // shown_services names (a Service's addresses, an Ingress's backends)
};
std::vector<Need> needs_of(std::string_view group, std::string_view kind);
// The Services whose addresses the description of a Service or Ingress shows.
std::set<std::string> shown_services(const nlohmann::json& object);

struct Related {
  std::optional<std::vector<nlohmann::json>> events;  // nullopt: no Events section
  std::vector<nlohmann::json> pods;
  std::vector<nlohmann::json> replica_sets;
  std::optional<std::vector<nlohmann::json>> quotas;        // nullopt: the server has none
  std::optional<std::vector<nlohmann::json>> limit_ranges;  // nullopt: the server has none
  std::optional<std::vector<nlohmann::json>> secrets;       // nullopt: they could not be listed
  std::vector<nlohmann::json> services;
  std::vector<nlohmann::json> endpoint_slices;
  nlohmann::json lease;     // a Node's Lease in kube-node-lease, or null
  std::string lease_error;  // why there is none: the server's message
};

// The description, laid out (tabs aligned) as kubectl prints it.
std::string describe_object(const nlohmann::json& object, const Related& related, TimePoint now);

// The generic describer's body alone (kubectl's printUnstructuredContent), unaligned: for the
// tests and for kinds described by their fields.
void write_fields(Writer& w, int level, const nlohmann::json& content, const std::string& path);
// kubectl's label for a field name ("apiVersion" -> "API Version").
std::string field_label(const std::string& field);

// The describers of each file (describe_core.cpp, describe_workloads.cpp, ...): null for a kind
// the file has none for.
using Describer = void (*)(Writer& w, const nlohmann::json& object, const Related& related, TimePoint now);
Describer core_describer(std::string_view group, std::string_view kind);
Describer workload_describer(std::string_view group, std::string_view kind);
Describer storage_describer(std::string_view group, std::string_view kind);
Describer rbac_describer(std::string_view group, std::string_view kind);
Describer network_describer(std::string_view group, std::string_view kind);
Describer policy_describer(std::string_view group, std::string_view kind);
void describe_node(Writer& w, const nlohmann::json& node, const Related& related, TimePoint now);
// The pods of `related` that `owner` controls, counted by phase: "R Running / W Waiting / S
// Succeeded / F Failed".
std::string pod_status_counts(const nlohmann::json& owner, const std::vector<nlohmann::json>& pods);
// "Controlled By:\tKind/name" when the object has a controller.
void write_controller(Writer& w, const nlohmann::json& object);

}  // namespace kw::cli::describe
