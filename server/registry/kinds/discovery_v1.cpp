// discovery.k8s.io/v1: EndpointSlice.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// --- addresses --------------------------------------------------------------------------------

// ValidateEndpointIP: addresses that cannot be an endpoint's.
void validate_endpoint_ip(Causes& causes, const std::string& field, const std::string& text) {
  const auto ip = parse_ip(text);
  if (!ip) {
    invalid_value(causes, field, text, "must be a valid IP address");
    return;
  }
  const auto& b = ip->bytes;
  const bool v4 = is_v4(*ip);  // IPv4-mapped addresses count as IPv4, as Go's To4 has it
  const auto zero = [](std::uint8_t x) { return x == 0; };
  const bool unspecified = v4 ? std::all_of(b.begin() + 12, b.end(), zero) : std::all_of(b.begin(), b.end(), zero);
  const bool loopback = v4 ? b[12] == 127 : std::all_of(b.begin(), b.end() - 1, zero) && b[15] == 1;
  const bool link_local = v4 ? b[12] == 169 && b[13] == 254 : b[0] == 0xfe && (b[1] & 0xc0) == 0x80;
  const bool link_local_multicast =
      v4 ? b[12] == 224 && b[13] == 0 && b[14] == 0 : b[0] == 0xff && (b[1] & 0x0f) == 0x02;
  if (unspecified) invalid_value(causes, field, text, "may not be unspecified (" + text + ")");
  if (loopback) invalid_value(causes, field, text, "may not be in the loopback range (127.0.0.0/8, ::1/128)");
  if (link_local) invalid_value(causes, field, text, "may not be in the link-local range (169.254.0.0/16, fe80::/10)");
  if (link_local_multicast)
    invalid_value(causes, field, text, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)");
}

// IsFullyQualifiedDomainName.
void validate_fqdn(Causes& causes, const std::string& field, std::string name) {
  if (name.empty()) {
    required(causes, field);
    return;
  }
  if (name.ends_with('.')) name.pop_back();
  if (const auto errors = subdomain_errors(name); !errors.empty()) {
    invalid_value(causes, field, name, join(errors, ","));
    return;
  }
  if (name.find('.') == std::string::npos) {
    invalid_value(causes, field, name, "should be a domain with at least two segments separated by dots");
    return;
  }
  for (std::size_t start = 0; start <= name.size();) {
    const auto dot = std::min(name.find('.', start), name.size());
    const std::string label = name.substr(start, dot - start);
    if (const auto errors = dns1123_label_errors(label); !errors.empty()) {
      invalid_value(causes, field, label, join(errors, ","));
      return;
    }
    start = dot + 1;
  }
}

// --- EndpointSlice ---------------------------------------------------------------------------

constexpr std::size_t k_max_endpoints = 1000;
constexpr std::size_t k_max_addresses = 100;
constexpr std::size_t k_max_ports = 20000;
constexpr std::size_t k_max_topology_labels = 16;
constexpr std::size_t k_max_hints = 8;

// The first three items, then "+ N more..." (or "<unset>" for none), as the printer lists them.
std::string list_with_more(const std::vector<std::string>& items) {
  constexpr std::size_t k_shown = 3;
  if (items.empty()) return "<unset>";
  std::string out = join(std::vector<std::string>(items.begin(), items.begin() + std::min(items.size(), k_shown)), ",");
  if (items.size() > k_shown) out += " + " + std::to_string(items.size() - k_shown) + " more...";
  return out;
}

Cells print_endpoint_slice(const json& slice, TimePoint now) {
  std::vector<std::string> ports, addresses;
  for (const auto& port : arr(at(slice, {"ports"}))) {
    if (at(port, {"port"}).is_number())
      ports.push_back(std::to_string(num(at(port, {"port"}))));
    else if (at(port, {"name"}).is_string())
      ports.push_back(str(at(port, {"name"})));
    else
      ports.emplace_back("*");
  }
  for (const auto& endpoint : arr(at(slice, {"endpoints"})))
    for (const auto& address : arr(at(endpoint, {"addresses"}))) addresses.push_back(str(address));
  return {name_of(slice), str(at(slice, {"addressType"})), list_with_more(ports), list_with_more(addresses),
          age_of(slice, now)};
}

// SetDefaults_EndpointPort: an unnamed TCP port unless said otherwise.
void default_endpoint_slice(json& slice) {
  auto ports = slice.find("ports");
  if (ports == slice.end() || !ports->is_array()) return;
  for (auto& port : *ports) {
    if (!port.is_object()) continue;
    if (!port.contains("name")) port["name"] = "";
    if (!port.contains("protocol")) port["protocol"] = "TCP";
  }
}

