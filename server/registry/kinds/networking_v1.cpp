// networking.k8s.io/v1: IngressClass, Ingress, IPAddress, NetworkPolicy, ServiceCIDR.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// ---- IngressClass ----------------------------------------------------------------------------

Cells print_ingress_class(const json& ic, TimePoint now) {
  std::string parameters = "<none>";
  if (const auto& p = at(ic, {"spec", "parameters"}); p.is_object()) {
    parameters = str(at(p, {"kind"}));
    if (at(p, {"apiGroup"}).is_string()) parameters += "." + str(at(p, {"apiGroup"}));
    parameters += "/" + str(at(p, {"name"}));
  }
  return {name_of(ic), str(at(ic, {"spec", "controller"})), parameters, age_of(ic, now)};
}

// SetDefaults_IngressClass: parameters are cluster-scoped unless told otherwise.
void default_ingress_class(json& ic) {
  auto& spec = object_member(ic, "spec");
  if (auto it = spec.find("parameters"); it != spec.end() && it->is_object() && !it->contains("scope"))
    (*it)["scope"] = "Cluster";
}

// The apiGroup, kind and name of a reference to a local object (an ingress backend resource,
// an ingress class's parameters).
void validate_local_reference(Causes& causes, const json& ref, const std::string& path) {
  if (const auto& group = at(ref, {"apiGroup"}); group.is_string())
    invalid_each(causes, path + ".apiGroup", group, subdomain_errors(str(group)));
  for (const char* field : {"kind", "name"}) {
    const auto value = str(at(ref, {field}));
    if (value.empty())
      required(causes, path + "." + field, std::string(field) + " is required");
    else
      invalid_each(causes, path + "." + field, value, path_segment_errors(value));
  }
}

void validate_ingress_class(const json& ic, Causes& causes) {
  const auto controller = str(at(ic, {"spec", "controller"}));
  if (controller.size() > 250) too_long(causes, "spec.controller", 250);
  // validation.IsDomainPrefixedPath
  const auto slash = controller.find('/');
  if (controller.empty()) {
    required(causes, "spec.controller");
  } else if (slash == std::string::npos || slash == 0 || slash + 1 == controller.size()) {
    invalid_value(causes, "spec.controller", controller, R"(must be a domain-prefixed path (such as "acme.io/foo"))");
  } else {
    const auto host = controller.substr(0, slash), path = controller.substr(slash + 1);
    invalid_each(causes, "spec.controller", host, subdomain_errors(host));
    constexpr std::string_view k_path_chars =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:";
    if (path.find_first_not_of(k_path_chars) != std::string::npos)
      invalid_value(causes, "spec.controller", path,
                    R"(Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+'))");
  }

  const auto& parameters = at(ic, {"spec", "parameters"});
  if (!parameters.is_object()) return;
  const std::string path = "spec.parameters";
  validate_local_reference(causes, parameters, path);
  const auto& scope = at(parameters, {"scope"});
  const auto& ns = at(parameters, {"namespace"});
  if (scope.is_null())
    required(causes, path + ".scope");
  else if (scope != "Cluster" && scope != "Namespace")
    unsupported(causes, path + ".scope", scope, {"Cluster", "Namespace"});
  else if (scope == "Namespace" && ns.is_null())
    required(causes, path + ".namespace", "`parameters.scope` is set to 'Namespace'");
  else if (scope == "Namespace")
    invalid_each(causes, path + ".namespace", ns, dns1123_label_errors(str(ns)));
  else if (!ns.is_null())
    forbidden(causes, path + ".namespace", "`parameters.scope` is set to 'Cluster'");
}

void validate_ingress_class_update(const json& ic, const json& old, Causes& causes) {
  immutable(causes, "spec.controller", at(ic, {"spec", "controller"}), at(old, {"spec", "controller"}));
}

KindSpec ingress_class_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "IngressClass",
                   .plural = "ingressclasses",
                   .namespaced = false,
                   .columns = {name_col(),
                               col("Controller", "string", "Controller that is responsible for handling this class"),
                               col("Parameters", "string", "A reference to a resource with additional parameters"),
                               age_col()},
                   .printer = print_ingress_class},
          .generation = std::vector<std::string>{"spec"},
          .strategy = {.defaults = default_ingress_class,
                       .validate = validate_ingress_class,
                       .validate_update = validate_ingress_class_update}};
}

