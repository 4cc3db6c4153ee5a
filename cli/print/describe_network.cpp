// The describers of the networking kinds: Service, Endpoints and Ingress. A Service's and an
// Ingress backend's addresses are read from the Service's EndpointSlices, as kubectl 1.33 reads
// them.
#include <set>

#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

std::string name_of(const json& object) { return str(at(object, {"metadata", "name"})); }

std::string list_text(const json& list, const char* separator) {
  std::string out;
  for (const auto& item : arr(list)) out += (out.empty() ? "" : separator) + value_text(item);
  return out;
}

const json* named(const std::vector<json>& objects, const std::string& name) {
  for (const auto& object : objects)
    if (str(at(object, {"metadata", "name"})) == name) return &object;
  return nullptr;
}

// The ready addresses of a Service's EndpointSlices serving the port named `port` (kubectl's
// formatEndpointSlices): at most three, then "+ N more...". An endpoint with no ready condition
// counts as ready.
std::string endpoint_slices_text(const std::vector<const json*>& slices, const std::string& port) {
  if (slices.empty()) return "<none>";
  constexpr std::size_t k_shown = 3;
  std::vector<std::string> list;
  std::size_t count = 0;
  bool more = false;
  // As kubectl's: "more" is set on meeting any endpoint once three are listed, ready or not.
  auto add = [&](const json& endpoint, const std::string& suffix) {
    if (list.size() == k_shown) more = true;
    const json& ready = at(endpoint, {"conditions", "ready"});
    if (ready.is_boolean() && !ready.get<bool>()) return;
    const json& addresses = arr(at(endpoint, {"addresses"}));
    if (addresses.empty()) return;
    if (!more) {
      const std::string address = str(addresses.front());
      const bool bracket = !suffix.empty() && address.find(':') != std::string::npos;
      list.push_back(bracket ? "[" + address + "]" + suffix : address + suffix);
    }
    ++count;
  };
  for (const json* slice : slices) {
    const json& endpoints = arr(at(*slice, {"endpoints"}));
    if (arr(at(*slice, {"ports"})).empty()) {
      for (const auto& endpoint : endpoints) add(endpoint, "");
      continue;
    }
    for (const auto& slice_port : arr(at(*slice, {"ports"}))) {
      if (str(at(slice_port, {"name"})) != port) continue;
      for (const auto& endpoint : endpoints) add(endpoint, ":" + std::to_string(num(at(slice_port, {"port"}))));
    }
  }
  std::string text;
  for (const auto& item : list) text += (text.empty() ? "" : ",") + item;
  if (more) return text + " + " + std::to_string(count - k_shown) + " more...";
  return text;
}

// The EndpointSlices of the Service named `name` (those labelled kubernetes.io/service-name).
std::vector<const json*> slices_of(const Related& related, const std::string& name) {
  std::vector<const json*> out;
  for (const auto& slice : related.endpoint_slices)
    if (str(at(slice, {"metadata", "labels", "kubernetes.io/service-name"})) == name) out.push_back(&slice);
  return out;
}

std::string backend_text(const json& backend, const Related& related) {
  if (const json& service = at(backend, {"service"}); service.is_object()) {
    const std::string name = str(at(service, {"name"}));
    const json& port = at(service, {"port"});
    const std::string port_text =
        num(at(port, {"number"})) != 0 ? std::to_string(num(at(port, {"number"}))) : str(at(port, {"name"}));
    const std::string label = name + ":" + port_text;
    const json* found = named(related.services, name);
    if (!found) return label + " (<error: services \"" + name + "\" not found>)";
    std::string port_name;
    for (const auto& service_port : arr(at(*found, {"spec", "ports"}))) {
      if (num(at(port, {"number"})) != 0 && num(at(port, {"number"})) == num(at(service_port, {"port"})))
        port_name = str(at(service_port, {"name"}));
      else if (!str(at(port, {"name"})).empty() && str(at(port, {"name"})) == str(at(service_port, {"name"})))
        port_name = str(at(service_port, {"name"}));
    }
    return label + " (" + endpoint_slices_text(slices_of(related, name), port_name) + ")";
  }
  if (const json& resource = at(backend, {"resource"}); resource.is_object()) {
    const json& group = at(resource, {"apiGroup"});
    return "APIGroup: " + (group.is_string() ? str(group) : "<none>") + ", Kind: " + str(at(resource, {"kind"})) +
           ", Name: " + str(at(resource, {"name"}));
  }
  return "";
}

