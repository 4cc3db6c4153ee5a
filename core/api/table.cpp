#include "core/api/table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <optional>
#include <set>

#include "core/api/selector.hpp"

namespace kw::api {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;
using Cells = std::vector<json>;

// ---- small JSON accessors -----------------------------------------------------------------

const json& null_json() {
  static const json k_null;
  return k_null;
}

const json& at(const json& j, std::initializer_list<std::string_view> path) {
  const json* cur = &j;
  for (std::string_view key : path) {
    if (!cur->is_object()) return null_json();
    auto it = cur->find(key);
    if (it == cur->end()) return null_json();
    cur = &*it;
  }
  return *cur;
}

std::string str(const json& j) { return j.is_string() ? j.get<std::string>() : std::string(); }
std::int64_t num(const json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return j.get<std::int64_t>();
  if (j.is_number_float()) return static_cast<std::int64_t>(j.get<double>());
  return 0;
}
const json& arr(const json& j) {
  static const json k_empty = json::array();
  return j.is_array() ? j : k_empty;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// ---- time ---------------------------------------------------------------------------------

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// RFC 3339 ("2024-01-02T03:04:05Z", fractions and offsets allowed).
std::optional<TimePoint> parse_rfc3339(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  std::size_t pos = 19;
  std::chrono::nanoseconds frac{0};
  if (pos < s.size() && s[pos] == '.') {
    std::int64_t scale = 100'000'000, ns = 0;
    ++pos;
    std::size_t start = pos;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, scale /= 10) ns += (s[pos] - '0') * scale;
    if (pos == start) return std::nullopt;
    frac = std::chrono::nanoseconds(ns);
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om))
      return std::nullopt;
    offset_minutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  auto tp = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(mi) +
            std::chrono::seconds(sec) - std::chrono::minutes(offset_minutes);
  return std::chrono::time_point_cast<Clock::duration>(tp + frac);
}

std::optional<TimePoint> time_of(const json& j) {
  if (!j.is_string()) return std::nullopt;
  return parse_rfc3339(j.get_ref<const std::string&>());
}

std::string since(std::optional<TimePoint> t, TimePoint now) {
  if (!t) return "<unknown>";
  return format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string format_labels(const json& labels) {
  std::vector<std::string> parts;
  if (labels.is_object())
    for (const auto& [k, v] : labels.items()) parts.push_back(k + "=" + str(v));
  std::sort(parts.begin(), parts.end());
  return parts.empty() ? "<none>" : join(parts, ",");
}

std::string selector_string(const json& selector) {
  auto s = LabelSelector::from_label_selector_json(selector);
  return s ? s->to_string() : std::string("<error>");
}

std::pair<std::string, std::string> container_cells(const json& containers) {
  std::vector<std::string> names, images;
  for (const auto& c : arr(containers)) {
    names.push_back(str(at(c, {"name"})));
    images.push_back(str(at(c, {"image"})));
  }
  return {join(names, ","), join(images, ",")};
}

std::string name_of(const json& o) { return str(at(o, {"metadata", "name"})); }
std::string age_of(const json& o, TimePoint now) { return since(time_of(at(o, {"metadata", "creationTimestamp"})), now); }

// ---- column definitions ---------------------------------------------------------------------

const char* const k_name_doc =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* const k_created_doc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

ColumnDefinition col(std::string name, std::string type, std::string description, int priority = 0,
                     std::string format = "") {
  return ColumnDefinition{std::move(name), std::move(type), std::move(format), std::move(description), priority, ""};
}
ColumnDefinition name_col() { return col("Name", "string", k_name_doc, 0, "name"); }
ColumnDefinition age_col() { return col("Age", "string", k_created_doc); }
ColumnDefinition containers_col() { return col("Containers", "string", "Names of each container in the template.", 1); }
ColumnDefinition images_col() { return col("Images", "string", "Images referenced by each container in the template.", 1); }

using Printer = Cells (*)(const json&, TimePoint);

struct Builtin {
  std::string_view group;
  std::string_view kind;
  std::vector<ColumnDefinition> (*columns)();
  Printer print;
};

// ---- printers (kube-apiserver pkg/printers/internalversion/printers.go) ----------------------

Cells print_pod(const json& pod, TimePoint now);

Cells print_namespace(const json& o, TimePoint now) {
  return {name_of(o), str(at(o, {"status", "phase"})), age_of(o, now)};
}

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

std::int64_t size_of(const json& j) { return j.is_object() || j.is_array() ? static_cast<std::int64_t>(j.size()) : 0; }

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

Cells print_endpoints(const json& o, TimePoint now) { return {name_of(o), format_endpoints(o), age_of(o, now)}; }

std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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

std::int64_t replicas_of(const json& o) {
  const json& r = at(o, {"spec", "replicas"});
  return r.is_number() ? num(r) : 1;  // defaulted to 1 by the API server
}

Cells print_deployment(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o),
          std::to_string(num(at(o, {"status", "readyReplicas"}))) + "/" + std::to_string(replicas_of(o)),
          num(at(o, {"status", "updatedReplicas"})), num(at(o, {"status", "availableReplicas"})), age_of(o, now),
          names, images, selector_string(at(o, {"spec", "selector"}))};
}