// ---- Ingress ---------------------------------------------------------------------------------

constexpr const char* k_ingress_class_annotation = "kubernetes.io/ingress.class";

// At most three hosts, "*" when no rule names one.
std::string ingress_hosts(const json& rules) {
  std::vector<std::string> hosts;
  bool more = false;
  for (const auto& rule : arr(rules)) {
    if (hosts.size() == 3) more = true;
    if (!more && !str(at(rule, {"host"})).empty()) hosts.push_back(str(at(rule, {"host"})));
  }
  if (hosts.empty()) return "*";
  return more ? join(hosts, ",") + " + " + std::to_string(arr(rules).size() - 3) + " more..." : join(hosts, ",");
}

Cells print_ingress(const json& ing, TimePoint now) {
  const auto& class_name = at(ing, {"spec", "ingressClassName"});
  std::set<std::string> addresses;  // sorted and unique, as Kubernetes' string set
  for (const auto& entry : arr(at(ing, {"status", "loadBalancer", "ingress"}))) {
    if (!str(at(entry, {"ip"})).empty())
      addresses.insert(str(at(entry, {"ip"})));
    else if (!str(at(entry, {"hostname"})).empty())
      addresses.insert(str(at(entry, {"hostname"})));
  }
  return {name_of(ing),
          class_name.is_string() ? str(class_name) : "<none>",
          ingress_hosts(at(ing, {"spec", "rules"})),
          join({addresses.begin(), addresses.end()}, ","),
          arr(at(ing, {"spec", "tls"})).empty() ? "80" : "80, 443",
          age_of(ing, now)};
}

void validate_ingress_backend(Causes& causes, const json& backend, const std::string& path) {
  const auto& resource = at(backend, {"resource"});
  const auto& service = at(backend, {"service"});
  if (resource.is_object() && service.is_object()) {
    invalid_value(causes, path, "", "cannot set both resource and service backends");
  } else if (resource.is_object()) {
    validate_local_reference(causes, resource, path + ".resource");
  } else if (service.is_object()) {
    const auto name = str(at(service, {"name"}));
    if (name.empty())
      required(causes, path + ".service.name");
    else
      invalid_each(causes, path + ".service.name", name, dns1035_label_errors(name));
    const auto port_name = str(at(service, {"port", "name"}));
    const auto& port_number = at(service, {"port", "number"});
    const bool has_number = port_number.is_number() && num(port_number) != 0;
    if (!port_name.empty() && has_number)
      invalid_value(causes, path, "", "cannot set both port name & port number");
    else if (!port_name.empty())
      invalid_each(causes, path + ".service.port.name", port_name, port_name_errors(port_name));
    else if (has_number)
      invalid_each(causes, path + ".service.port.number", port_number, port_number_errors(num(port_number)));
    else
      required(causes, path, "port name or number is required");
  } else {
    invalid_value(causes, path, "", "resource or service backend is required");
  }
}

void validate_ingress_path(Causes& causes, const json& http_path, const std::string& path) {
  const auto& type = at(http_path, {"pathType"});
  if (type.is_null()) {
    required(causes, path + ".pathType", "pathType must be specified");
    return;
  }
  const auto value = str(at(http_path, {"path"}));
  if (type == "Exact" || type == "Prefix") {
    if (!value.starts_with('/')) invalid_value(causes, path + ".path", value, "must be an absolute path");
    if (!value.empty()) {
      for (const char* bad : {"//", "/./", "/../", "%2f", "%2F"})
        if (value.find(bad) != std::string::npos)
          invalid_value(causes, path + ".path", value, "must not contain '" + std::string(bad) + "'");
      for (const char* bad : {"/..", "/."})
        if (value.ends_with(bad))
          invalid_value(causes, path + ".path", value, "cannot end with '" + std::string(bad) + "'");
    }
  } else if (type == "ImplementationSpecific") {
    if (!value.empty() && !value.starts_with('/'))
      invalid_value(causes, path + ".path", value, "must be an absolute path");
  } else {
    unsupported(causes, path + ".pathType", type, {"Exact", "ImplementationSpecific", "Prefix"});
  }
  validate_ingress_backend(causes, at(http_path, {"backend"}), path + ".backend");
}