void add_backend_service(std::set<std::string>& names, const json& backend) {
  if (const std::string name = str(at(backend, {"service", "name"})); !name.empty()) names.insert(name);
}

void describe_ingress(Writer& w, const json& ingress, const Related& related, TimePoint now) {
  const json& spec = at(ingress, {"spec"});
  write_name(w, ingress, false);
  write_labels(w, "Labels", at(ingress, {"metadata", "labels"}));
  w.write(0, "Namespace:\t" + str(at(ingress, {"metadata", "namespace"})) + "\n");
  std::set<std::string> addresses;
  for (const auto& entry : arr(at(ingress, {"status", "loadBalancer", "ingress"}))) {
    if (const std::string ip = str(at(entry, {"ip"})); !ip.empty())
      addresses.insert(ip);
    else if (const std::string host = str(at(entry, {"hostname"})); !host.empty())
      addresses.insert(host);
  }
  std::string address;
  for (const auto& item : addresses) address += (address.empty() ? "" : ",") + item;
  w.write(0, "Address:\t" + address + "\n");
  const json& class_name = at(spec, {"ingressClassName"});
  w.write(0, "Ingress Class:\t" + (class_name.is_string() ? str(class_name) : "<none>") + "\n");
  const json& fallback = at(spec, {"defaultBackend"});
  const std::string fallback_text = fallback.is_object() ? backend_text(fallback, related) : "<default>";
  w.write(0, "Default backend:\t" + fallback_text + "\n");
  if (const json& tls = arr(at(spec, {"tls"})); !tls.empty()) {
    w.write(0, "TLS:\n");
    for (const auto& entry : tls) {
      const std::string hosts = list_text(at(entry, {"hosts"}), ",");
      if (const std::string secret = str(at(entry, {"secretName"})); secret.empty())
        w.write(1, "SNI routes " + hosts + "\n");
      else
        w.write(1, secret + " terminates " + hosts + "\n");
    }
  }
  w.write(0, "Rules:\n  Host\tPath\tBackends\n");
  w.write(1, "----\t----\t--------\n");
  int count = 0;
  for (const auto& rule : arr(at(spec, {"rules"}))) {
    if (!at(rule, {"http"}).is_object()) continue;
    ++count;
    const std::string host = str(at(rule, {"host"}));
    w.write(1, (host.empty() ? "*" : host) + "\t\n");
    for (const auto& path : arr(at(rule, {"http", "paths"})))
      w.write(2, "\t" + str(at(path, {"path"})) + " \t" + backend_text(at(path, {"backend"}), related) + "\n");
  }
  if (count == 0) w.write(1, "*\t*\t" + fallback_text + "\n");
  write_annotations(w, "Annotations", at(ingress, {"metadata", "annotations"}));
  if (related.events) write_events(w, *related.events, now);
}

