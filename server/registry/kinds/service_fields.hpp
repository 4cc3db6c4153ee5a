#pragma once
// What a Service's type and fields ask of the server (Kubernetes' pkg/api/service helpers):
// read by the Service row's strategy and by the registry's allocator of cluster IPs and node
// ports.
#include <string>

#include <nlohmann/json.hpp>

namespace kw::kinds::service {

inline std::string type_of(const nlohmann::json& service) {
  const auto spec = service.find("spec");
  if (spec == service.end() || !spec->is_object()) return "ClusterIP";
  const auto type = spec->find("type");
  return type != spec->end() && type->is_string() ? type->get<std::string>() : "ClusterIP";
}

inline const nlohmann::json& spec_field(const nlohmann::json& service, const char* field) {
  static const nlohmann::json null;
  const auto spec = service.find("spec");
  if (spec == service.end() || !spec->is_object()) return null;
  const auto found = spec->find(field);
  return found == spec->end() ? null : *found;
}

// Every type but ExternalName has cluster IPs ("None" for a headless service).
inline bool needs_cluster_ip(const nlohmann::json& service) { return type_of(service) != "ExternalName"; }

inline bool headless(const nlohmann::json& service) { return spec_field(service, "clusterIP") == "None"; }

// NodePort services, and LoadBalancers unless allocateLoadBalancerNodePorts is false.
inline bool needs_node_ports(const nlohmann::json& service) {
  const auto type = type_of(service);
  return type == "NodePort" || (type == "LoadBalancer" && spec_field(service, "allocateLoadBalancerNodePorts") != false);
}

// ExternallyAccessible: reachable from outside through node ports, a load balancer or
// external IPs.
inline bool externally_accessible(const nlohmann::json& service) {
  const auto type = type_of(service);
  const auto& external_ips = spec_field(service, "externalIPs");
  return type == "LoadBalancer" || type == "NodePort" ||
         (type == "ClusterIP" && external_ips.is_array() && !external_ips.empty());
}

// NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local gets a health check port.
inline bool needs_health_check(const nlohmann::json& service) {
  return type_of(service) == "LoadBalancer" && spec_field(service, "externalTrafficPolicy") == "Local";
}

}  // namespace kw::kinds::service
