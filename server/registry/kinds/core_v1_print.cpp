// kube-apiserver's Table printers for the core/v1 kinds (pkg/printers/internalversion),
// cell for cell.
#include "server/registry/kinds/core_v1_print.hpp"

#include "core/api/quantity.hpp"
#include "core/util/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace kw::kinds {

using namespace api::print;

namespace {

using util::to_lower;

std::string load_balancer_ips(const json& svc) {
  std::vector<std::string> out;
  for (const auto& ing : arr(at(svc, {"status", "loadBalancer", "ingress"}))) {
    if (!str(at(ing, {"ip"})).empty()) out.push_back(str(ing["ip"]));
    else if (!str(at(ing, {"hostname"})).empty()) out.push_back(str(ing["hostname"]));
  }
  return join(out, ",");
}

std::string service_external_ip(const json& svc) {
  std::string type = str(at(svc, {"spec", "type"}));
  std::vector<std::string> external;
  for (const auto& ip : arr(at(svc, {"spec", "externalIPs"}))) external.push_back(str(ip));
  if (type == "ClusterIP" || type == "NodePort" || type.empty())
    return external.empty() ? "<none>" : join(external, ",");
  if (type == "LoadBalancer") {
    std::string lb = load_balancer_ips(svc);
    if (!external.empty()) return lb.empty() ? join(external, ",") : lb + "," + join(external, ",");
    return lb.empty() ? "<pending>" : lb;
  }
  if (type == "ExternalName") return str(at(svc, {"spec", "externalName"}));
  return "<unknown>";
}

std::string join_host_port(const std::string& host, std::int64_t port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string format_endpoints(const json& o) {
  const json& subsets = arr(at(o, {"subsets"}));
  if (subsets.empty()) return "<none>";
  std::vector<std::string> list;
  constexpr std::size_t k_max = 3;
  bool more = false;
  std::size_t count = 0;
  for (const auto& ss : subsets) {
    const json& addresses = arr(at(ss, {"addresses"}));
    const json& ports = arr(at(ss, {"ports"}));
    if (ports.empty()) {
      count += addresses.size();
      for (const auto& a : addresses) {
        if (list.size() == k_max) { more = true; break; }
        list.push_back(str(at(a, {"ip"})));
      }
      continue;
    }
    for (const auto& port : ports) {
      count += addresses.size();
      for (const auto& a : addresses) {
        if (list.size() == k_max) { more = true; break; }
        list.push_back(join_host_port(str(at(a, {"ip"})), num(at(port, {"port"}))));
      }
    }
  }
  std::string ret = join(list, ",");
  if (more) return ret + " + " + std::to_string(count - k_max) + " more...";
  return ret;
}

struct RestartTracker {
  std::int64_t count = 0;
  std::optional<TimePoint> last;

  void add(const json& status) {
    count += num(at(status, {"restartCount"}));
    auto finished = time_of(at(status, {"lastState", "terminated", "finishedAt"}));
    if (finished && (!last || *last < *finished)) last = finished;
  }
};

std::string terminated_reason(const json& terminated, std::string_view prefix) {
  std::string reason = str(at(terminated, {"reason"}));
  if (!reason.empty()) return std::string(prefix) + reason;
  std::int64_t signal = num(at(terminated, {"signal"}));
  if (signal != 0) return std::string(prefix) + "Signal:" + std::to_string(signal);
  return std::string(prefix) + "ExitCode:" + std::to_string(num(at(terminated, {"exitCode"})));
}

}  // namespace

Cells print_namespace(const json& o, TimePoint now) {
  return {name_of(o), str(at(o, {"status", "phase"})), age_of(o, now)};
}

Cells print_service(const json& o, TimePoint now) {
  std::string cluster_ip = "<none>";
  const json& ips = at(o, {"spec", "clusterIPs"});
  if (ips.is_array() && !ips.empty()) cluster_ip = str(ips[0]);
  else if (!str(at(o, {"spec", "clusterIP"})).empty()) cluster_ip = str(at(o, {"spec", "clusterIP"}));
  std::vector<std::string> ports;
  for (const auto& p : arr(at(o, {"spec", "ports"}))) {
    std::string protocol = str(at(p, {"protocol"}));
    if (protocol.empty()) protocol = "TCP";
    std::int64_t node_port = num(at(p, {"nodePort"}));
    ports.push_back(std::to_string(num(at(p, {"port"}))) +
                    (node_port > 0 ? ":" + std::to_string(node_port) : std::string()) + "/" + protocol);
  }
  std::string type = str(at(o, {"spec", "type"}));
  return {name_of(o), type.empty() ? "ClusterIP" : type, cluster_ip, service_external_ip(o),
          ports.empty() ? "<none>" : join(ports, ","), age_of(o, now), format_labels(at(o, {"spec", "selector"}))};
}

Cells print_config_map(const json& o, TimePoint now) {
  return {name_of(o), size_of(at(o, {"data"})) + size_of(at(o, {"binaryData"})), age_of(o, now)};
}

Cells print_secret(const json& o, TimePoint now) {
  std::string type = str(at(o, {"type"}));
  return {name_of(o), type.empty() ? "Opaque" : type, size_of(at(o, {"data"})), age_of(o, now)};
}

Cells print_service_account(const json& o, TimePoint now) {
  return {name_of(o), size_of(at(o, {"secrets"})), age_of(o, now)};
}

Cells print_endpoints(const json& o, TimePoint now) { return {name_of(o), format_endpoints(o), age_of(o, now)}; }

std::vector<api::ColumnDefinition> event_columns() {
  return {col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
          col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
          col("Reason", "string",
              "This should be a short, machine understandable string that gives the reason for the transition into "
              "the object's current status."),
          col("Object", "string", "The object that this event is about."),
          col("Subobject", "string",
              "If referring to a piece of an object instead of an entire object, this string should contain a valid "
              "JSON/Go field access statement.",
              1),
          col("Source", "string",
              "The component reporting this event. Should be a short machine understandable string.", 1),
          col("Message", "string", "A human-readable description of the status of this operation."),
          col("First Seen", "string",
              "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
          col("Count", "string", "The number of times this event has occurred.", 1),
          col("Name", "string", k_name_doc, 1, "name")};
}

Cells print_event(const json& o, TimePoint now) {
  std::optional<TimePoint> first_ts = time_of(at(o, {"firstTimestamp"}));
  std::string first = first_ts ? since(first_ts, now) : since(time_of(at(o, {"eventTime"})), now);
  std::optional<TimePoint> last_ts = time_of(at(o, {"lastTimestamp"}));
  std::string last = last_ts ? since(last_ts, now) : first;
  std::int64_t count = num(at(o, {"count"}));
  if (at(o, {"series"}).is_object()) {
    last = since(time_of(at(o, {"series", "lastObservedTime"})), now);
    count = num(at(o, {"series", "count"}));
  } else if (count == 0) {
    count = 1;
  }
  std::string kind = to_lower(str(at(o, {"involvedObject", "kind"})));
  std::string involved = str(at(o, {"involvedObject", "name"}));
  std::string target = involved.empty() ? kind : kind + "/" + involved;
  std::string component = str(at(o, {"source", "component"}));
  if (component.empty()) component = str(at(o, {"reportingComponent"}));
  std::string instance = str(at(o, {"source", "host"}));
  if (instance.empty()) instance = str(at(o, {"reportingInstance"}));
  std::string source = instance.empty() ? component : component + ", " + instance;
  std::string message = str(at(o, {"message"}));
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  message.erase(message.begin(), std::find_if(message.begin(), message.end(), not_space));
  message.erase(std::find_if(message.rbegin(), message.rend(), not_space).base(), message.end());
  return {last, str(at(o, {"type"})), str(at(o, {"reason"})), target, str(at(o, {"involvedObject", "fieldPath"})),
          source, message, first, count, name_of(o)};
}

Cells print_node(const json& o, TimePoint now) {
  std::vector<std::string> status;
  for (const auto& c : arr(at(o, {"status", "conditions"}))) {
    if (str(at(c, {"type"})) != "Ready") continue;
    status = {str(at(c, {"status"})) == "True" ? "Ready" : "NotReady"};
  }
  if (status.empty()) status.push_back("Unknown");
  if (at(o, {"spec", "unschedulable"}) == true) status.push_back("SchedulingDisabled");
  std::set<std::string> roles;
  const json& labels = at(o, {"metadata", "labels"});
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      constexpr std::string_view k_prefix = "node-role.kubernetes.io/";
      if (k.starts_with(k_prefix) && k.size() > k_prefix.size()) roles.insert(k.substr(k_prefix.size()));
      else if (k == "kubernetes.io/role" && !str(v).empty()) roles.insert(str(v));
    }
  }
  auto address = [&](std::string_view type) {
    for (const auto& a : arr(at(o, {"status", "addresses"})))
      if (str(at(a, {"type"})) == type) return str(at(a, {"address"}));
    return std::string("<none>");
  };
  auto info = [&](std::string_view field) {
    std::string v = str(at(o, {"status", "nodeInfo", field}));
    return v.empty() ? std::string("<unknown>") : v;
  };
  std::string role_text = join(std::vector<std::string>(roles.begin(), roles.end()), ",");
  return {name_of(o), join(status, ","), role_text.empty() ? "<none>" : role_text, age_of(o, now),
          str(at(o, {"status", "nodeInfo", "kubeletVersion"})), address("InternalIP"), address("ExternalIP"),
          info("osImage"), info("kernelVersion"), info("containerRuntimeVersion")};
}

