#include "cli/print/describe.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <vector>

#include "cli/print/describe_parts.hpp"
#include "core/api/json_access.hpp"
#include "core/api/jsonpath.hpp"
#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"

namespace kw::cli {

namespace describe {

namespace {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t newline; (newline = text.find('\n', start)) != std::string::npos; start = newline + 1)
    lines.push_back(text.substr(start, newline - start));
  lines.push_back(text.substr(start));
  return lines;
}

}  // namespace

void write_resources(Writer& w, const json& resources, int level) {
  for (const char* part : {"limits", "requests"}) {
    const json& list = at(resources, {part});
    if (!list.is_object() || list.empty()) continue;
    w.write(level, std::string(part == std::string("limits") ? "Limits" : "Requests") + ":\n");
    for (const auto& [name, quantity] : list.items()) w.write(level + 1, name + ":\t" + value_text(quantity) + "\n");
  }
}

void write_name(Writer& w, const json& object, bool with_namespace) {
  w.write(0, "Name:\t" + str(at(object, {"metadata", "name"})) + "\n");
  if (with_namespace) w.write(0, "Namespace:\t" + str(at(object, {"metadata", "namespace"})) + "\n");
}

std::string value_text(const json& value) {
  if (value.is_null()) return "";
  return value.is_string() ? value.get<std::string>() : api::go_value_text(value);
}

std::string rfc1123z(const json& value) {
  const auto time = api::print::time_of(value);
  if (!time) return "";
  const std::time_t seconds = std::chrono::system_clock::to_time_t(*time);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S %z", &local);
  return text;
}

std::string go_list(const json& list) {
  std::string out = "[";
  for (const auto& item : arr(list)) out += (out.size() > 1 ? " " : "") + value_text(item);
  return out + "]";
}

void write_labels(Writer& w, const std::string& title, const json& labels) {
  w.write(0, title + ":\t");
  if (!labels.is_object() || labels.empty()) return w.write(0, "<none>\n");
  bool first = true;
  for (const auto& [key, value] : labels.items()) {  // nlohmann keeps object keys sorted
    if (!first) w.write(0, "\t");
    w.write(0, key + "=" + value_text(value) + "\n");
    first = false;
  }
}

void write_annotations(Writer& w, const std::string& title, const json& annotations) {
  constexpr std::size_t k_max_annotation = 140;
  w.write(0, title + ":\t");
  std::vector<std::pair<std::string, std::string>> shown;
  if (annotations.is_object())
    for (const auto& [key, value] : annotations.items())
      if (key != "kubectl.kubernetes.io/last-applied-configuration") shown.emplace_back(key, value_text(value));
  if (shown.empty()) return w.write(0, "<none>\n");
  bool first = true;
  for (auto& [key, value] : shown) {
    if (!first) w.write(0, "\t");
    first = false;
    if (value.ends_with('\n')) value.pop_back();
    if (value.size() + key.size() + 2 > k_max_annotation || value.find('\n') != std::string::npos) {
      w.write(0, key + ":\n");
      for (const auto& line : split_lines(value))
        w.write(0, "\t  " + (line.size() > k_max_annotation - 2 ? line.substr(0, k_max_annotation - 2) + "..." : line) +
                       "\n");
    } else {
      w.write(0, key + ": " + value + "\n");
    }
  }
}

void write_metadata(Writer& w, const json& object) {
  write_labels(w, "Labels", at(object, {"metadata", "labels"}));
  write_annotations(w, "Annotations", at(object, {"metadata", "annotations"}));
}

void write_tolerations(Writer& w, const std::string& title, const json& tolerations) {
  w.write(0, title + ":\t");
  std::vector<json> sorted(arr(tolerations).begin(), arr(tolerations).end());
  if (sorted.empty()) return w.write(0, "<none>\n");
  std::ranges::stable_sort(sorted, {}, [](const json& t) { return str(at(t, {"key"})); });
  bool first = true;
  for (const auto& toleration : sorted) {
    if (!first) w.write(0, "\t");
    first = false;
    const std::string key = str(at(toleration, {"key"})), value = str(at(toleration, {"value"})),
                      effect = str(at(toleration, {"effect"}));
    std::string line = key;
    if (!value.empty()) line += "=" + value;
    if (!effect.empty()) line += ":" + effect;
    if (str(at(toleration, {"operator"})) == "Exists" && value.empty())
      line += key.empty() && effect.empty() ? "op=Exists" : " op=Exists";
    if (const json& seconds = at(toleration, {"tolerationSeconds"}); seconds.is_number())
      line += " for " + std::to_string(api::num(seconds)) + "s";
    w.write(0, line + "\n");
  }
}

