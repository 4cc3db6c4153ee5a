#include "cli/print/describe.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "core/api/json_access.hpp"
#include "core/api/jsonpath.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;
using api::arr;
using api::at;
using api::str;

// kubectl's PrefixWriter: two spaces per level before the text.
class DescribeWriter {
 public:
  void write(int level, const std::string& text) {
    m_out << std::string(static_cast<std::size_t>(level) * 2, ' ') << text;
  }
  std::string take() { return m_out.str(); }

 private:
  std::ostringstream m_out;
};

std::string value_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : api::go_value_text(value);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t newline; (newline = text.find('\n', start)) != std::string::npos; start = newline + 1)
    lines.push_back(text.substr(start, newline - start));
  lines.push_back(text.substr(start));
  return lines;
}

// "Title:\tk=v" then "\tk2=v2" for each further key, sorted; <none> when empty.
void write_labels(DescribeWriter& w, const std::string& title, const json& labels) {
  w.write(0, title + ":\t");
  if (!labels.is_object() || labels.empty()) return w.write(0, "<none>\n");
  bool first = true;
  for (const auto& [key, value] : labels.items()) {  // nlohmann keeps object keys sorted
    if (!first) w.write(0, "\t");
    w.write(0, key + "=" + value_text(value) + "\n");
    first = false;
  }
}

// Annotations as kubectl prints them: long or multi-line values on lines of their own.
void write_annotations(DescribeWriter& w, const std::string& title, const json& annotations) {
  constexpr std::size_t k_max_annotation = 140;
  w.write(0, title + ":\t");
  std::vector<std::pair<std::string, std::string>> shown;
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

std::string ports_text(const json& ports, const char* field) {
  std::string out;
  for (const auto& port : arr(ports)) {
    if (!out.empty()) out += ", ";
    out += std::to_string(api::num(at(port, {field}))) + "/" + str(at(port, {"protocol"}));
  }
  return out;
}

void write_ports(DescribeWriter& w, const json& ports, const char* field, const char* one, const char* many) {
  const std::string text = ports_text(ports, field);
  if (text.find(',') != std::string::npos) w.write(2, std::string(many) + ":\t" + text + "\n");
  else w.write(2, std::string(one) + ":\t" + (text.empty() ? "<none>" : text) + "\n");
}

void write_lines(DescribeWriter& w, const char* title, const json& list) {
  if (arr(list).empty()) return;
  w.write(2, std::string(title) + ":\n");
  for (const auto& item : arr(list))
    for (const auto& line : split_lines(value_text(item))) w.write(3, line + "\n");
}

void write_resources(DescribeWriter& w, const json& resources) {
  for (const char* part : {"limits", "requests"}) {
    const json& list = at(resources, {part});
    if (!list.is_object() || list.empty()) continue;
    w.write(2, std::string(part == std::string("limits") ? "Limits" : "Requests") + ":\n");
    for (const auto& [name, quantity] : list.items()) w.write(3, name + ":\t" + value_text(quantity) + "\n");
  }
}

std::string probe_text(const json& probe) {
  const std::string attributes = "delay=" + std::to_string(api::num(at(probe, {"initialDelaySeconds"}))) +
                                 "s timeout=" + std::to_string(api::num(at(probe, {"timeoutSeconds"}))) +
                                 "s period=" + std::to_string(api::num(at(probe, {"periodSeconds"}))) +
                                 "s #success=" + std::to_string(api::num(at(probe, {"successThreshold"}))) +
                                 " #failure=" + std::to_string(api::num(at(probe, {"failureThreshold"})));
  if (const json& exec = at(probe, {"exec"}); exec.is_object()) {
    std::string command;
    for (const auto& part : arr(at(exec, {"command"}))) command += (command.empty() ? "" : " ") + value_text(part);
    return "exec [" + command + "] " + attributes;
  }
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

void write_environment(DescribeWriter& w, const json& container) {
  if (!arr(at(container, {"envFrom"})).empty()) {
    w.write(2, "Environment Variables from:\n");
    for (const auto& source : arr(at(container, {"envFrom"}))) {
      const bool config_map = at(source, {"configMapRef"}).is_object();
      const json& reference = config_map ? at(source, {"configMapRef"}) : at(source, {"secretRef"});
      const std::string prefix = str(at(source, {"prefix"}));
      w.write(3, str(at(reference, {"name"})) + "\t" + (config_map ? "ConfigMap" : "Secret") +
                     (prefix.empty() ? "" : " with prefix '" + prefix + "'") + "\tOptional: " +
                     optional_text(reference) + "\n");
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
      w.write(3, name + ":\t (" + str(at(field, {"apiVersion"})) + ":" + str(at(field, {"fieldPath"})) + ")\n");
    } else if (const json& resource = at(from, {"resourceFieldRef"}); resource.is_object()) {
      w.write(3, name + ":\t (" + str(at(resource, {"resource"})) + ")\n");
    } else if (const json& secret = at(from, {"secretKeyRef"}); secret.is_object()) {
      w.write(3, name + ":\t<set to the key '" + str(at(secret, {"key"})) + "' in secret '" +
                     str(at(secret, {"name"})) + "'>\tOptional: " + optional_text(secret) + "\n");
    } else if (const json& config = at(from, {"configMapKeyRef"}); config.is_object()) {
      w.write(3, name + ":\t<set to the key '" + str(at(config, {"key"})) + "' of config map '" +
                     str(at(config, {"name"})) + "'>\tOptional: " + optional_text(config) + "\n");
    }
  }
}

void write_mounts(DescribeWriter& w, const json& container) {
  std::vector<json> mounts(arr(at(container, {"volumeMounts"})).begin(), arr(at(container, {"volumeMounts"})).end());
  w.write(2, std::string("Mounts:") + (mounts.empty() ? "\t<none>" : "") + "\n");
  std::ranges::stable_sort(mounts, {}, [](const json& m) { return str(at(m, {"mountPath"})); });
  for (const auto& mount : mounts) {
    std::string flags = at(mount, {"readOnly"}) == true ? "ro" : "rw";
    if (const std::string sub = str(at(mount, {"subPath"})); !sub.empty()) flags += ",path=" + json(sub).dump();
    w.write(3, str(at(mount, {"mountPath"})) + " from " + str(at(mount, {"name"})) + " (" + flags + ")\n");
  }
}

void write_containers(DescribeWriter& w, const char* label, const json& containers) {
  w.write(0, std::string("  ") + label + ":" + (arr(containers).empty() ? " <none>" : "") + "\n");
  for (const auto& container : arr(containers)) {
    w.write(1, " " + str(at(container, {"name"})) + ":\n");
    w.write(2, "Image:\t" + str(at(container, {"image"})) + "\n");
    write_ports(w, at(container, {"ports"}), "containerPort", "Port", "Ports");
    write_ports(w, at(container, {"ports"}), "hostPort", "Host Port", "Host Ports");
    write_lines(w, "Command", at(container, {"command"}));
    write_lines(w, "Args", at(container, {"args"}));
    write_resources(w, at(container, {"resources"}));
    for (const auto& [field, title] : {std::pair{"livenessProbe", "Liveness"}, std::pair{"readinessProbe", "Readiness"},
                                       std::pair{"startupProbe", "Startup"}})
      if (const json& probe = at(container, {field}); probe.is_object())
        w.write(2, std::string(title) + ":\t" + probe_text(probe) + "\n");
    write_environment(w, container);
    write_mounts(w, container);
  }
}

void write_volumes(DescribeWriter& w, const json& volumes) {
  if (arr(volumes).empty()) return w.write(0, "  Volumes:\t<none>\n");
  w.write(0, "  Volumes:\n");
  for (const auto& volume : arr(volumes)) {
    w.write(1, " " + str(at(volume, {"name"})) + ":\n");
    if (const json& host = at(volume, {"hostPath"}); host.is_object()) {
      const std::string type = str(at(host, {"type"}));
      w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t" + str(at(host, {"path"})) +
                     "\n    HostPathType:\t" + (at(host, {"type"}).is_string() ? type : "<none>") + "\n");
    } else if (const json& empty = at(volume, {"emptyDir"}); empty.is_object()) {
      const std::string limit = value_text(at(empty, {"sizeLimit"}));
      w.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t" +
                     str(at(empty, {"medium"})) + "\n    SizeLimit:\t" +
                     (limit.empty() || limit == "0" || at(empty, {"sizeLimit"}).is_null() ? "<unset>" : limit) + "\n");
    } else if (const json& secret = at(volume, {"secret"}); secret.is_object()) {
      w.write(2, "Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t" + str(at(secret, {"secretName"})) +
                     "\n    Optional:\t" + optional_text(secret) + "\n");
    } else if (const json& config = at(volume, {"configMap"}); config.is_object()) {
      w.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t" + str(at(config, {"name"})) +
                     "\n    Optional:\t" + optional_text(config) + "\n");
    } else if (const json& claim = at(volume, {"persistentVolumeClaim"}); claim.is_object()) {
      w.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"
                 "    ClaimName:\t" + str(at(claim, {"claimName"})) + "\n    ReadOnly:\t" +
                     (at(claim, {"readOnly"}) == true ? "true" : "false") + "\n");
    } else {
      w.write(1, "<unknown>\n");
    }
  }
}