Cells print_pod(const json& pod, TimePoint now) {
  const json& spec_init = arr(at(pod, {"spec", "initContainers"}));
  std::int64_t total = static_cast<std::int64_t>(arr(at(pod, {"spec", "containers"})).size());
  std::int64_t ready = 0;
  std::string phase = str(at(pod, {"status", "phase"}));
  std::string reason = str(at(pod, {"status", "reason"}));
  if (reason.empty()) reason = phase;
  for (const auto& c : arr(at(pod, {"status", "conditions"})))
    if (str(at(c, {"type"})) == "PodScheduled" && str(at(c, {"reason"})) == "SchedulingGated") reason = "SchedulingGated";

  std::set<std::string> restartable;  // sidecars: init containers with restartPolicy Always
  for (const auto& c : spec_init)
    if (str(at(c, {"restartPolicy"})) == "Always") {
      restartable.insert(str(at(c, {"name"})));
      ++total;
    }

  RestartTracker all, sidecars;
  bool initializing = false;
  const json& init_statuses = arr(at(pod, {"status", "initContainerStatuses"}));
  for (std::size_t i = 0; i < init_statuses.size(); ++i) {
    const json& c = init_statuses[i];
    all.add(c);
    bool is_sidecar = restartable.count(str(at(c, {"name"}))) != 0;
    if (is_sidecar) sidecars.add(c);
    const json& terminated = at(c, {"state", "terminated"});
    std::string waiting = str(at(c, {"state", "waiting", "reason"}));
    if (terminated.is_object() && num(at(terminated, {"exitCode"})) == 0) continue;
    if (is_sidecar && at(c, {"started"}) == true) {
      if (at(c, {"ready"}) == true) ++ready;
      continue;
    }
    if (terminated.is_object()) reason = terminated_reason(terminated, "Init:");
    else if (!waiting.empty() && waiting != "PodInitializing") reason = "Init:" + waiting;
    else reason = "Init:" + std::to_string(i) + "/" + std::to_string(spec_init.size());
    initializing = true;
    break;
  }

  RestartTracker restarts = all;
  if (!initializing || condition_true(pod, "Initialized")) {
    restarts = sidecars;
    bool has_running = false;
    const json& statuses = arr(at(pod, {"status", "containerStatuses"}));
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const json& c = *it;
      restarts.add(c);
      std::string waiting = str(at(c, {"state", "waiting", "reason"}));
      const json& terminated = at(c, {"state", "terminated"});
      if (!waiting.empty()) reason = waiting;
      else if (terminated.is_object()) reason = terminated_reason(terminated, "");
      else if (at(c, {"ready"}) == true && at(c, {"state", "running"}).is_object()) {
        has_running = true;
        ++ready;
      }
    }
    if (reason == "Completed" && has_running) reason = condition_true(pod, "Ready") ? "Running" : "NotReady";
  }

  bool deleting = !at(pod, {"metadata", "deletionTimestamp"}).is_null();
  if (deleting && str(at(pod, {"status", "reason"})) == "NodeLost") reason = "Unknown";
  else if (deleting && phase != "Succeeded" && phase != "Failed") reason = "Terminating";

  std::string restart_text = std::to_string(restarts.count);
  if (restarts.count != 0 && restarts.last) restart_text += " (" + since(restarts.last, now) + " ago)";

  std::string ip;
  const json& ips = arr(at(pod, {"status", "podIPs"}));
  if (!ips.empty()) ip = str(at(ips[0], {"ip"}));
  else ip = str(at(pod, {"status", "podIP"}));
  std::string node = str(at(pod, {"spec", "nodeName"}));
  std::string nominated = str(at(pod, {"status", "nominatedNodeName"}));
  std::string gates = "<none>";
  const json& readiness_gates = arr(at(pod, {"spec", "readinessGates"}));
  if (!readiness_gates.empty()) {
    std::size_t true_count = 0;
    for (const auto& g : readiness_gates) {
      std::string type = str(at(g, {"conditionType"}));
      for (const auto& c : arr(at(pod, {"status", "conditions"}))) {
        if (str(at(c, {"type"})) != type) continue;
        if (str(at(c, {"status"})) == "True") ++true_count;
        break;
      }
    }
    gates = std::to_string(true_count) + "/" + std::to_string(readiness_gates.size());
  }
  auto or_none = [](std::string s) { return s.empty() ? std::string("<none>") : s; };
  return {name_of(pod), std::to_string(ready) + "/" + std::to_string(total), reason, restart_text, age_of(pod, now),
          or_none(ip), or_none(node), or_none(nominated), gates};
}

}  // namespace kw::kinds