void validate_ingress_rules(Causes& causes, const json& rules) {
  for (std::size_t i = 0; i < arr(rules).size(); ++i) {
    const auto& rule = rules[i];
    const std::string path = "spec.rules[" + std::to_string(i) + "]";
    if (const auto host = str(at(rule, {"host"})); !host.empty()) {
      if (parse_ip(host)) invalid_value(causes, path + ".host", host, "must be a DNS name, not an IP address");
      invalid_each(causes, path + ".host", host,
                   host.find('*') != std::string::npos ? wildcard_subdomain_errors(host) : subdomain_errors(host));
    }
    const auto& http = at(rule, {"http"});
    if (!http.is_object()) continue;
    const auto& paths = arr(at(http, {"paths"}));
    if (paths.empty()) required(causes, path + ".http.paths");
    for (std::size_t p = 0; p < paths.size(); ++p)
      validate_ingress_path(causes, paths[p], path + ".http.paths[" + std::to_string(p) + "]");
  }
}

void validate_ingress_tls(Causes& causes, const json& tls) {
  for (std::size_t i = 0; i < arr(tls).size(); ++i) {
    const std::string path = "spec.tls[" + std::to_string(i) + "]";
    const auto& hosts = arr(at(tls[i], {"hosts"}));
    for (std::size_t h = 0; h < hosts.size(); ++h) {
      const auto host = str(hosts[h]);
      invalid_each(causes, path + ".hosts[" + std::to_string(h) + "]", host,
                   host.find('*') != std::string::npos ? wildcard_subdomain_errors(host) : subdomain_errors(host));
    }
    if (const auto secret = str(at(tls[i], {"secretName"})); !secret.empty())
      invalid_each(causes, path + ".secretName", secret, subdomain_errors(secret));
  }
}

void validate_ingress(const json& ing, Causes& causes) {
  const auto& spec = at(ing, {"spec"});
  const auto& rules = at(spec, {"rules"});
  const auto& default_backend = at(spec, {"defaultBackend"});
  if (arr(rules).empty() && !default_backend.is_object())
    invalid_value(causes, "spec", rules, "either `defaultBackend` or `rules` must be specified");
  if (default_backend.is_object()) validate_ingress_backend(causes, default_backend, "spec.defaultBackend");
  validate_ingress_rules(causes, rules);
  validate_ingress_tls(causes, at(spec, {"tls"}));
  if (const auto& class_name = at(spec, {"ingressClassName"}); class_name.is_string())
    invalid_each(causes, "spec.ingressClassName", class_name, subdomain_errors(str(class_name)));

  // The load balancer status (ValidateIngressStatusUpdate); spec writes carry the stored status.
  const auto& entries = arr(at(ing, {"status", "loadBalancer", "ingress"}));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string path = "status.loadBalancer.ingress[" + std::to_string(i) + "]";
    if (const auto ip = str(at(entries[i], {"ip"})); !ip.empty() && !parse_ip(ip))
      invalid_value(causes, path + ".ip", ip, k_ip_help);
    if (const auto hostname = str(at(entries[i], {"hostname"})); !hostname.empty()) {
      invalid_each(causes, path + ".hostname", hostname, subdomain_errors(hostname));
      if (parse_ip(hostname))
        invalid_value(causes, path + ".hostname", hostname, "must be a DNS name, not an IP address");
    }
  }
}

// PrepareForCreate: no status yet (its load balancer is always written, as Kubernetes writes it).
void prepare_ingress(json& ing) { ing["status"] = {{"loadBalancer", json::object()}}; }

// ValidateIngressCreate: ValidateIngress, and the class annotation, when both are given, names
// the same class as ingressClassName (an update does not check that).
void validate_ingress_create(const json& ing, Causes& causes) {
  validate_ingress(ing, causes);
  const auto& annotation = at(ing, {"metadata", "annotations", k_ingress_class_annotation});
  const auto& class_name = at(ing, {"spec", "ingressClassName"});
  if (annotation.is_string() && class_name.is_string() && annotation != class_name)
    invalid_value(causes, std::string("annotations.") + k_ingress_class_annotation, annotation,
                  "must match `ingressClassName` when both are specified");
}