Cells print_replica_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o), replicas_of(o), num(at(o, {"status", "replicas"})), num(at(o, {"status", "readyReplicas"})),
          age_of(o, now), names, images, selector_string(at(o, {"spec", "selector"}))};
}

Cells print_stateful_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o), std::to_string(num(at(o, {"status", "readyReplicas"}))) + "/" + std::to_string(replicas_of(o)),
          age_of(o, now), names, images};
}

Cells print_daemon_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  const json& s = at(o, {"status"});
  return {name_of(o), num(at(s, {"desiredNumberScheduled"})), num(at(s, {"currentNumberScheduled"})),
          num(at(s, {"numberReady"})), num(at(s, {"updatedNumberScheduled"})), num(at(s, {"numberAvailable"})),
          format_labels(at(o, {"spec", "template", "spec", "nodeSelector"})), age_of(o, now), names, images,
          selector_string(at(o, {"spec", "selector"}))};
}

// ---- pods -----------------------------------------------------------------------------------

bool condition_true(const json& pod, std::string_view type) {
  for (const auto& c : arr(at(pod, {"status", "conditions"})))
    if (str(at(c, {"type"})) == type) return str(at(c, {"status"})) == "True";
  return false;
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

// ---- the table of built-in kinds ------------------------------------------------------------

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> k_builtins = {
      {"", "Pod",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(),
             col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
             col("Status", "string", "The aggregate status of the containers in this pod."),
             col("Restarts", "string",
                 "The number of times the containers in this pod have been restarted and when the last container "
                 "in this pod has restarted."),
             age_col(),
             col("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
             col("Node", "string", "NodeName indicates in which node this pod is scheduled.", 1),
             col("Nominated Node", "string",
                 "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be "
                 "scheduled right away as preemption victims receive their graceful termination periods.", 1),
             col("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", 1)};
       },
       print_pod},
      {"", "Namespace",
       [] { return std::vector<ColumnDefinition>{name_col(), col("Status", "string", "The status of the namespace"), age_col()}; },
       print_namespace},
      {"", "Service",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(),
             col("Type", "string", "type determines how the Service is exposed."),
             col("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
             col("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
             col("Port(s)", "string", "The list of ports that are exposed by this service."),
             age_col(),
             col("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", 1)};
       },
       print_service},
      {"", "ConfigMap",
       [] { return std::vector<ColumnDefinition>{name_col(), col("Data", "string", "Data contains the configuration data."), age_col()}; },
       print_config_map},
      {"", "Secret",
       [] {
         return std::vector<ColumnDefinition>{name_col(), col("Type", "string", "Used to facilitate programmatic handling of secret data."),
                                              col("Data", "string", "Data contains the secret data."), age_col()};
       },
       print_secret},
      {"", "ServiceAccount",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(), col("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."), age_col()};
       },
       print_service_account},
      {"", "Endpoints",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(), col("Endpoints", "string", "The set of all endpoints is the union of all subsets."), age_col()};
       },
       print_endpoints},
      {"", "Event",
       [] {
         return std::vector<ColumnDefinition>{
             col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
             col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
             col("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
             col("Object", "string", "The object that this event is about."),
             col("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", 1),
             col("Source", "string", "The component reporting this event. Should be a short machine understandable string.", 1),
             col("Message", "string", "A human-readable description of the status of this operation."),
             col("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
             col("Count", "string", "The number of times this event has occurred.", 1),
             col("Name", "string", k_name_doc, 1, "name")};
       },
       print_event},
      {"", "Node",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(), col("Status", "string", "The status of the node"), col("Roles", "string", "The roles of the node"),
             age_col(), col("Version", "string", "Kubelet Version reported by the node."),
             col("Internal-IP", "string", "List of addresses reachable to the node.", 1),
             col("External-IP", "string", "List of addresses reachable to the node.", 1),
             col("OS-Image", "string", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
             col("Kernel-Version", "string", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
             col("Container-Runtime", "string", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1)};
       },
       print_node},
      {"apps", "Deployment",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(), col("Ready", "string", "Number of the pod with ready state"),
             col("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
             col("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
             age_col(), containers_col(), images_col(),
             col("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1)};
       },
       print_deployment},
      {"apps", "ReplicaSet",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(), col("Desired", "integer", "Replicas is the number of desired replicas."),
             col("Current", "integer", "Replicas is the most recently observed number of replicas."),
             col("Ready", "integer", "The number of ready replicas for this replica set."), age_col(), containers_col(),
             images_col(), col("Selector", "string", "Selector is a label query over pods that should match the replica count.", 1)};
       },
       print_replica_set},
      {"apps", "StatefulSet",
       [] {
         return std::vector<ColumnDefinition>{name_col(), col("Ready", "string", "Number of the pod with ready state"),
                                              age_col(), containers_col(), images_col()};
       },
       print_stateful_set},
      {"apps", "DaemonSet",
       [] {
         return std::vector<ColumnDefinition>{
             name_col(),
             col("Desired", "integer", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod)."),
             col("Current", "integer", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod."),
             col("Ready", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready."),
             col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
             col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)"),
             col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node."),
             age_col(), containers_col(), images_col(),
             col("Selector", "string", "A label query over pods that are managed by the daemon set.", 1)};
       },
       print_daemon_set},
  };
  return k_builtins;
}

const Builtin* find_builtin(std::string_view group, std::string_view kind) {
  for (const auto& b : builtins())
    if (b.group == group && b.kind == kind) return &b;
  return nullptr;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// apiextensions' cellForJSONValue: the cell of a typed additionalPrinterColumn.
json typed_cell(const ColumnDefinition& column, const json& value, TimePoint now) {
  if (value.is_null()) return nullptr;
  if (column.type == "integer" && value.is_number()) return num(value);
  if (column.type == "number" && value.is_number()) return value.get<double>();
  if (column.type == "boolean" && value.is_boolean()) return value;
  if (column.type == "date") {
    if (!value.is_string()) return nullptr;
    auto t = time_of(value);
    return t ? since(t, now) : std::string("<invalid>");
  }
  if (column.type == "string" || column.type.empty()) return value.is_string() ? value.get<std::string>() : value.dump();
  return nullptr;
}

json generic_cell(const ColumnDefinition& column, const json& object, TimePoint now) {
  if (!column.json_path.empty()) {
    const json* value = eval_json_path(object, column.json_path);
    return value ? typed_cell(column, *value, now) : json(nullptr);
  }
  if (column.format == "name" || iequals(column.name, "Name")) return name_of(object);
  if (iequals(column.name, "Age")) return age_of(object, now);
  if (iequals(column.name, "Created At")) return at(object, {"metadata", "creationTimestamp"});
  return nullptr;
}

}  // namespace

std::string format_age(std::chrono::seconds age) {
  const std::int64_t seconds = age.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const std::int64_t minutes = seconds / 60;
  if (minutes < 10) {
    std::int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const std::int64_t hours = minutes / 60;
  if (hours < 8) {
    std::int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    std::int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    std::int64_t dy = (hours / 24) % 365;
    std::string years = std::to_string(hours / 24 / 365) + "y";
    return dy == 0 ? years : years + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string age_since(const json& timestamp, TimePoint now) {
  if (timestamp.is_null() || (timestamp.is_string() && timestamp.get_ref<const std::string&>().empty()))
    return "<unknown>";
  auto t = time_of(timestamp);
  return t ? since(t, now) : std::string("<invalid>");
}

bool has_builtin_printer(std::string_view group, std::string_view kind) { return find_builtin(group, kind) != nullptr; }

std::vector<ColumnDefinition> builtin_columns(std::string_view group, std::string_view kind) {
  if (const Builtin* b = find_builtin(group, kind)) return b->columns();
  return {name_col(), col("Created At", "date", k_created_doc)};
}

json table_cells(const ResourceInfo& info, const json& object, TimePoint now) {
  json cells = json::array();
  const Builtin* builtin = find_builtin(info.group, info.kind);
  if (!builtin) {
    if (info.columns.empty()) return json::array({name_of(object), age_of(object, now)});
    for (const auto& column : info.columns) cells.push_back(generic_cell(column, object, now));
    return cells;
  }
  Cells printed = builtin->print(object, now);
  std::vector<ColumnDefinition> defs = builtin->columns();
  if (info.columns.empty()) return json(printed);
  for (const auto& column : info.columns) {
    auto it = std::find_if(defs.begin(), defs.end(), [&](const ColumnDefinition& d) { return iequals(d.name, column.name); });
    if (it != defs.end() && column.json_path.empty()) cells.push_back(printed[static_cast<std::size_t>(it - defs.begin())]);
    else cells.push_back(generic_cell(column, object, now));
  }
  return cells;
}

const json* eval_json_path(const json& object, std::string_view path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  if (!path.empty() && path.front() == '$') path.remove_prefix(1);
  const json* cur = &object;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::string key;
      while (i < path.size() && path[i] != '.' && path[i] != '[') {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        key += path[i++];
      }
      if (key.empty()) continue;
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) return nullptr;
      std::string_view inside = path.substr(i + 1, close - i - 1);
      i = close + 1;
      if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"') && inside.back() == inside.front()) {
        if (!cur->is_object()) return nullptr;
        auto it = cur->find(std::string(inside.substr(1, inside.size() - 2)));
        if (it == cur->end()) return nullptr;
        cur = &*it;
        continue;
      }
      long long index = 0;
      auto [ptr, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), index);
      if (ec != std::errc{} || ptr != inside.data() + inside.size() || !cur->is_array()) return nullptr;
      if (index < 0) index += static_cast<long long>(cur->size());
      if (index < 0 || static_cast<std::size_t>(index) >= cur->size()) return nullptr;
      cur = &(*cur)[static_cast<std::size_t>(index)];
    } else {
      return nullptr;
    }
  }
  return cur;
}

}  // namespace kw::api