namespace kw::kinds {

using namespace api::print;

namespace {

constexpr std::string_view k_storage_class_annotation = "volume.beta.kubernetes.io/storage-class";

// helper.GetAccessModesAsString: each mode once, always in the order RWO, ROX, RWX, RWOP.
std::string access_modes_text(const json& modes) {
  std::vector<std::string> out;
  for (const auto& [mode, abbreviation] : {std::pair{"ReadWriteOnce", "RWO"}, std::pair{"ReadOnlyMany", "ROX"},
                                           std::pair{"ReadWriteMany", "RWX"}, std::pair{"ReadWriteOncePod", "RWOP"}})
    if (std::any_of(arr(modes).begin(), arr(modes).end(), [&](const json& m) { return str(m) == mode; }))
      out.emplace_back(abbreviation);
  return join(out, ",");
}

// The beta annotation wins over spec.storageClassName (helper.GetPersistentVolume(Claim)Class).
std::string storage_class_of(const json& o) {
  const json& annotations = at(o, {"metadata", "annotations"});
  if (annotations.is_object() && annotations.contains(k_storage_class_annotation))
    return str(annotations[std::string(k_storage_class_annotation)]);
  return str(at(o, {"spec", "storageClassName"}));
}

std::string phase_or_terminating(const json& o) {
  if (!at(o, {"metadata", "deletionTimestamp"}).is_null()) return "Terminating";
  return str(at(o, {"status", "phase"}));
}

std::string or_unset(const json& value) { return value.is_string() ? value.get<std::string>() : "<unset>"; }

}  // namespace

Cells print_persistent_volume(const json& o, TimePoint now) {
  const json& claim = at(o, {"spec", "claimRef"});
  const std::string claim_text =
      claim.is_object() ? str(at(claim, {"namespace"})) + "/" + str(at(claim, {"name"})) : std::string();
  return {name_of(o),
          api::quantity_string(at(o, {"spec", "capacity", "storage"})),
          access_modes_text(at(o, {"spec", "accessModes"})),
          str(at(o, {"spec", "persistentVolumeReclaimPolicy"})),
          phase_or_terminating(o),
          claim_text,
          storage_class_of(o),
          or_unset(at(o, {"spec", "volumeAttributesClassName"})),
          str(at(o, {"status", "reason"})),
          age_of(o, now),
          or_unset(at(o, {"spec", "volumeMode"}))};
}

Cells print_persistent_volume_claim(const json& o, TimePoint now) {
  const std::string volume = str(at(o, {"spec", "volumeName"}));
  std::string capacity, modes;
  if (!volume.empty()) {  // capacity and modes are the bound volume's
    modes = access_modes_text(at(o, {"status", "accessModes"}));
    capacity = api::quantity_string(at(o, {"status", "capacity", "storage"}));
  }
  return {name_of(o),
          phase_or_terminating(o),
          volume,
          capacity,
          modes,
          storage_class_of(o),
          or_unset(at(o, {"spec", "volumeAttributesClassName"})),
          age_of(o, now),
          or_unset(at(o, {"spec", "volumeMode"}))};
}

Cells print_replication_controller(const json& o, TimePoint now) {
  const json& replicas = at(o, {"spec", "replicas"});
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o),
          replicas.is_number() ? num(replicas) : 1,
          num(at(o, {"status", "replicas"})),
          num(at(o, {"status", "readyReplicas"})),
          age_of(o, now),
          names,
          images,
          format_labels(at(o, {"spec", "selector"}))};
}

