// core/v1 Service: SetDefaults_Service, the service strategy's create and update preparation
// (pkg/registry/core/service/strategy.go and the values storage patches back in on updates) and
// ValidateService. The cluster IPs and node ports themselves are the registry's
// (server/registry/service_allocator.hpp): it fills in what this row leaves empty.
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/core_v1_print.hpp"
#include "server/registry/kinds/service_fields.hpp"

namespace kw::kinds {
namespace {

using api::print::age_col;
using api::print::at;
using api::print::col;
using api::print::name_col;
using api::print::str;
using nlohmann::json;

constexpr std::int64_t k_client_ip_timeout_default = 10800;  // three hours
constexpr std::int64_t k_client_ip_timeout_max = 86400;

// SetDefaults_Service.
void default_service(json& service) {
  auto& spec = object_member(service, "spec");
  default_string(spec, "sessionAffinity", "None");
  if (str(spec["sessionAffinity"]) == "None") spec.erase("sessionAffinityConfig");
  if (str(spec["sessionAffinity"]) == "ClientIP" &&
      !at(spec, {"sessionAffinityConfig", "clientIP", "timeoutSeconds"}).is_number())
    spec["sessionAffinityConfig"] = {{"clientIP", {{"timeoutSeconds", k_client_ip_timeout_default}}}};
  default_string(spec, "type", "ClusterIP");
  if (auto ports = spec.find("ports"); ports != spec.end() && ports->is_array())
    for (auto& port : *ports) {
      if (!port.is_object()) continue;
      default_string(port, "protocol", "TCP");
      const auto target = port.find("targetPort");
      const bool zero = target == port.end() || target->is_null() || *target == json(0) || *target == json("");
      if (zero && port.contains("port")) port["targetPort"] = port["port"];
    }
  const auto type = str(spec["type"]);
  if (service::externally_accessible(service)) default_string(spec, "externalTrafficPolicy", "Cluster");
  if (unset(spec, "internalTrafficPolicy") && one_of(type, {"ClusterIP", "NodePort", "LoadBalancer"}))
    spec["internalTrafficPolicy"] = "Cluster";
  if (type == "LoadBalancer") default_value(spec, "allocateLoadBalancerNodePorts", true);
  if (type != "LoadBalancer") return;
  // Load balancer addresses are VIPs unless the controller says otherwise (LoadBalancerIPMode).
  const auto status = service.find("status");
  if (status == service.end() || !status->is_object()) return;
  const auto balancer = status->find("loadBalancer");
  if (balancer == status->end() || !balancer->is_object()) return;
  const auto ingress = balancer->find("ingress");
  if (ingress == balancer->end() || !ingress->is_array()) return;
  for (auto& entry : *ingress)
    if (entry.is_object() && !str(entry.value("ip", json())).empty()) default_string(entry, "ipMode", "VIP");
}

// NormalizeClusterIPs: a client that set only clusterIP (or only changed it) gets clusterIPs
// to match.
void normalize_cluster_ips(json& spec, const json* old_spec) {
  const auto cluster_ip = str(spec.value("clusterIP", json()));
  const auto ips = spec.value("clusterIPs", json());
  if (!ips.is_array() || ips.empty()) {
    if (!cluster_ip.empty()) spec["clusterIPs"] = {cluster_ip};
    return;
  }
  if (old_spec == nullptr) return;
  const auto old_ip = str(old_spec->value("clusterIP", json()));
  const auto old_ips = old_spec->value("clusterIPs", json());
  // clusterIP changed while clusterIPs were left as they were: the client meant clusterIP.
  if (cluster_ip != old_ip && ips == old_ips) {
    if (cluster_ip.empty()) spec.erase("clusterIPs");
    else spec["clusterIPs"] = {cluster_ip};
  }
}

void prepare_service_create(json& service) {
  service["status"] = {{"loadBalancer", json::object()}};
  normalize_cluster_ips(object_member(service, "spec"), nullptr);
}

// What an update that leaves allocated values out gets back from the stored object
// (patchAllocatedValues), then the fields its new type no longer has
// (dropTypeDependentFields).
void prepare_service_update(json& service, const json& old) {
  auto& spec = object_member(service, "spec");
  const auto& old_spec = old.value("spec", json::object());
  if (service::needs_cluster_ip(old) && service::needs_cluster_ip(service)) {
    if (str(spec.value("clusterIP", json())).empty() && old_spec.contains("clusterIP"))
      spec["clusterIP"] = old_spec["clusterIP"];
    const auto ips = spec.value("clusterIPs", json());
    if ((!ips.is_array() || ips.empty()) && old_spec.value("clusterIPs", json()).is_array())
      spec["clusterIPs"] = old_spec["clusterIPs"];
    for (const char* field : {"ipFamilies", "ipFamilyPolicy"})
      if (unset(spec, field) && old_spec.contains(field)) spec[field] = old_spec[field];
  }
  if (service::needs_node_ports(old) && service::needs_node_ports(service) && spec["ports"].is_array()) {
    std::set<std::int64_t> in_both;
    std::set<std::int64_t> in_new;
    for (const auto& port : spec["ports"])
      if (port.is_object() && port.value("nodePort", 0) != 0) in_new.insert(port.value("nodePort", 0));
    std::map<std::string, std::int64_t> by_name;
    for (const auto& port : old_spec.value("ports", json::array()))
      if (port.is_object()) {
        by_name[str(port.value("name", json()))] = port.value("nodePort", 0);
        if (in_new.contains(port.value("nodePort", 0))) in_both.insert(port.value("nodePort", 0));
      }
    for (auto& port : spec["ports"]) {
      if (!port.is_object() || port.value("nodePort", 0) != 0) continue;
      const auto found = by_name.find(str(port.value("name", json())));
      if (found != by_name.end() && found->second != 0 && !in_both.contains(found->second))
        port["nodePort"] = found->second;
    }
  }
  if (service::needs_health_check(old) && service::needs_health_check(service) &&
      spec.value("healthCheckNodePort", 0) == 0 && old_spec.value("healthCheckNodePort", 0) != 0)
    spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"];
  normalize_cluster_ips(spec, &old_spec);

  // dropTypeDependentFields: what the old type needed and the new one does not, when the
  // client left it as it was.
  const auto keep_if_changed = [&](const char* field, bool old_needs, bool new_needs) {
    if (old_needs && !new_needs && spec.value(field, json()) == old_spec.value(field, json())) spec.erase(field);
  };
  const bool old_ip = service::needs_cluster_ip(old);
  const bool new_ip = service::needs_cluster_ip(service);
  keep_if_changed("clusterIP", old_ip, new_ip);
  keep_if_changed("clusterIPs", old_ip, new_ip);
  keep_if_changed("ipFamilies", old_ip, new_ip);
  keep_if_changed("ipFamilyPolicy", old_ip, new_ip);
  if (service::needs_node_ports(old) && !service::needs_node_ports(service) && spec["ports"].is_array() &&
      old_spec.value("ports", json()).is_array() && spec["ports"].size() == old_spec["ports"].size()) {
    bool same = true;
    for (std::size_t i = 0; i < spec["ports"].size(); ++i)
      same = same && spec["ports"][i].value("nodePort", 0) == old_spec["ports"][i].value("nodePort", 0);
    if (same)
      for (auto& port : spec["ports"]) port.erase("nodePort");
  }
  keep_if_changed("healthCheckNodePort", service::needs_health_check(old), service::needs_health_check(service));
  if (str(spec.value("type", json())) != "LoadBalancer" && str(old_spec.value("type", json())) == "LoadBalancer") {
    keep_if_changed("allocateLoadBalancerNodePorts", true, false);
    keep_if_changed("loadBalancerClass", true, false);
  }
  const bool old_external = service::externally_accessible(old);
  keep_if_changed("externalTrafficPolicy", old_external, service::externally_accessible(service));
  if (str(spec.value("type", json())) == "ExternalName" && spec.value("internalTrafficPolicy", json()) ==
                                                                old_spec.value("internalTrafficPolicy", json()))
    spec.erase("internalTrafficPolicy");
}

// %#v of a core.ServicePort with only protocol and port, the key duplicates are reported by.
std::string go_service_port_key(const json& port) {
  return "core.ServicePort{Name:\"\", Protocol:" + go_quoted(port.value("protocol", json(""))) +
         ", AppProtocol:(*string)(nil), Port:" + std::to_string(port.value("port", 0)) +
         ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
}

// ValidatePortNumOrName for a service port's targetPort.
void validate_target_port(Causes& causes, const json& target, const std::string& path) {
  if (target.is_number_integer()) {
    invalid_each(causes, path, target, port_number_errors(target.get<std::int64_t>()));
  } else if (target.is_string()) {
    invalid_each(causes, path, target, port_name_errors(target.get<std::string>()));
  } else if (!target.is_null()) {
    invalid_value(causes, path, target, "must be an integer or a string");
  }
}

void validate_service_port(Causes& causes, const json& port, bool name_required, std::set<std::string>& names,
                           const std::string& path) {
  const auto name = str(port.value("name", json()));
  if (name_required && name.empty()) {
    required(causes, path + ".name");
  } else if (!name.empty()) {
    invalid_each(causes, path + ".name", name, dns1123_label_errors(name));
    if (!names.insert(name).second) duplicate(causes, path + ".name", name);
  }
  invalid_each(causes, path + ".port", port.value("port", json(0)), port_number_errors(port.value("port", 0)));
  const auto protocol = str(port.value("protocol", json()));
  if (protocol.empty()) required(causes, path + ".protocol");
  else if (!one_of(protocol, {"SCTP", "TCP", "UDP"})) unsupported(causes, path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
  validate_target_port(causes, port.value("targetPort", json()), path + ".targetPort");
  if (port.contains("appProtocol") && port["appProtocol"].is_string())
    invalid_each(causes, path + ".appProtocol", port["appProtocol"], qualified_name_errors(str(port["appProtocol"])));
}

// ValidateServiceClusterIPsRelatedFields.
void validate_cluster_ips(Causes& causes, const json& service) {
  const auto& spec = service.value("spec", json::object());
  const auto cluster_ip = str(spec.value("clusterIP", json()));
  const auto ips = spec.value("clusterIPs", json::array());
  if (!cluster_ip.empty()) {
    if (!ips.is_array() || ips.empty()) required(causes, "spec.clusterIPs");
    else if (ips[0] != cluster_ip)
      invalid_rendered(causes, "spec.clusterIPs", go_slice(ips), "first value must match `clusterIP`");
  } else if (ips.is_array() && !ips.empty()) {
    invalid_rendered(causes, "spec.clusterIPs", go_slice(ips), "must be empty when `clusterIP` is not specified");
  }
  std::set<std::string> seen;
  const auto families = spec.value("ipFamilies", json::array());
  for (std::size_t i = 0; families.is_array() && i < families.size(); ++i) {
    const auto family = str(families[i]);
    if (!one_of(family, {"IPv4", "IPv6"})) unsupported(causes, index_path("spec.ipFamilies", i), families[i], {"IPv4", "IPv6"});
    if (!seen.insert(family).second) duplicate(causes, index_path("spec.ipFamilies", i), families[i]);
  }
  if (spec.contains("ipFamilyPolicy") && !spec["ipFamilyPolicy"].is_null() &&
      !one_of(str(spec["ipFamilyPolicy"]), {"PreferDualStack", "RequireDualStack", "SingleStack"}))
    unsupported(causes, "spec.ipFamilyPolicy", spec["ipFamilyPolicy"], {"PreferDualStack", "RequireDualStack", "SingleStack"});
  if (!ips.is_array()) return;
  bool bad = false;
  for (std::size_t i = 0; i < ips.size(); ++i) {
    if (i == 0 && ips[i] == "None") {
      if (ips.size() > 1) {
        bad = true;
        invalid_rendered(causes, "spec.clusterIPs", go_slice(ips), "'None' must be the first and only value");
      }
      continue;
    }
    if (!ips[i].is_string() || !parse_ip(str(ips[i]))) {
      bad = true;
      invalid_value(causes, index_path("spec.clusterIPs", i), ips[i], k_ip_help);
    }
  }
  if (ips.size() > 2) invalid_rendered(causes, "spec.clusterIPs", go_slice(ips), "may only hold up to 2 values");
  if (bad) return;
  if (ips.size() == 2 && is_v4(*parse_ip(str(ips[0]))) == is_v4(*parse_ip(str(ips[1]))))
    invalid_rendered(causes, "spec.clusterIPs", go_slice(ips), "may specify no more than one IP for each IP family");
  if (cluster_ip == "None" || !families.is_array()) return;
  for (std::size_t i = 0; i < ips.size() && i < families.size(); ++i) {
    const bool v4 = is_v4(*parse_ip(str(ips[i])));
    if (families[i] == "IPv4" && !v4)
      invalid_value(causes, index_path("spec.clusterIPs", i), ips[i],
                    "expected an IPv4 value as indicated by `ipFamilies[" + std::to_string(i) + "]`");
    if (families[i] == "IPv6" && v4)
      invalid_value(causes, index_path("spec.clusterIPs", i), ips[i],
                    "expected an IPv6 value as indicated by `ipFamilies[" + std::to_string(i) + "]`");
  }
}

void validate_service(const json& service, Causes& causes) {
  const auto& spec = service.value("spec", json::object());
  const auto type = str(spec.value("type", json()));
  const bool headless = service::headless(service);
  const auto ports = spec.value("ports", json::array());
  if ((!ports.is_array() || ports.empty()) && !headless && type != "ExternalName") required(causes, "spec.ports");
  if (type == "LoadBalancer" && headless)
    invalid_value(causes, "spec.clusterIPs[0]", "None", "may not be set to 'None' for LoadBalancer services");
  if (type == "NodePort" && headless)
    invalid_value(causes, "spec.clusterIPs[0]", "None", "may not be set to 'None' for NodePort services");
  if (type == "ExternalName") {
    if (spec.value("clusterIPs", json::array()).is_array() && !spec.value("clusterIPs", json::array()).empty())
      forbidden(causes, "spec.clusterIPs", "may not be set for ExternalName services");
    if (spec.value("ipFamilies", json::array()).is_array() && !spec.value("ipFamilies", json::array()).empty())
      forbidden(causes, "spec.ipFamilies", "may not be set for ExternalName services");
    if (!unset(spec, "ipFamilyPolicy")) forbidden(causes, "spec.ipFamilyPolicy", "may not be set for ExternalName services");
    auto cname = str(spec.value("externalName", json()));
    if (cname.ends_with('.')) cname.pop_back();
    if (cname.empty()) required(causes, "spec.externalName");
    else invalid_each(causes, "spec.externalName", cname, subdomain_errors(cname));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; ports.is_array() && i < ports.size(); ++i)
    if (ports[i].is_object()) validate_service_port(causes, ports[i], ports.size() > 1, names, index_path("spec.ports", i));
  if (spec.contains("selector")) validate_labels(causes, spec["selector"], "spec.selector");

  const auto affinity = str(spec.value("sessionAffinity", json()));
  if (affinity.empty()) required(causes, "spec.sessionAffinity");
  else if (!one_of(affinity, {"ClientIP", "None"})) unsupported(causes, "spec.sessionAffinity", affinity, {"ClientIP", "None"});
  if (affinity == "ClientIP") {
    const auto& config = at(spec, {"sessionAffinityConfig"});
    if (!config.is_object()) {
      required(causes, "spec.sessionAffinityConfig", "when session affinity type is ClientIP");
    } else if (!at(config, {"clientIP"}).is_object()) {
      required(causes, "spec.sessionAffinityConfig.clientIP", "when session affinity type is ClientIP");
    } else {
      const auto& timeout = at(config, {"clientIP", "timeoutSeconds"});
      if (!timeout.is_number_integer()) {
        required(causes, "spec.sessionAffinityConfig.clientIP.timeoutSeconds", "when session affinity type is ClientIP");
      } else if (timeout.get<std::int64_t>() <= 0 || timeout.get<std::int64_t>() > k_client_ip_timeout_max) {
        invalid_value(causes, "spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout,
                      "must be greater than 0 and less than " + std::to_string(k_client_ip_timeout_max));
      }
    }
  } else if (affinity == "None" && !unset(spec, "sessionAffinityConfig")) {
    forbidden(causes, "spec.sessionAffinityConfig", "must not be set when session affinity is None");
  }

  if (type != "ExternalName") validate_cluster_ips(causes, service);

  const auto external_ips = spec.value("externalIPs", json::array());
  for (std::size_t i = 0; external_ips.is_array() && i < external_ips.size(); ++i)
    if (!external_ips[i].is_string() || !parse_ip(str(external_ips[i])))
      invalid_value(causes, index_path("spec.externalIPs", i), external_ips[i], k_ip_help);

  if (type.empty()) required(causes, "spec.type");
  else if (!one_of(type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}))
    unsupported(causes, "spec.type", type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"});

  std::set<std::pair<std::string, std::int64_t>> node_ports;
  std::set<std::pair<std::string, std::int64_t>> keys;
  for (std::size_t i = 0; ports.is_array() && i < ports.size(); ++i) {
    if (!ports[i].is_object()) continue;
    const auto path = index_path("spec.ports", i);
    const auto node_port = ports[i].value("nodePort", std::int64_t{0});
    const auto protocol = str(ports[i].value("protocol", json()));
    if (type == "ClusterIP" && node_port != 0)
      forbidden(causes, path + ".nodePort", "may not be used when `type` is 'ClusterIP'");
    if (node_port != 0 && !node_ports.insert({protocol, node_port}).second)
      duplicate(causes, path + ".nodePort", node_port);
    if (!keys.insert({protocol, ports[i].value("port", std::int64_t{0})}).second)
      duplicate_rendered(causes, path, go_service_port_key(ports[i]));
  }

  const auto ranges = spec.value("loadBalancerSourceRanges", json::array());
  if (ranges.is_array() && !ranges.empty()) {
    if (type != "LoadBalancer") forbidden(causes, "spec.loadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'");
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      auto text = str(ranges[i]);
      while (!text.empty() && text.front() == ' ') text.erase(text.begin());
      while (!text.empty() && text.back() == ' ') text.pop_back();
      if (!parse_cidr(text))
        invalid_value(causes, index_path("spec.loadBalancerSourceRanges", i), ranges[i],
                      "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)");
    }
  }

  // validateServiceExternalTrafficPolicy.
  const auto external_policy = str(spec.value("externalTrafficPolicy", json()));
  if (!service::externally_accessible(service)) {
    if (!external_policy.empty())
      invalid_value(causes, "spec.externalTrafficPolicy", external_policy,
                    "may only be set for externally-accessible services");
  } else if (external_policy.empty()) {
    required(causes, "spec.externalTrafficPolicy");
  } else if (!one_of(external_policy, {"Cluster", "Local"})) {
    unsupported(causes, "spec.externalTrafficPolicy", external_policy, {"Cluster", "Local"});
  }
  const auto health_port = spec.value("healthCheckNodePort", std::int64_t{0});
  if (!service::needs_health_check(service)) {
    if (health_port != 0)
      invalid_value(causes, "spec.healthCheckNodePort", health_port,
                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'");
  } else if (health_port != 0) {
    invalid_each(causes, "spec.healthCheckNodePort", health_port, port_number_errors(health_port));
  }
  // validateServiceInternalTrafficFieldsValue.
  if (unset(spec, "internalTrafficPolicy")) {
    if (one_of(type, {"ClusterIP", "NodePort", "LoadBalancer"})) required(causes, "spec.internalTrafficPolicy");
  } else if (!one_of(str(spec["internalTrafficPolicy"]), {"Cluster", "Local"})) {
    unsupported(causes, "spec.internalTrafficPolicy", spec["internalTrafficPolicy"], {"Cluster", "Local"});
  }
  if (!unset(spec, "loadBalancerClass")) {
    if (type != "LoadBalancer")
      forbidden(causes, "spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'");
    else invalid_each(causes, "spec.loadBalancerClass", spec["loadBalancerClass"],
                      qualified_name_errors(str(spec["loadBalancerClass"])));
  }
  if (!unset(spec, "allocateLoadBalancerNodePorts") && type != "LoadBalancer")
    forbidden(causes, "spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'");
}

// ValidateServiceUpdate: the primary cluster IP stays once set (unless the type moves to or
// from ExternalName), a secondary one may come or go; loadBalancerClass cannot change on a
// LoadBalancer.
void validate_service_update(const json& service, const json& old, Causes& causes) {
  const auto& spec = service.value("spec", json::object());
  const auto& old_spec = old.value("spec", json::object());
  const auto list = [](const json& s) {
    const auto ips = s.value("clusterIPs", json::array());
    return ips.is_array() ? ips : json::array();
  };
  const auto ips = list(spec);
  const auto old_ips = list(old_spec);
  const auto changed = [&](std::size_t i, const char* why) {
    invalid_rendered(causes, index_path("spec.clusterIPs", i), go_slice(spec.value("clusterIPs", json())), why);
  };
  if (service::needs_cluster_ip(service) && service::needs_cluster_ip(old) &&
      !(service::headless(service) && service::headless(old))) {
    if (ips.size() == old_ips.size()) {
      for (std::size_t i = 0; i < ips.size(); ++i)
        if (ips[i] != old_ips[i]) changed(i, "may not change once set");
    } else if (ips.size() < old_ips.size()) {
      if (ips.empty()) changed(0, "primary clusterIP can not be unset");
      if (!ips.empty() && ips[0] != old_ips[0]) changed(0, "may not change once set");
      if (ips.size() == 1 && spec.value("ipFamilyPolicy", json()) != "SingleStack")
        changed(0, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP");
    } else if (!old_ips.empty() && ips[0] != old_ips[0]) {
      changed(0, "may not change once set");
    }
  }
  if (str(old_spec.value("type", json())) == "LoadBalancer" && str(spec.value("type", json())) == "LoadBalancer" &&
      spec.value("loadBalancerClass", json()) != old_spec.value("loadBalancerClass", json()))
    immutable(causes, "spec.loadBalancerClass", spec.value("loadBalancerClass", json()),
              old_spec.value("loadBalancerClass", json()));
}

}  // namespace

KindSpec service_row() {
  return {.info = {.version = "v1", .kind = "Service", .plural = "services", .short_names = {"svc"},
                   .categories = {"all"}, .subresources = {"status"},
                   .columns = {name_col(), col("Type", "string", "type determines how the Service is exposed."),
                               col("Cluster-IP", "string",
                                   "clusterIP is the IP address of the service and is usually assigned randomly."),
                               col("External-IP", "string",
                                   "externalIPs is a list of IP addresses for which nodes in the cluster will also "
                                   "accept traffic for this service."),
                               col("Port(s)", "string", "The list of ports that are exposed by this service."),
                               age_col(),
                               col("Selector", "string",
                                   "Route service traffic to pods with label keys and values matching this selector.",
                                   1)},
                   .printer = print_service},
          .storage_resource = "services/specs",
          .delete_returns_object = true,
          .name_rule = NameRule::dns1035_label,
          .lifecycle = Lifecycle::service,
          .strategy = {.defaults = default_service,
                       .prepare_create = prepare_service_create,
                       .prepare_update = prepare_service_update,
                       .validate = validate_service,
                       .validate_update = validate_service_update}};
}

}  // namespace kw::kinds