namespace {

std::string ports_text(const json& ports, const char* field) {
  std::string out;
  for (const auto& port : arr(ports)) {
    if (!out.empty()) out += ", ";
    out += std::to_string(api::num(at(port, {field}))) + "/" + str(at(port, {"protocol"}));
  }
  return out;
}

void write_ports(Writer& w, const json& ports, const char* field, const char* one, const char* many) {
  const std::string text = ports_text(ports, field);
  if (text.find(',') != std::string::npos)
    w.write(2, std::string(many) + ":\t" + text + "\n");
  else
    w.write(2, std::string(one) + ":\t" + (text.empty() ? "<none>" : text) + "\n");
}

void write_list_lines(Writer& w, const char* title, const json& list) {
  if (arr(list).empty()) return;
  w.write(2, std::string(title) + ":\n");
  for (const auto& item : arr(list))
    for (const auto& line : split_lines(value_text(item))) w.write(3, line + "\n");
}

std::string probe_text(const json& probe) {
  const std::string attributes = "delay=" + std::to_string(api::num(at(probe, {"initialDelaySeconds"}))) +
                                 "s timeout=" + std::to_string(api::num(at(probe, {"timeoutSeconds"}))) +
                                 "s period=" + std::to_string(api::num(at(probe, {"periodSeconds"}))) +
                                 "s #success=" + std::to_string(api::num(at(probe, {"successThreshold"}))) +
                                 " #failure=" + std::to_string(api::num(at(probe, {"failureThreshold"})));
  if (const json& exec = at(probe, {"exec"}); exec.is_object())
    return "exec " + go_list(at(exec, {"command"})) + " " + attributes;
  if (const json& get = at(probe, {"httpGet"}); get.is_object()) {
    std::string scheme = str(at(get, {"scheme"}));
    std::ranges::transform(scheme, scheme.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string port = value_text(at(get, {"port"}));
    const std::string host = str(at(get, {"host"}));
    return "http-get " + scheme + "://" + (port.empty() ? host : host + ":" + port) + str(at(get, {"path"})) + " " +
           attributes;
  }
  if (const json& tcp = at(probe, {"tcpSocket"}); tcp.is_object())
    return "tcp-socket " + str(at(tcp, {"host"})) + ":" + value_text(at(tcp, {"port"})) + " " + attributes;
  if (const json& grpc = at(probe, {"grpc"}); grpc.is_object())
    return "grpc <pod>:" + std::to_string(api::num(at(grpc, {"port"}))) + " " + str(at(grpc, {"service"})) + " " +
           attributes;
  return "unknown " + attributes;
}

std::string optional_text(const json& reference) { return at(reference, {"optional"}) == true ? "true" : "false"; }

// The value a fieldRef variable takes in `pod` (kubectl reads it from the pod it describes):
// "" for a field it cannot read.
std::string field_value(const json& pod, std::string path) {
  for (const char* map : {"metadata.labels['", "metadata.annotations['"})
    if (path.starts_with(map) && path.ends_with("']")) {
      const std::string key = path.substr(std::string_view(map).size(), path.size() - std::string_view(map).size() - 2);
      const std::string part = std::string_view(map) == "metadata.labels['" ? "labels" : "annotations";
      return str(at(pod, {"metadata", part, key}));
    }
  struct Field {
    const char* path;
    const char* section;
    const char* key;
  };
  constexpr Field k_fields[] = {{"metadata.name", "metadata", "name"},
                                {"metadata.namespace", "metadata", "namespace"},
                                {"metadata.uid", "metadata", "uid"},
                                {"spec.nodeName", "spec", "nodeName"},
                                {"spec.serviceAccountName", "spec", "serviceAccountName"},
                                {"status.hostIP", "status", "hostIP"},
                                {"status.podIP", "status", "podIP"}};
  for (const auto& field : k_fields)
    if (path == field.path) return str(at(pod, {field.section, field.key}));
  return "";
}

// What a resourceFieldRef variable reads from its container's resources, in units of its
// divisor, rounded up (kubectl's ExtractContainerResourceValue); "node allocatable" for an
// unset limit.
std::string resource_value(const json& container, const json& reference) {
  const std::string resource = str(at(reference, {"resource"}));
  const auto dot = resource.find('.');
  if (dot == std::string::npos) return "";
  const std::string part = resource.substr(0, dot), name = resource.substr(dot + 1);
  if ((part != "limits" && part != "requests") || (name != "cpu" && name != "memory" && name != "ephemeral-storage"))
    return "";
  api::GoQuantity divisor = api::scaled_quantity(1, 0);
  if (auto given = api::parse_go_quantity(at(reference, {"divisor"})); given && !given->zero()) divisor = *given;
  api::GoQuantity amount;
  if (auto parsed = api::parse_go_quantity(at(container, {"resources", part, name}))) amount = *parsed;
  const bool cpu = name == "cpu";
  const double value = cpu ? static_cast<double>(amount.milli_value()) / static_cast<double>(divisor.milli_value())
                           : static_cast<double>(amount.value()) / static_cast<double>(divisor.value());
  const std::string text = std::to_string(static_cast<std::int64_t>(std::ceil(value)));
  if (text == "0" && part == "limits" && name != "ephemeral-storage") return "node allocatable";
  return text;
}

void write_environment(Writer& w, const json& container, const json* pod) {
  if (!arr(at(container, {"envFrom"})).empty()) {
    w.write(2, "Environment Variables from:\n");
    for (const auto& source : arr(at(container, {"envFrom"}))) {
      const bool config_map = at(source, {"configMapRef"}).is_object();
      const json& reference = config_map ? at(source, {"configMapRef"}) : at(source, {"secretRef"});
      const std::string prefix = str(at(source, {"prefix"}));
      w.write(3, str(at(reference, {"name"})) + "\t" + (config_map ? "ConfigMap" : "Secret") +
                     (prefix.empty() ? "" : " with prefix '" + prefix + "'") +
                     "\tOptional: " + optional_text(reference) + "\n");
    }
  }
  const json& env = arr(at(container, {"env"}));
  w.write(2, std::string("Environment:") + (env.empty() ? "\t<none>" : "") + "\n");
  for (const auto& variable : env) {
    const std::string name = str(at(variable, {"name"}));
    const json& from = at(variable, {"valueFrom"});
    if (!from.is_object()) {
      const auto lines = split_lines(str(at(variable, {"value"})));
      for (std::size_t i = 0; i < lines.size(); ++i) w.write(3, (i == 0 ? name + ":\t" : "\t") + lines[i] + "\n");
    } else if (const json& field = at(from, {"fieldRef"}); field.is_object()) {
      const std::string value = pod ? field_value(*pod, str(at(field, {"fieldPath"}))) : "";
      w.write(3, name + ":\t" + value + " (" + str(at(field, {"apiVersion"})) + ":" + str(at(field, {"fieldPath"})) +
                     ")\n");
    } else if (const json& resource = at(from, {"resourceFieldRef"}); resource.is_object()) {
      w.write(3, name + ":\t" + resource_value(container, resource) + " (" + str(at(resource, {"resource"})) + ")\n");
    } else if (const json& secret = at(from, {"secretKeyRef"}); secret.is_object()) {
      w.write(3, name + ":\t<set to the key '" + str(at(secret, {"key"})) + "' in secret '" +
                     str(at(secret, {"name"})) + "'>\tOptional: " + optional_text(secret) + "\n");
    } else if (const json& config = at(from, {"configMapKeyRef"}); config.is_object()) {
      w.write(3, name + ":\t<set to the key '" + str(at(config, {"key"})) + "' of config map '" +
                     str(at(config, {"name"})) + "'>\tOptional: " + optional_text(config) + "\n");
    }
  }
}

void write_mounts(Writer& w, const json& container) {
  std::vector<json> mounts(arr(at(container, {"volumeMounts"})).begin(), arr(at(container, {"volumeMounts"})).end());
  const std::string none = mounts.empty() ? "\t<none>" : "";
  w.write(2, "Mounts:" + none + "\n");
  std::ranges::stable_sort(mounts, {}, [](const json& m) { return str(at(m, {"mountPath"})); });
  for (const auto& mount : mounts) {
    std::string flags = at(mount, {"readOnly"}) == true ? "ro" : "rw";
    if (const std::string sub = str(at(mount, {"subPath"})); !sub.empty()) flags += ",path=" + json(sub).dump();
    w.write(3, str(at(mount, {"mountPath"})) + " from " + str(at(mount, {"name"})) + " (" + flags + ")\n");
  }
  std::vector<json> devices(arr(at(container, {"volumeDevices"})).begin(), arr(at(container, {"volumeDevices"})).end());
  if (devices.empty()) return;
  w.write(2, "Devices:" + none + "\n");
  std::ranges::stable_sort(devices, {}, [](const json& d) { return str(at(d, {"devicePath"})); });
  for (const auto& device : devices)
    w.write(3, str(at(device, {"devicePath"})) + " from " + str(at(device, {"name"})) + "\n");
}

// A container's state ("State", "Last State") as kubectl's describeStatus prints it.
void write_state(Writer& w, const std::string& title, const json& state) {
  if (const json& running = at(state, {"running"}); running.is_object()) {
    w.write(2, title + ":\tRunning\n");
    w.write(3, "Started:\t" + rfc1123z(at(running, {"startedAt"})) + "\n");
  } else if (const json& terminated = at(state, {"terminated"}); terminated.is_object()) {
    w.write(2, title + ":\tTerminated\n");
    if (const std::string reason = str(at(terminated, {"reason"})); !reason.empty())
      w.write(3, "Reason:\t" + reason + "\n");
    if (const std::string message = str(at(terminated, {"message"})); !message.empty())
      w.write(3, "Message:\t" + message + "\n");
    w.write(3, "Exit Code:\t" + std::to_string(api::num(at(terminated, {"exitCode"}))) + "\n");
    if (api::num(at(terminated, {"signal"})) > 0)
      w.write(3, "Signal:\t" + std::to_string(api::num(at(terminated, {"signal"}))) + "\n");
    w.write(3, "Started:\t" + rfc1123z(at(terminated, {"startedAt"})) + "\n");
    w.write(3, "Finished:\t" + rfc1123z(at(terminated, {"finishedAt"})) + "\n");
  } else {
    w.write(2, title + ":\tWaiting\n");
    if (const std::string reason = str(at(state, {"waiting", "reason"})); !reason.empty())
      w.write(3, "Reason:\t" + reason + "\n");
  }
}

void write_seccomp(Writer& w, const json& security_context, int level) {
  const json& profile = at(security_context, {"seccompProfile"});
  if (!profile.is_object()) return;
  w.write(level, "SeccompProfile:\t" + str(at(profile, {"type"})) + "\n");
  if (str(at(profile, {"type"})) == "Localhost")
    w.write(level + 1, "LocalhostProfile:\t" + str(at(profile, {"localhostProfile"})) + "\n");
}

}  // namespace

void write_containers(Writer& w, const std::string& label, const json& containers, const json& statuses,
                      const std::string& space, const json* pod) {
  w.write(0, space + label + ":" + (arr(containers).empty() ? " <none>" : "") + "\n");
  for (const auto& container : arr(containers)) {
    const std::string name = str(at(container, {"name"}));
    const json* status = nullptr;
    for (const auto& candidate : arr(statuses))
      if (str(at(candidate, {"name"})) == name) status = &candidate;
    w.write(1, (space.empty() ? "" : " ") + name + ":\n");
    if (status) w.write(2, "Container ID:\t" + str(at(*status, {"containerID"})) + "\n");
    w.write(2, "Image:\t" + str(at(container, {"image"})) + "\n");
    if (status) w.write(2, "Image ID:\t" + str(at(*status, {"imageID"})) + "\n");
    write_ports(w, at(container, {"ports"}), "containerPort", "Port", "Ports");
    write_ports(w, at(container, {"ports"}), "hostPort", "Host Port", "Host Ports");
    write_seccomp(w, at(container, {"securityContext"}), 2);
    write_list_lines(w, "Command", at(container, {"command"}));
    write_list_lines(w, "Args", at(container, {"args"}));
    if (status) {
      write_state(w, "State", at(*status, {"state"}));
      if (at(*status, {"lastState", "terminated"}).is_object())
        write_state(w, "Last State", at(*status, {"lastState"}));
      w.write(2, std::string("Ready:\t") + (at(*status, {"ready"}) == true ? "True" : "False") + "\n");
      w.write(2, "Restart Count:\t" + std::to_string(api::num(at(*status, {"restartCount"}))) + "\n");
    }
    write_resources(w, at(container, {"resources"}), 2);
    for (const auto& [field, title] : {std::pair{"livenessProbe", "Liveness"}, std::pair{"readinessProbe", "Readiness"},
                                       std::pair{"startupProbe", "Startup"}})
      if (const json& probe = at(container, {field}); probe.is_object())
        w.write(2, std::string(title) + ":\t" + probe_text(probe) + "\n");
    write_environment(w, container, pod);
    write_mounts(w, container);
  }
}

void write_volumes(Writer& w, const json& volumes, const std::string& space) {
  if (arr(volumes).empty()) return w.write(0, space + "Volumes:\t<none>\n");
  w.write(0, space + "Volumes:\n");
  for (const auto& volume : arr(volumes)) {
    w.write(1, (space.empty() ? "" : " ") + str(at(volume, {"name"})) + ":\n");
    if (const json& host = at(volume, {"hostPath"}); host.is_object()) {
      const std::string type = str(at(host, {"type"}));
      w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t" + str(at(host, {"path"})) +
                     "\n    HostPathType:\t" + (at(host, {"type"}).is_string() ? type : "<none>") + "\n");
    } else if (const json& empty = at(volume, {"emptyDir"}); empty.is_object()) {
      const std::string limit = value_text(at(empty, {"sizeLimit"}));
      w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t" +
                     str(at(empty, {"medium"})) + "\n    SizeLimit:\t" +
                     (limit.empty() || limit == "0" ? "<unset>" : limit) + "\n");
    } else if (const json& secret = at(volume, {"secret"}); secret.is_object()) {
      w.write(2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t" + str(at(secret, {"secretName"})) +
                     "\n    Optional:\t" + optional_text(secret) + "\n");
    } else if (const json& config = at(volume, {"configMap"}); config.is_object()) {
      w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t" + str(at(config, {"name"})) +
                     "\n    Optional:\t" + optional_text(config) + "\n");
    } else if (const json& claim = at(volume, {"persistentVolumeClaim"}); claim.is_object()) {
      w.write(2,
              "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
              "    ClaimName:\t" +
                  str(at(claim, {"claimName"})) + "\n    ReadOnly:\t" +
                  (at(claim, {"readOnly"}) == true ? "true" : "false") + "\n");
    } else if (const json& nfs = at(volume, {"nfs"}); nfs.is_object()) {
      w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t" +
                     str(at(nfs, {"server"})) + "\n    Path:\t" + str(at(nfs, {"path"})) + "\n    ReadOnly:\t" +
                     (at(nfs, {"readOnly"}) == true ? "true" : "false") + "\n");
    } else if (const json& git = at(volume, {"gitRepo"}); git.is_object()) {
      w.write(2, "Type:\tGitRepo (a volume that is pulled from git when the pod is created)\n    Repository:\t" +
                     str(at(git, {"repository"})) + "\n    Revision:\t" + str(at(git, {"revision"})) + "\n");
    } else if (const json& downward = at(volume, {"downwardAPI"}); downward.is_object()) {
      w.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n");
      for (const auto& item : arr(at(downward, {"items"}))) {
        if (const json& field = at(item, {"fieldRef"}); field.is_object())
          w.write(3, str(at(field, {"fieldPath"})) + " -> " + str(at(item, {"path"})) + "\n");
        if (const json& resource = at(item, {"resourceFieldRef"}); resource.is_object())
          w.write(3, str(at(resource, {"resource"})) + " -> " + str(at(item, {"path"})) + "\n");
      }
    } else if (const json& csi = at(volume, {"csi"}); csi.is_object()) {
      w.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t" +
                     str(at(csi, {"driver"})) + "\n    FSType:\t" + str(at(csi, {"fsType"})) + "\n    ReadOnly:\t" +
                     (at(csi, {"readOnly"}) == true ? "true" : "false") + "\n");
      write_volume_attributes(w, at(csi, {"volumeAttributes"}));
    } else if (const json& projected = at(volume, {"projected"}); projected.is_object()) {
      w.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
      for (const auto& source : arr(at(projected, {"sources"}))) {
        if (const json& s = at(source, {"secret"}); s.is_object())
          w.write(2, "SecretName:\t" + str(at(s, {"name"})) + "\n    Optional:\t" + optional_text(s) + "\n");
        else if (at(source, {"downwardAPI"}).is_object())
          w.write(2, "DownwardAPI:\ttrue\n");
        else if (const json& c = at(source, {"configMap"}); c.is_object())
          w.write(2, "ConfigMapName:\t" + str(at(c, {"name"})) + "\n    Optional:\t" + optional_text(c) + "\n");
        else if (const json& token = at(source, {"serviceAccountToken"}); token.is_object())
          w.write(2, "TokenExpirationSeconds:\t" + std::to_string(api::num(at(token, {"expirationSeconds"}))) + "\n");
      }
    } else if (const json& ephemeral = at(volume, {"ephemeral"}); ephemeral.is_object()) {
      w.write(2,
              "Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with "
              "the pod)\n");
      if (const json& claim = at(ephemeral, {"volumeClaimTemplate"}); claim.is_object()) {
        const Writer::Nested nested(w, 2);
        write_claim(w, claim, false, {});  // a template: the lines that need no time
      }
    } else if (const json& image = at(volume, {"image"}); image.is_object()) {
      w.write(2, "Type:\tImage (a container image or OCI artifact)\n    Reference:\t" + str(at(image, {"reference"})) +
                     "\n    PullPolicy:\t" + str(at(image, {"pullPolicy"})) + "\n");
    } else {
      w.write(1, "<unknown>\n");
    }
  }
}

