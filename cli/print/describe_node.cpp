// kubectl describe's text for a Node: its conditions, addresses, capacity, system info, the
// pods bound to it with what they request of it, and its Lease.
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>

#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::GoQuantity;
using api::str;
using nlohmann::json;

using ResourceList = std::map<std::string, GoQuantity>;

GoQuantity quantity_of(const json& value) {
  auto parsed = api::parse_go_quantity(value);
  return parsed ? *parsed : GoQuantity{};
}

ResourceList resource_list(const json& list) {
  ResourceList out;
  if (list.is_object())
    for (const auto& [name, value] : list.items()) out[name] = quantity_of(value);
  return out;
}

void add_into(ResourceList& total, const ResourceList& more) {
  for (const auto& [name, value] : more) {
    auto [it, inserted] = total.try_emplace(name, value);
    if (!inserted) it->second.add(value);
  }
}

// What a pod asks of its node (`part` "requests" or "limits"): its containers' sum, at least
// each init container's own, plus the pod's overhead, or the pod-level resources when set.
ResourceList pod_resources(const json& pod, const char* part) {
  const json& spec = at(pod, {"spec"});
  if (const json& own = at(spec, {"resources", part}); own.is_object() && !own.empty()) {
    ResourceList out = resource_list(own);
    add_into(out, resource_list(at(spec, {"overhead"})));
    return out;
  }
  ResourceList out;
  for (const auto& container : arr(at(spec, {"containers"})))
    add_into(out, resource_list(at(container, {"resources", part})));
  for (const auto& container : arr(at(spec, {"initContainers"})))
    for (const auto& [name, value] : resource_list(at(container, {"resources", part}))) {
      auto [it, inserted] = out.try_emplace(name, value);
      if (!inserted && it->second.compare(value) < 0) it->second = value;
    }
  add_into(out, resource_list(at(spec, {"overhead"})));
  return out;
}

// int64(float64(part) / float64(whole) * 100) as Go computes it on amd64, where an undefined
// conversion (a whole of 0) gives the smallest int64.
std::int64_t percent(std::int64_t part, std::int64_t whole) {
  const double value = static_cast<double>(part) / static_cast<double>(whole) * 100;
  if (std::isnan(value) || std::isinf(value) || value >= 9.2e18 || value <= -9.2e18) return LLONG_MIN;
  return static_cast<std::int64_t>(value);
}

std::string with_percent(const GoQuantity& value, std::int64_t part, std::int64_t whole) {
  return value.string() + " (" + std::to_string(percent(part, whole)) + "%)";
}

GoQuantity get(const ResourceList& list, const std::string& name) {
  auto found = list.find(name);
  return found == list.end() ? GoQuantity{} : found->second;
}

bool standard_container_resource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
}

void write_node_resources(Writer& w, const json& node, const std::vector<json>& pods, TimePoint now) {
  w.write(0, "Non-terminated Pods:\t(" + std::to_string(pods.size()) + " in total)\n");
  w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
  w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
  ResourceList allocatable = resource_list(at(node, {"status", "capacity"}));
  if (const json& own = at(node, {"status", "allocatable"}); own.is_object() && !own.empty())
    allocatable = resource_list(own);
  const std::int64_t cpu = get(allocatable, "cpu").milli_value(), memory = get(allocatable, "memory").value();
  ResourceList requests, limits;
  for (const auto& pod : pods) {
    const ResourceList request = pod_resources(pod, "requests"), limit = pod_resources(pod, "limits");
    add_into(requests, request);
    add_into(limits, limit);
    w.write(1, str(at(pod, {"metadata", "namespace"})) + "\t" + str(at(pod, {"metadata", "name"})) + "\t\t" +
                   with_percent(get(request, "cpu"), get(request, "cpu").milli_value(), cpu) + "\t" +
                   with_percent(get(limit, "cpu"), get(limit, "cpu").milli_value(), cpu) + "\t" +
                   with_percent(get(request, "memory"), get(request, "memory").value(), memory) + "\t" +
                   with_percent(get(limit, "memory"), get(limit, "memory").value(), memory) + "\t" +
                   api::print::age_of(pod, now) + "\n");
  }
  w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
  w.write(1, "Resource\tRequests\tLimits\n");
  w.write(1, "--------\t--------\t------\n");
  // Totals against nothing allocatable read 0%.
  auto total = [&](const std::string& name, bool milli) {
    const GoQuantity whole = get(allocatable, name);
    const std::int64_t of = milli ? whole.milli_value() : whole.value();
    const GoQuantity request = get(requests, name), limit = get(limits, name);
    const auto value = [&](const GoQuantity& q) { return milli ? q.milli_value() : q.value(); };
    w.write(1, name + "\t" + request.string() + " (" + std::to_string(of == 0 ? 0 : percent(value(request), of)) +
                   "%)\t" + limit.string() + " (" + std::to_string(of == 0 ? 0 : percent(value(limit), of)) + "%)\n");
  };
  total("cpu", true);
  total("memory", false);
  total("ephemeral-storage", false);
  for (const auto& [name, _] : allocatable)
    if (name.starts_with("hugepages-")) total(name, false);
  for (const auto& [name, _] : allocatable)
    if (!standard_container_resource(name) && name != "pods")
      w.write(1, name + "\t" + get(requests, name).string() + "\t" + get(limits, name).string() + "\n");
}