void describe_service(Writer& w, const json& service, const Related& related, TimePoint now) {
  const json& spec = at(service, {"spec"});
  write_name(w, service);
  write_metadata(w, service);
  w.write(0, "Selector:\t" + api::print::format_labels(at(spec, {"selector"})) + "\n");
  w.write(0, "Type:\t" + str(at(spec, {"type"})) + "\n");
  if (const std::string policy = str(at(spec, {"ipFamilyPolicy"})); !policy.empty())
    w.write(0, "IP Family Policy:\t" + policy + "\n");
  const std::string families = list_text(at(spec, {"ipFamilies"}), ",");
  w.write(0, "IP Families:\t" + (families.empty() ? "<none>" : families) + "\n");
  w.write(0, "IP:\t" + str(at(spec, {"clusterIP"})) + "\n");
  const std::string ips = list_text(at(spec, {"clusterIPs"}), ",");
  w.write(0, "IPs:\t" + (ips.empty() ? "<none>" : ips) + "\n");
  if (const std::string external = list_text(at(spec, {"externalIPs"}), ","); !external.empty())
    w.write(0, "External IPs:\t" + external + "\n");
  if (const std::string ip = str(at(spec, {"loadBalancerIP"})); !ip.empty())
    w.write(0, "Desired LoadBalancer IP:\t" + ip + "\n");
  if (const std::string name = str(at(spec, {"externalName"})); !name.empty())
    w.write(0, "External Name:\t" + name + "\n");
  if (const json& ingress = arr(at(service, {"status", "loadBalancer", "ingress"})); !ingress.empty()) {
    std::string list;
    for (const auto& entry : ingress) {
      if (!list.empty()) list += ", ";
      if (const std::string ip = str(at(entry, {"ip"})); !ip.empty()) {
        list += ip;
        if (const std::string mode = str(at(entry, {"ipMode"})); !mode.empty()) list += " (" + mode + ")";
      } else {
        list += str(at(entry, {"hostname"}));
      }
    }
    w.write(0, "LoadBalancer Ingress:\t" + list + "\n");
  }
  for (const auto& port : arr(at(spec, {"ports"}))) {
    const std::string protocol = str(at(port, {"protocol"}));
    std::string name = str(at(port, {"name"}));
    const std::string own_name = name;
    if (name.empty()) name = "<unset>";
    w.write(0, "Port:\t" + name + "\t" + std::to_string(num(at(port, {"port"}))) + "/" + protocol + "\n");
    w.write(0, "TargetPort:\t" + value_text(at(port, {"targetPort"})) + "/" + protocol + "\n");
    if (num(at(port, {"nodePort"})) != 0)
      w.write(0, "NodePort:\t" + name + "\t" + std::to_string(num(at(port, {"nodePort"}))) + "/" + protocol + "\n");
    w.write(0, "Endpoints:\t" + endpoint_slices_text(slices_of(related, name_of(service)), own_name) + "\n");
  }
  w.write(0, "Session Affinity:\t" + str(at(spec, {"sessionAffinity"})) + "\n");
  if (const std::string policy = str(at(spec, {"externalTrafficPolicy"})); !policy.empty())
    w.write(0, "External Traffic Policy:\t" + policy + "\n");
  if (const std::string policy = str(at(spec, {"internalTrafficPolicy"})); !policy.empty())
    w.write(0, "Internal Traffic Policy:\t" + policy + "\n");
  if (num(at(spec, {"healthCheckNodePort"})) != 0)
    w.write(0, "HealthCheck NodePort:\t" + std::to_string(num(at(spec, {"healthCheckNodePort"}))) + "\n");
  if (const std::string ranges = list_text(at(spec, {"loadBalancerSourceRanges"}), ","); !ranges.empty())
    w.write(0, "LoadBalancer Source Ranges:\t" + ranges + "\n");
  if (related.events) write_events(w, *related.events, now);
}

void describe_endpoints(Writer& w, const json& endpoints, const Related& related, TimePoint now) {
  write_name(w, endpoints);
  write_metadata(w, endpoints);
  w.write(0, "Subsets:\n");
  for (const auto& subset : arr(at(endpoints, {"subsets"}))) {
    for (const auto& [field, title] :
         {std::pair{"addresses", "Addresses"}, std::pair{"notReadyAddresses", "NotReadyAddresses"}}) {
      std::string list;
      for (const auto& address : arr(at(subset, {field}))) list += (list.empty() ? "" : ",") + str(at(address, {"ip"}));
      w.write(1, std::string(title) + ":\t" + (list.empty() ? "<none>" : list) + "\n");
    }
    if (const json& ports = arr(at(subset, {"ports"})); !ports.empty()) {
      w.write(1, "Ports:\n");
      w.write(2, "Name\tPort\tProtocol\n");
      w.write(2, "----\t----\t--------\n");
      for (const auto& port : ports) {
        const std::string name = str(at(port, {"name"}));
        w.write(2, (name.empty() ? "<unset>" : name) + "\t" + std::to_string(num(at(port, {"port"}))) + "\t" +
                       str(at(port, {"protocol"})) + "\n");
      }
    }
    w.write(0, "\n");
  }
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

std::set<std::string> shown_services(const json& object) {
  std::set<std::string> names;
  if (str(at(object, {"kind"})) == "Service") {
    names.insert(name_of(object));
    return names;
  }
  const json& spec = at(object, {"spec"});
  add_backend_service(names, at(spec, {"defaultBackend"}));
  for (const auto& rule : arr(at(spec, {"rules"})))
    for (const auto& path : arr(at(rule, {"http", "paths"}))) add_backend_service(names, at(path, {"backend"}));
  return names;
}

Describer network_describer(std::string_view group, std::string_view kind) {
  if (group.empty() && kind == "Service") return describe_service;
  if (group.empty() && kind == "Endpoints") return describe_endpoints;
  if (group == "networking.k8s.io" && kind == "Ingress") return describe_ingress;
  return nullptr;
}

}  // namespace kw::cli::describe