void write_volume_attributes(Writer& w, const json& attributes) {
  w.write(2, "VolumeAttributes:\t");
  if (!attributes.is_object() || attributes.empty()) return w.write(0, "<none>\n");
  bool first = true;
  for (const auto& [key, value] : attributes.items()) {
    if (!first) w.write(2, "\t");
    first = false;
    std::string line = key + "=" + value_text(value);
    if (line.size() > 140) line = line.substr(0, 140) + "...";
    w.write(2, line + "\n");
  }
}

void write_events(Writer& w, std::vector<json> events, TimePoint now) {
  if (events.empty()) return w.write(0, "Events:\t<none>\n");
  namespace print = api::print;
  // kubectl sorts by lastTimestamp; events without one (those written through events.k8s.io)
  // keep the server's order.
  std::ranges::stable_sort(
      events, {}, [](const json& e) { return print::time_of(at(e, {"lastTimestamp"})).value_or(TimePoint{}); });
  w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
  w.write(1, "----\t------\t----\t----\t-------\n");
  for (const auto& event : events) {
    auto first_time = print::time_of(at(event, {"eventTime"}));
    if (!first_time) first_time = print::time_of(at(event, {"firstTimestamp"}));
    const std::string first = print::since(first_time, now);
    std::string interval = first;
    if (const json& series = at(event, {"series"}); series.is_object())
      interval = print::since(print::time_of(at(series, {"lastObservedTime"})), now) + " (x" +
                 std::to_string(api::num(at(series, {"count"}))) + " over " + first + ")";
    else if (api::num(at(event, {"count"})) > 1)
      interval = print::since(print::time_of(at(event, {"lastTimestamp"})), now) + " (x" +
                 std::to_string(api::num(at(event, {"count"}))) + " over " + first + ")";
    std::string source = str(at(event, {"source", "component"}));
    if (source.empty()) source = str(at(event, {"reportingComponent"}));
    std::string message = str(at(event, {"message"}));
    const auto begin = message.find_first_not_of(" \t\n\r\v\f");
    message =
        begin == std::string::npos ? "" : message.substr(begin, message.find_last_not_of(" \t\n\r\v\f") - begin + 1);
    w.write(1, str(at(event, {"type"})) + "\t" + str(at(event, {"reason"})) + "\t" + interval + "\t" + source + "\t" +
                   message + "\n");
  }
}

}  // namespace describe