std::string taint_text(const json& taint) {
  std::string text = str(at(taint, {"key"}));
  if (const std::string value = str(at(taint, {"value"})); !value.empty()) text += "=" + value;
  return text + ":" + str(at(taint, {"effect"}));
}

}  // namespace

void describe_node(Writer& w, const json& node, const Related& related, TimePoint now) {
  const json& spec = at(node, {"spec"});
  const json& status = at(node, {"status"});
  write_name(w, node, false);
  std::set<std::string> roles;
  if (const json& labels = at(node, {"metadata", "labels"}); labels.is_object())
    for (const auto& [key, value] : labels.items()) {
      if (key.starts_with("node-role.kubernetes.io/") && key.size() > 24)
        roles.insert(key.substr(24));
      else if (key == "kubernetes.io/role" && !str(value).empty())
        roles.insert(str(value));
    }
  std::string role_text;
  for (const auto& role : roles) role_text += (role_text.empty() ? "" : ",") + role;
  w.write(0, "Roles:\t" + (role_text.empty() ? "<none>" : role_text) + "\n");
  write_labels(w, "Labels", at(node, {"metadata", "labels"}));
  write_annotations(w, "Annotations", at(node, {"metadata", "annotations"}));
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(node, {"metadata", "creationTimestamp"})) + "\n");
  std::vector<json> taints(arr(at(spec, {"taints"})).begin(), arr(at(spec, {"taints"})).end());
  std::ranges::stable_sort(taints, {},
                           [](const json& t) { return str(at(t, {"effect"})) + "," + str(at(t, {"key"})); });
  w.write(0, "Taints:\t");
  if (taints.empty()) w.write(0, "<none>\n");
  for (std::size_t i = 0; i < taints.size(); ++i) w.write(0, (i == 0 ? "" : "\t") + taint_text(taints[i]) + "\n");
  w.write(0, std::string("Unschedulable:\t") + (at(spec, {"unschedulable"}) == true ? "true" : "false") + "\n");
  if (related.lease.is_object()) {
    w.write(0, "Lease:\n");
    const json& lease = at(related.lease, {"spec"});
    const std::string holder = str(at(lease, {"holderIdentity"}));
    w.write(1, "HolderIdentity:\t" + (at(lease, {"holderIdentity"}).is_string() ? holder : "<unset>") + "\n");
    const std::string acquired = rfc1123z(at(lease, {"acquireTime"}));
    w.write(1, "AcquireTime:\t" + (acquired.empty() ? "<unset>" : acquired) + "\n");
    const std::string renewed = rfc1123z(at(lease, {"renewTime"}));
    w.write(1, "RenewTime:\t" + (renewed.empty() ? "<unset>" : renewed) + "\n");
  } else {
    w.write(0, "Lease:\tFailed to get lease: " + related.lease_error + "\n");
  }
  if (const json& conditions = arr(at(status, {"conditions"})); !conditions.empty()) {
    w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
    w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
    for (const auto& c : conditions)
      w.write(1, str(at(c, {"type"})) + " \t" + str(at(c, {"status"})) + " \t" +
                     rfc1123z(at(c, {"lastHeartbeatTime"})) + " \t" + rfc1123z(at(c, {"lastTransitionTime"})) + " \t" +
                     str(at(c, {"reason"})) + " \t" + str(at(c, {"message"})) + "\n");
  }
  w.write(0, "Addresses:\n");
  for (const auto& address : arr(at(status, {"addresses"})))
    w.write(1, str(at(address, {"type"})) + ":\t" + str(at(address, {"address"})) + "\n");
  for (const auto& [field, title] : {std::pair{"capacity", "Capacity"}, std::pair{"allocatable", "Allocatable"}}) {
    const json& list = at(status, {field});
    if (!list.is_object() || list.empty()) continue;
    w.write(0, std::string(title) + ":\n");
    for (const auto& [name, value] : list.items()) w.write(0, "  " + name + ":\t" + quantity_of(value).string() + "\n");
  }
  const json& info = at(status, {"nodeInfo"});
  w.write(0, "System Info:\n");
  for (const auto& [field, title] :
       {std::pair{"machineID", "Machine ID"}, std::pair{"systemUUID", "System UUID"}, std::pair{"bootID", "Boot ID"},
        std::pair{"kernelVersion", "Kernel Version"}, std::pair{"osImage", "OS Image"},
        std::pair{"operatingSystem", "Operating System"}, std::pair{"architecture", "Architecture"},
        std::pair{"containerRuntimeVersion", "Container Runtime Version"},
        std::pair{"kubeletVersion", "Kubelet Version"}, std::pair{"kubeProxyVersion", "Kube-Proxy Version"}})
    w.write(0, std::string("  ") + title + ":\t" + str(at(info, {field})) + "\n");
  if (const std::string cidr = str(at(spec, {"podCIDR"})); !cidr.empty()) w.write(0, "PodCIDR:\t" + cidr + "\n");
  std::string cidrs;
  for (const auto& cidr : arr(at(spec, {"podCIDRs"}))) cidrs += (cidrs.empty() ? "" : ",") + str(cidr);
  if (!cidrs.empty()) w.write(0, "PodCIDRs:\t" + cidrs + "\n");
  if (const std::string provider = str(at(spec, {"providerID"})); !provider.empty())
    w.write(0, "ProviderID:\t" + provider + "\n");
  write_node_resources(w, node, related.pods, now);
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace kw::cli::describe