void write_tolerations(DescribeWriter& w, const json& tolerations) {
  w.write(0, "  Tolerations:\t");
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

}  // namespace

std::string describe_pod_template(const json& pod_template) {
  DescribeWriter w;
  w.write(0, "Pod Template:\n");
  const json& spec = at(pod_template, {"spec"});
  write_labels(w, "  Labels", at(pod_template, {"metadata", "labels"}));
  const json& annotations = at(pod_template, {"metadata", "annotations"});
  if (annotations.is_object() && !annotations.empty()) write_annotations(w, "  Annotations", annotations);
  if (const std::string account = str(at(spec, {"serviceAccountName"})); !account.empty())
    w.write(1, "Service Account:\t" + account + "\n");
  if (!arr(at(spec, {"initContainers"})).empty()) write_containers(w, "Init Containers", at(spec, {"initContainers"}));
  write_containers(w, "Containers", at(spec, {"containers"}));
  write_volumes(w, at(spec, {"volumes"}));
  if (const std::string priority = str(at(spec, {"priorityClassName"})); !priority.empty())
    w.write(1, "Priority Class Name:\t" + priority + "\n");
  write_labels(w, "  Node-Selectors", at(spec, {"nodeSelector"}));
  write_tolerations(w, at(spec, {"tolerations"}));
  return w.take();
}

}  // namespace kw::cli