KindSpec ingress_row() {
  return {
      .info = {.group = "networking.k8s.io",
               .version = "v1",
               .kind = "Ingress",
               .plural = "ingresses",
               .short_names = {"ing"},
               .subresources = {"status"},
               .columns = {name_col(),
                           col("Class", "string",
                               "The name of the IngressClass resource that should be used for additional "
                               "configuration"),
                           col("Hosts", "string",
                               "Hosts that incoming requests are matched against before the ingress rule"),
                           col("Address", "string",
                               "Address is a list containing ingress points for the load-balancer"),
                           col("Ports", "string", "Ports of TLS configurations that open"), age_col()},
               .printer = print_ingress},
      .storage_resource = "ingress",
      .generation = std::vector<std::string>{"spec"},
      .strategy = {
          .prepare_create = prepare_ingress, .validate = validate_ingress, .validate_create = validate_ingress_create}};
}

// ---- IPAddress -------------------------------------------------------------------------------

// "<resource>[.<group>][/<namespace>]/<name>", lowercased apart from the names.
Cells print_ip_address(const json& ip, TimePoint now) {
  std::string parent = "<none>";
  if (const auto& ref = at(ip, {"spec", "parentRef"}); ref.is_object()) {
    parent = str(at(ref, {"resource"}));
    if (const auto group = str(at(ref, {"group"})); !group.empty()) parent += "." + group;
    for (char& c : parent)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (const auto ns = str(at(ref, {"namespace"})); !ns.empty()) parent += "/" + ns;
    parent += "/" + str(at(ref, {"name"}));
  }
  // Kubernetes' printer fills an age cell its two columns do not announce.
  return {name_of(ip), parent, age_of(ip, now)};
}

void validate_ip_address(const json& ip, Causes& causes) {
  const auto name = str(at(ip, {"metadata", "name"}));
  invalid_each(causes, "metadata.name", name, strict_ip_errors(name));

  const auto& ref = at(ip, {"spec", "parentRef"});
  if (!ref.is_object()) {
    required(causes, "spec.parentRef");
    return;
  }
  const std::string path = "spec.parentRef";
  if (const auto group = str(at(ref, {"group"})); !group.empty())
    invalid_each(causes, path + ".group", group, subdomain_errors(group));
  for (const char* field : {"resource", "name"}) {
    const auto value = str(at(ref, {field}));
    if (value.empty())
      required(causes, path + "." + field);
    else
      invalid_each(causes, path + "." + field, value, path_segment_errors(value));
  }
  if (const auto ns = str(at(ref, {"namespace"})); !ns.empty())
    invalid_each(causes, path + ".namespace", ns, path_segment_errors(ns));
}

void validate_ip_address_update(const json& ip, const json& old, Causes& causes) {
  immutable(causes, "spec.parentRef", at(ip, {"spec", "parentRef"}), at(old, {"spec", "parentRef"}));
}

KindSpec ip_address_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "IPAddress",
                   .plural = "ipaddresses",
                   .short_names = {"ip"},
                   .namespaced = false,
                   .columns = {name_col(), col("ParentRef", "string",
                                               "ParentRef references the resource that an IPAddress is attached to. An "
                                               "IPAddress must reference a parent object.")},
                   .printer = print_ip_address},
          .strategy = {.validate = validate_ip_address, .validate_update = validate_ip_address_update}};
}

// ---- NetworkPolicy ---------------------------------------------------------------------------

Cells print_network_policy(const json& np, TimePoint now) {
  return {name_of(np), format_label_selector(at(np, {"spec", "podSelector"})), age_of(np, now)};
}

// SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort.
void default_network_policy(json& np) {
  auto& spec = object_member(np, "spec");
  for (const char* direction : {"ingress", "egress"})
    if (auto rules = spec.find(direction); rules != spec.end() && rules->is_array())
      for (auto& rule : *rules)
        if (auto ports = rule.find("ports"); rule.is_object() && ports != rule.end() && ports->is_array())
          for (auto& port : *ports)
            if (port.is_object() && (!port.contains("protocol") || port["protocol"].is_null()))
              port["protocol"] = "TCP";
  if (!spec.contains("policyTypes") || !spec["policyTypes"].is_array() || spec["policyTypes"].empty()) {
    spec["policyTypes"] = json::array({"Ingress"});
    if (!arr(spec.value("egress", json())).empty()) spec["policyTypes"].push_back("Egress");
  }
}