Cells print_pod_template(const json& o, TimePoint) {
  auto [names, images] = container_cells(at(o, {"template", "spec", "containers"}));
  return {name_of(o), names, images, format_labels(at(o, {"template", "metadata", "labels"}))};
}

Cells print_component_status(const json& o, TimePoint) {
  std::string status = "Unknown", message, error;
  for (const auto& c : arr(at(o, {"conditions"}))) {
    if (str(at(c, {"type"})) != "Healthy") continue;
    status = str(at(c, {"status"})) == "True" ? "Healthy" : "Unhealthy";
    message = str(at(c, {"message"}));
    error = str(at(c, {"error"}));
    break;
  }
  return {name_of(o), status, message, error};
}

// "<resource>: <used>/<hard>" for each enforced resource in name order; limits.* go to the
// Limit column, everything else to Request.
Cells print_resource_quota(const json& o, TimePoint now) {
  std::vector<std::string> requests, limits;
  const json& hard = at(o, {"status", "hard"});
  if (hard.is_object())
    for (const auto& [resource, value] : hard.items()) {  // JSON objects iterate in key order
      const std::string entry = resource + ": " + api::quantity_string(at(o, {"status", "used", resource})) + "/" +
                                api::quantity_string(value);
      const auto dot = resource.find('.');
      (dot != std::string::npos && resource.substr(0, dot) == "limits" ? limits : requests).push_back(entry);
    }
  return {name_of(o), join(requests, ", "), join(limits, ", "), age_of(o, now)};
}

}  // namespace kw::kinds