// v1 cannot write deprecatedTopology: it is dropped from every endpoint, its hostname label
// becoming nodeName when that is unset and the node was named in the previous topology.
void drop_topology(json& slice, const json* old) {
  auto endpoints = slice.find("endpoints");
  if (endpoints == slice.end() || !endpoints->is_array()) return;
  if (old != nullptr && at(*old, {"endpoints"}) == *endpoints) return;
  std::set<std::string> previous_nodes;
  if (old != nullptr)
    for (const auto& endpoint : arr(at(*old, {"endpoints"})))
      if (const auto node = str(at(endpoint, {"deprecatedTopology", "kubernetes.io/hostname"})); !node.empty())
        previous_nodes.insert(node);
  for (auto& endpoint : *endpoints) {
    if (!endpoint.is_object()) continue;
    const std::string node = str(at(endpoint, {"deprecatedTopology", "kubernetes.io/hostname"}));
    if (!endpoint.contains("nodeName") && previous_nodes.contains(node) && subdomain_errors(node).empty())
      endpoint["nodeName"] = node;
    endpoint.erase("deprecatedTopology");
  }
}

void prepare_endpoint_slice(json& slice) {
  object_member(slice, "metadata")["generation"] = 1;
  drop_topology(slice, nullptr);
}

// A list field as semantic equality sees it: missing and empty are the same.
json list_or_empty(const json& object, const char* key) {
  const json& value = at(object, {key});
  return value.is_array() ? value : json::array();
}

// PrepareForUpdate: any change besides metadata, or a change of labels, is a new generation.
void prepare_endpoint_slice_update(json& slice, const json& old) {
  const bool changed = at(slice, {"addressType"}) != at(old, {"addressType"}) ||
                       list_or_empty(slice, "endpoints") != list_or_empty(old, "endpoints") ||
                       list_or_empty(slice, "ports") != list_or_empty(old, "ports") ||
                       at(slice, {"metadata", "labels"}) != at(old, {"metadata", "labels"});
  if (changed) object_member(slice, "metadata")["generation"] = num(at(old, {"metadata", "generation"})) + 1;
  drop_topology(slice, &old);
}

void validate_hints(Causes& causes, const json& hints, const std::string& path) {
  const json& zones = arr(at(hints, {"forZones"}));
  if (zones.size() > k_max_hints) {
    too_many(causes, path + ".forZones", zones.size(), k_max_hints);
    return;
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    const std::string field = path + ".forZones[" + std::to_string(i) + "].name";
    const std::string zone = str(at(zones[i], {"name"}));
    if (!seen.insert(zone).second) duplicate(causes, field, zone);
    invalid_each(causes, field, zone, label_value_errors(zone));
  }
  const json& nodes = arr(at(hints, {"forNodes"}));
  if (nodes.size() > k_max_hints) {
    too_many(causes, path + ".forNodes", nodes.size(), k_max_hints);
    return;
  }
  seen.clear();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string field = path + ".forNodes[" + std::to_string(i) + "].name";
    const std::string node = str(at(nodes[i], {"name"}));
    if (!seen.insert(node).second) duplicate(causes, field, node);
    invalid_each(causes, field, node, subdomain_errors(node));
  }
}

void validate_endpoint(Causes& causes, const json& endpoint, const std::string& type, const std::string& path) {
  const json& addresses = arr(at(endpoint, {"addresses"}));
  if (addresses.empty())
    required(causes, path + ".addresses", "must contain at least 1 address");
  else if (addresses.size() > k_max_addresses)
    too_many(causes, path + ".addresses", addresses.size(), k_max_addresses);
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::string field = path + ".addresses[" + std::to_string(i) + "]";
    const std::string address = str(addresses[i]);
    if (type == "IPv4" || type == "IPv6") {
      const auto ip = parse_ip(address);
      if (!ip || is_v4(*ip) != (type == "IPv4"))
        invalid_value(causes, field, address,
                      type == "IPv4" ? "must be a valid IPv4 address" : "must be a valid IPv6 address");
      validate_endpoint_ip(causes, field, address);
    } else if (type == "FQDN") {
      validate_fqdn(causes, field, address);
    }
  }
  if (const json& node = at(endpoint, {"nodeName"}); node.is_string())
    invalid_each(causes, path + ".nodeName", node, subdomain_errors(str(node)));
  const json& topology = at(endpoint, {"deprecatedTopology"});
  if (topology.is_object()) {
    if (topology.size() > k_max_topology_labels)
      too_many(causes, path + ".deprecatedTopology", topology.size(), k_max_topology_labels);
    validate_labels(causes, topology, path + ".deprecatedTopology");
    if (topology.contains("topology.kubernetes.io/zone"))
      add_cause(causes, path + ".deprecatedTopology[topology.kubernetes.io/zone]", "InternalError",
                "Internal error: reserved key was not removed in conversion");
  }
  if (const json& hostname = at(endpoint, {"hostname"}); hostname.is_string())
    invalid_each(causes, path + ".hostname", hostname, dns1123_label_errors(str(hostname)));
  if (const json& hints = at(endpoint, {"hints"}); hints.is_object()) validate_hints(causes, hints, path + ".hints");
}