void validate_policy_port(Causes& causes, const json& port, const std::string& path) {
  if (const auto& protocol = at(port, {"protocol"});
      !protocol.is_null() && protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
    unsupported(causes, path + ".protocol", protocol, {"TCP", "UDP", "SCTP"});
  const auto& number = at(port, {"port"});
  const auto& end = at(port, {"endPort"});
  if (number.is_number()) {
    invalid_each(causes, path + ".port", number, port_number_errors(num(number)));
    if (end.is_number()) {
      if (num(end) < num(number))
        invalid_value(causes, path + ".endPort", number, "must be greater than or equal to `port`");
      invalid_each(causes, path + ".endPort", end, port_number_errors(num(end)));
    }
  } else if (number.is_string()) {
    if (end.is_number())
      invalid_value(causes, path + ".endPort", end, "may not be specified when `port` is non-numeric");
    invalid_each(causes, path + ".port", number, port_name_errors(str(number)));
  } else if (end.is_number()) {
    invalid_value(causes, path + ".endPort", end, "may not be specified when `port` is not specified");
  }
}

void validate_ip_block(Causes& causes, const json& block, const std::string& path) {
  const auto cidr_text = str(at(block, {"cidr"}));
  if (cidr_text.empty()) {
    required(causes, path + ".cidr");
    return;
  }
  const auto cidr = parse_cidr(cidr_text);
  if (!cidr) {
    invalid_value(causes, path + ".cidr", cidr_text, k_cidr_help);
    return;
  }
  const auto& excepts = arr(at(block, {"except"}));
  for (std::size_t i = 0; i < excepts.size(); ++i) {
    const std::string except_path = path + ".except[" + std::to_string(i) + "]";
    const auto except = parse_cidr(str(excepts[i]));
    if (!except) {
      invalid_value(causes, except_path, excepts[i], k_cidr_help);
      continue;
    }
    if (!cidr->contains(except->network()) || cidr->bits >= except->bits)
      invalid_value(causes, except_path, excepts[i], "must be a strict subset of `cidr`");
  }
}

void validate_policy_peer(Causes& causes, const json& peer, const std::string& path) {
  int peers = 0;
  for (const char* selector : {"podSelector", "namespaceSelector"})
    if (const auto& s = at(peer, {selector}); s.is_object()) {
      ++peers;
      validate_label_selector(causes, s, path + "." + selector);
    }
  const auto& block = at(peer, {"ipBlock"});
  if (block.is_object()) {
    ++peers;
    validate_ip_block(causes, block, path + ".ipBlock");
  }
  if (peers == 0)
    required(causes, path, "must specify a peer");
  else if (peers > 1 && block.is_object())
    forbidden(causes, path, "may not specify both ipBlock and another peer");
}

void validate_network_policy(const json& np, Causes& causes) {
  const auto& spec = at(np, {"spec"});
  validate_label_selector(causes, at(spec, {"podSelector"}), "spec.podSelector");
  for (const auto& [direction, peers] : {std::pair{"ingress", "from"}, std::pair{"egress", "to"}}) {
    const auto& rules = arr(at(spec, {direction}));
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string path = std::string("spec.") + direction + "[" + std::to_string(i) + "]";
      const auto& ports = arr(at(rules[i], {"ports"}));
      for (std::size_t p = 0; p < ports.size(); ++p)
        validate_policy_port(causes, ports[p], path + ".ports[" + std::to_string(p) + "]");
      const auto& others = arr(at(rules[i], {peers}));
      for (std::size_t p = 0; p < others.size(); ++p)
        validate_policy_peer(causes, others[p], path + "." + peers + "[" + std::to_string(p) + "]");
    }
  }
  const auto& types = arr(at(spec, {"policyTypes"}));
  if (types.size() > 2) {
    invalid_value(causes, "spec.policyTypes", types, "may not specify more than two policyTypes");
    return;
  }
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i] != "Ingress" && types[i] != "Egress")
      unsupported(causes, "spec.policyTypes[" + std::to_string(i) + "]", types[i], {"Ingress", "Egress"});
}