std::string describe_pod_template(const nlohmann::json& pod_template) {
  using namespace describe;
  using api::arr;
  using api::at;
  using api::str;
  Writer w;
  w.write(0, "Pod Template:\n");
  const nlohmann::json& spec = at(pod_template, {"spec"});
  write_labels(w, "  Labels", at(pod_template, {"metadata", "labels"}));
  const nlohmann::json& annotations = at(pod_template, {"metadata", "annotations"});
  if (annotations.is_object() && !annotations.empty()) write_annotations(w, "  Annotations", annotations);
  if (const std::string account = str(at(spec, {"serviceAccountName"})); !account.empty())
    w.write(1, "Service Account:\t" + account + "\n");
  if (!arr(at(spec, {"initContainers"})).empty())
    write_containers(w, "Init Containers", at(spec, {"initContainers"}), nullptr, "  ", nullptr);
  write_containers(w, "Containers", at(spec, {"containers"}), nullptr, "  ", nullptr);
  write_volumes(w, at(spec, {"volumes"}), "  ");
  if (const std::string priority = str(at(spec, {"priorityClassName"})); !priority.empty())
    w.write(1, "Priority Class Name:\t" + priority + "\n");
  write_labels(w, "  Node-Selectors", at(spec, {"nodeSelector"}));
  write_tolerations(w, "  Tolerations", at(spec, {"tolerations"}));
  return w.take();
}

}  // namespace kw::cli