void validate_ports(Causes& causes, const json& ports) {
  if (ports.size() > k_max_ports) {
    too_many(causes, "ports", ports.size(), k_max_ports);
    return;
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const json& port = ports[i];
    const std::string path = "ports[" + std::to_string(i) + "]";
    const std::string name = str(at(port, {"name"}));
    if (!name.empty()) invalid_each(causes, path + ".name", name, dns1123_label_errors(name));
    if (!names.insert(name).second) duplicate(causes, path + ".name", name);
    const json& protocol = at(port, {"protocol"});
    if (!protocol.is_string())
      required(causes, path + ".protocol");
    else if (protocol != "TCP" && protocol != "UDP" && protocol != "SCTP")
      unsupported(causes, path + ".protocol", protocol, {"SCTP", "TCP", "UDP"});
    if (const json& app = at(port, {"appProtocol"}); app.is_string())
      invalid_each(causes, path + ".appProtocol", app, qualified_name_errors(str(app)));
  }
}

void validate_endpoint_slice(const json& slice, Causes& causes) {
  const std::string type = str(at(slice, {"addressType"}));
  if (type.empty())
    required(causes, "addressType");
  else if (type != "IPv4" && type != "IPv6" && type != "FQDN")
    unsupported(causes, "addressType", type, {"FQDN", "IPv4", "IPv6"});
  const json& endpoints = arr(at(slice, {"endpoints"}));
  if (endpoints.size() > k_max_endpoints)
    too_many(causes, "endpoints", endpoints.size(), k_max_endpoints);
  else
    for (std::size_t i = 0; i < endpoints.size(); ++i)
      validate_endpoint(causes, endpoints[i], type, "endpoints[" + std::to_string(i) + "]");
  validate_ports(causes, arr(at(slice, {"ports"})));
}

void validate_endpoint_slice_update(const json& slice, const json& old, Causes& causes) {
  immutable(causes, "addressType", at(slice, {"addressType"}), at(old, {"addressType"}));
}

KindSpec endpoint_slice_row() {
  return {.info = {.group = "discovery.k8s.io",
                   .version = "v1",
                   .kind = "EndpointSlice",
                   .plural = "endpointslices",
                   .columns = {name_col(),
                               col("AddressType", "string",
                                   "addressType specifies the type of address carried by this EndpointSlice. All "
                                   "addresses in this slice must be the same type. This field is immutable after "
                                   "creation. The following address types are currently supported: * IPv4: "
                                   "Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
                                   "Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice "
                                   "controller only generates, and kube-proxy only processes, slices of addressType "
                                   "\"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" type."),
                               col("Ports", "string",
                                   "ports specifies the list of network ports exposed by each endpoint in this "
                                   "slice. Each port must have a unique name. Each slice may include a maximum of 100 "
                                   "ports. Services always have at least 1 port, so EndpointSlices generated by the "
                                   "EndpointSlice controller will likewise always have at least 1 port. "
                                   "EndpointSlices used for other purposes may have an empty ports list."),
                               col("Endpoints", "string",
                                   "endpoints is a list of unique endpoints in this slice. Each slice may include a "
                                   "maximum of 1000 endpoints."),
                               age_col()},
                   .printer = print_endpoint_slice},
          .generation = std::vector<std::string>{"addressType", "endpoints", "ports", "metadata.labels"},
          .strategy = {.defaults = default_endpoint_slice,
                       .prepare_create = prepare_endpoint_slice,
                       .prepare_update = prepare_endpoint_slice_update,
                       .validate = validate_endpoint_slice,
                       .validate_update = validate_endpoint_slice_update}};
}

}  // namespace

std::vector<KindSpec> discovery_v1_kinds() { return {endpoint_slice_row()}; }

}  // namespace kw::kinds