KindSpec network_policy_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "NetworkPolicy",
                   .plural = "networkpolicies",
                   .short_names = {"netpol"},
                   .columns = {name_col(),
                               col("Pod-Selector", "string",
                                   "Selects the pods to which this NetworkPolicy object applies.  The array of ingress "
                                   "rules is applied to any pods selected by this field. Multiple network policies can "
                                   "select the same set of pods.  In this case, the ingress rules for each are "
                                   "combined additively. This field is NOT optional and follows standard label "
                                   "selector semantics. An empty podSelector matches all pods in this namespace."),
                               age_col()},
                   .printer = print_network_policy},
          .generation = std::vector<std::string>{"spec"},
          .strategy = {.defaults = default_network_policy, .validate = validate_network_policy}};
}

// ---- ServiceCIDR -----------------------------------------------------------------------------

Cells print_service_cidr(const json& sc, TimePoint now) {
  std::vector<std::string> cidrs;
  for (const auto& cidr : arr(at(sc, {"spec", "cidrs"}))) cidrs.push_back(str(cidr));
  return {name_of(sc), join(cidrs, ","), age_of(sc, now)};
}

// PrepareForCreate: no status yet.
void prepare_service_cidr(json& sc) { sc["status"] = json::object(); }

void validate_service_cidr_spec(Causes& causes, const json& cidrs) {
  const std::string path = "spec.cidrs";
  if (arr(cidrs).empty()) {
    required(causes, path, "at least one CIDR required");
    return;
  }
  if (cidrs.size() > 2) {
    invalid_value(causes, path, json{{"cidrs", cidrs}}, "may only hold up to 2 values");
    return;
  }
  for (std::size_t i = 0; i < cidrs.size(); ++i)
    invalid_each(causes, path + "[" + std::to_string(i) + "]", cidrs[i], strict_cidr_errors(str(cidrs[i])));
  if (cidrs.size() == 2) {
    const auto a = parse_cidr(str(cidrs[0])), b = parse_cidr(str(cidrs[1]));
    if (a && b && a->ip.v4 == b->ip.v4)
      invalid_value(causes, path, cidrs,
                    "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64");
  }
}

void validate_service_cidr(const json& sc, Causes& causes) {
  validate_service_cidr_spec(causes, at(sc, {"spec", "cidrs"}));
}

// The CIDRs cannot change, except that a single-stack ServiceCIDR may gain a second family.
void validate_service_cidr_update(const json& sc, const json& old, Causes& causes) {
  const auto& now = arr(at(sc, {"spec", "cidrs"}));
  const auto& before = arr(at(old, {"spec", "cidrs"}));
  if (now.size() == before.size()) {
    for (std::size_t i = 0; i < now.size(); ++i)
      if (now[i] != before[i])
        invalid_value(causes, "spec.cidrs[" + std::to_string(i) + "]", now[i], "field is immutable");
  } else if (before.size() == 1 && now.size() == 2) {
    if (now[0] != before[0]) invalid_value(causes, "spec.cidrs[0]", now[0], "field is immutable");
  } else {
    invalid_value(causes, "spec.cidrs", now, "field is immutable");
  }
}

KindSpec service_cidr_row() {
  return {.info = {.group = "networking.k8s.io",
                   .version = "v1",
                   .kind = "ServiceCIDR",
                   .plural = "servicecidrs",
                   .namespaced = false,
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("CIDRs", "string",
                                   "CIDRs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or "
                                   "\"2001:db8::/64\") from which to assign service cluster IPs. Max of two CIDRs is "
                                   "allowed, one of each IP family. This field is immutable."),
                               age_col()},
                   .printer = print_service_cidr},
          .strategy = {.prepare_create = prepare_service_cidr,
                       .validate = validate_service_cidr,
                       .validate_update = validate_service_cidr_update}};
}

}  // namespace

std::vector<KindSpec> networking_v1_kinds() {
  return {ingress_class_row(), ingress_row(), ip_address_row(), network_policy_row(), service_cidr_row()};
}

}  // namespace kw::kinds
