// Pod specs: SetDefaults_PodSpec and friends, ValidatePodTemplateSpec's core (pod_spec.hpp).
#include "server/registry/kinds/pod_spec.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::kinds {
namespace {

using api::print::arr;
using api::print::at;
using api::print::num;
using api::print::str;
using nlohmann::json;

// The tag parsers.ParseImageName finds: after the last '/', before any digest; "latest" when
// the image has neither tag nor digest.
std::string image_tag(std::string_view image) {
  const auto at_sign = image.find('@');
  const bool digest = at_sign != std::string_view::npos;
  std::string_view name = image.substr(0, at_sign);
  const auto slash = name.rfind('/');
  const auto last = slash == std::string_view::npos ? name : name.substr(slash + 1);
  const auto colon = last.find(':');
  if (colon != std::string_view::npos) return std::string(last.substr(colon + 1));
  return digest ? "" : "latest";
}

void default_http_get(json& handler) {
  json& http = handler["httpGet"];
  default_string(http, "path", "/");
  default_string(http, "scheme", "HTTP");
}

void default_probe(json& probe) {
  for (const auto& [key, value] : {std::pair{"timeoutSeconds", 1}, std::pair{"periodSeconds", 10},
                                   std::pair{"successThreshold", 1}, std::pair{"failureThreshold", 3}})
    if (num(at(probe, {key})) == 0) probe[key] = value;
  if (at(probe, {"httpGet"}).is_object()) default_http_get(probe);
  if (at(probe, {"grpc"}).is_object()) default_value(probe["grpc"], "service", "");
}

void default_field_ref(json& holder) {
  if (at(holder, {"fieldRef"}).is_object()) default_string(holder["fieldRef"], "apiVersion", "v1");
}

const char* const k_pod_volume_sources[] = {"hostPath",
                                            "emptyDir",
                                            "gcePersistentDisk",
                                            "awsElasticBlockStore",
                                            "gitRepo",
                                            "secret",
                                            "nfs",
                                            "iscsi",
                                            "glusterfs",
                                            "persistentVolumeClaim",
                                            "rbd",
                                            "flexVolume",
                                            "cinder",
                                            "cephfs",
                                            "flocker",
                                            "downwardAPI",
                                            "fc",
                                            "azureFile",
                                            "configMap",
                                            "vsphereVolume",
                                            "quobyte",
                                            "azureDisk",
                                            "photonPersistentDisk",
                                            "projected",
                                            "portworxVolume",
                                            "scaleIO",
                                            "storageos",
                                            "csi",
                                            "ephemeral",
                                            "image"};

}  // namespace

// ---- defaults ----------------------------------------------------------------------------------

void default_container(json& c) {
  if (!c.is_object()) return;
  // A Go struct, not a pointer: kube-apiserver always writes it, empty or not.
  default_value(c, "resources", json::object());
  if (str(at(c, {"imagePullPolicy"})).empty())
    c["imagePullPolicy"] = image_tag(str(at(c, {"image"}))) == "latest" ? "Always" : "IfNotPresent";
  default_string(c, "terminationMessagePath", "/dev/termination-log");
  default_string(c, "terminationMessagePolicy", "File");
  if (at(c, {"ports"}).is_array())
    for (auto& port : c["ports"]) default_string(port, "protocol", "TCP");
  if (at(c, {"env"}).is_array())
    for (auto& env : c["env"])
      if (at(env, {"valueFrom"}).is_object()) default_field_ref(env["valueFrom"]);
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    if (at(c, {probe}).is_object()) default_probe(c[probe]);
  for (const char* hook : {"postStart", "preStop"})
    if (at(c, {"lifecycle", hook, "httpGet"}).is_object()) default_http_get(c["lifecycle"][hook]);
}

void default_volume_sources(json& holder) {
  if (at(holder, {"hostPath"}).is_object()) default_value(holder["hostPath"], "type", "");
  if (at(holder, {"iscsi"}).is_object()) default_string(holder["iscsi"], "iscsiInterface", "default");
  if (at(holder, {"rbd"}).is_object()) {
    json& rbd = holder["rbd"];
    default_string(rbd, "pool", "rbd");
    default_string(rbd, "user", "admin");
    default_string(rbd, "keyring", "/etc/ceph/keyring");
  }
  if (at(holder, {"azureDisk"}).is_object()) {
    json& disk = holder["azureDisk"];
    default_value(disk, "cachingMode", "ReadWrite");
    default_value(disk, "fsType", "ext4");
    default_value(disk, "readOnly", false);
    default_value(disk, "kind", "Shared");
  }
  if (at(holder, {"scaleIO"}).is_object()) {
    default_string(holder["scaleIO"], "storageMode", "ThinProvisioned");
    default_string(holder["scaleIO"], "fsType", "xfs");
  }
}

void default_volume(json& volume) {
  if (!volume.is_object()) return;
  if (std::none_of(std::begin(k_pod_volume_sources), std::end(k_pod_volume_sources),
                   [&](const char* source) { return !unset(volume, source); }))
    volume["emptyDir"] = json::object();
  default_volume_sources(volume);
  for (const char* source : {"secret", "configMap", "downwardAPI", "projected"})
    if (at(volume, {source}).is_object()) default_value(volume[source], "defaultMode", 420);
  if (at(volume, {"downwardAPI", "items"}).is_array())
    for (auto& item : volume["downwardAPI"]["items"]) default_field_ref(item);
  if (at(volume, {"projected", "sources"}).is_array())
    for (auto& source : volume["projected"]["sources"]) {
      if (at(source, {"downwardAPI", "items"}).is_array())
        for (auto& item : source["downwardAPI"]["items"]) default_field_ref(item);
      if (at(source, {"serviceAccountToken"}).is_object())
        default_value(source["serviceAccountToken"], "expirationSeconds", 3600);
    }
  if (at(volume, {"ephemeral", "volumeClaimTemplate", "spec"}).is_object())
    default_value(volume["ephemeral"]["volumeClaimTemplate"]["spec"], "volumeMode", "Filesystem");
}

void sync_service_account_name(json& spec) {
  if (!spec.is_object()) return;
  std::string name = str(at(spec, {"serviceAccountName"}));
  if (name.empty()) name = str(at(spec, {"serviceAccount"}));
  if (name.empty()) {
    spec.erase("serviceAccount");
    return;
  }
  spec["serviceAccountName"] = name;
  spec["serviceAccount"] = name;
}

void default_pod_spec(json& spec) {
  if (!spec.is_object()) return;
  sync_service_account_name(spec);
  default_string(spec, "dnsPolicy", "ClusterFirst");
  default_string(spec, "restartPolicy", "Always");
  default_value(spec, "securityContext", json::object());
  default_value(spec, "terminationGracePeriodSeconds", 30);
  default_string(spec, "schedulerName", "default-scheduler");
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    if (at(spec, {list}).is_array())
      for (auto& c : spec[list]) default_container(c);
  if (at(spec, {"volumes"}).is_array())
    for (auto& volume : spec["volumes"]) default_volume(volume);
}

// ---- references ---------------------------------------------------------------------------------

namespace {

// Each container of every kind, for `visit`.
void each_container(const json& spec, const std::function<void(const json&)>& visit) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    if (const json& containers = at(spec, {list}); containers.is_array())
      for (const auto& container : containers) visit(container);
}

void visit_name(const json& name, const std::function<void(const std::string&)>& visit) {
  if (name.is_string() && !name.get_ref<const std::string&>().empty()) visit(name.get<std::string>());
}

// The names the containers' envFrom (`source_ref`) and env valueFrom (`key_ref`) entries give.
void visit_container_references(const json& spec, const char* source_ref, const char* key_ref,
                                const std::function<void(const std::string&)>& visit) {
  each_container(spec, [&](const json& container) {
    if (const json& sources = at(container, {"envFrom"}); sources.is_array())
      for (const auto& source : sources) visit_name(at(source, {source_ref, "name"}), visit);
    if (const json& env = at(container, {"env"}); env.is_array())
      for (const auto& var : env) visit_name(at(var, {"valueFrom", key_ref, "name"}), visit);
  });
}

}  // namespace

void visit_secret_names(const json& spec, const std::function<void(const std::string&)>& visit) {
  if (const json& pulls = at(spec, {"imagePullSecrets"}); pulls.is_array())
    for (const auto& pull : pulls) visit_name(at(pull, {"name"}), visit);
  visit_container_references(spec, "secretRef", "secretKeyRef", visit);
  const json& volumes = at(spec, {"volumes"});
  if (!volumes.is_array()) return;
  for (const auto& volume : volumes) {
    visit_name(at(volume, {"secret", "secretName"}), visit);
    visit_name(at(volume, {"azureFile", "secretName"}), visit);
    visit_name(at(volume, {"csi", "nodePublishSecretRef", "name"}), visit);
    for (const char* source : {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"})
      visit_name(at(volume, {source, "secretRef", "name"}), visit);
    if (const json& sources = at(volume, {"projected", "sources"}); sources.is_array())
      for (const auto& source : sources) visit_name(at(source, {"secret", "name"}), visit);
  }
}

void visit_config_map_names(const json& spec, const std::function<void(const std::string&)>& visit) {
  visit_container_references(spec, "configMapRef", "configMapKeyRef", visit);
  const json& volumes = at(spec, {"volumes"});
  if (!volumes.is_array()) return;
  for (const auto& volume : volumes) {
    visit_name(at(volume, {"configMap", "name"}), visit);
    if (const json& sources = at(volume, {"projected", "sources"}); sources.is_array())
      for (const auto& source : sources) visit_name(at(source, {"configMap", "name"}), visit);
  }
}

void default_pod_template(json& pod_template) { default_pod_spec(object_member(pod_template, "spec")); }

void default_persistent_volume_claim(json& claim) {
  default_value(object_member(claim, "spec"), "volumeMode", "Filesystem");
  default_string(object_member(claim, "status"), "phase", "Pending");
}

// ---- validation --------------------------------------------------------------------------------

bool WorkloadSelector::matches(const json& labels) const {
  if (nothing) return false;
  std::map<std::string, std::string> set;
  if (labels.is_object())
    for (const auto& [key, value] : labels.items()) set.emplace(key, str(value));
  return requirements.matches(set);
}

std::optional<WorkloadSelector> workload_selector(const json& selector) {
  WorkloadSelector out;
  if (!selector.is_object()) {
    out.nothing = true;
    return out;
  }
  auto parsed = api::LabelSelector::from_label_selector_json(selector);
  if (!parsed) return std::nullopt;
  out.requirements = std::move(*parsed);
  return out;
}

void selector_matches_template(Causes& causes, const WorkloadSelector& selector, const json& pod_template,
                               const std::string& template_path) {
  const json& labels = at(pod_template, {"metadata", "labels"});
  if (!selector.matches(labels))
    invalid_rendered(causes, template_path + ".metadata.labels", go_string_map(labels),
                     "`selector` does not match template `labels`");
}

void always_restarting(Causes& causes, const json& pod_spec, const std::string& spec_path, std::string_view owner) {
  const std::string restart = str(at(pod_spec, {"restartPolicy"}));
  if (restart != "Always") unsupported(causes, spec_path + ".restartPolicy", restart, {"Always"});
  if (!at(pod_spec, {"activeDeadlineSeconds"}).is_null())
    forbidden(causes, spec_path + ".activeDeadlineSeconds",
              "activeDeadlineSeconds in " + std::string(owner) + " is not Supported");
}

PodRatchets pod_ratchets(const json* old_spec) {
  if (old_spec == nullptr) return {};
  return {.indivisible_huge_pages = uses_indivisible_huge_pages(*old_spec),
          .host_namespace_sysctls = uses_host_namespace_sysctls(*old_spec),
          .any_se_linux_change_policy = !at(*old_spec, {"securityContext", "seLinuxChangePolicy"}).is_null()};
}

void validate_pod_spec(Causes& causes, const json& spec, const std::string& path, const json* pod_meta,
                       const json* old_spec) {
  const PodRatchets ratchets = pod_ratchets(old_spec);
  // ValidatePodSpec's order.
  const PodVolumes volumes = validate_volumes(causes, at(spec, {"volumes"}), path + ".volumes", pod_meta);
  validate_pod_containers(causes, spec, volumes, path, ratchets);
  const std::string restart = str(at(spec, {"restartPolicy"}));
  if (restart.empty())
    required(causes, path + ".restartPolicy");
  else if (!one_of(restart, {"Always", "OnFailure", "Never"}))
    unsupported(causes, path + ".restartPolicy", restart, {"Always", "OnFailure", "Never"});
  const std::string dns = str(at(spec, {"dnsPolicy"}));
  if (dns.empty())
    required(causes, path + ".dnsPolicy");
  else if (!one_of(dns, {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"}))
    unsupported(causes, path + ".dnsPolicy", dns, {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  if (const auto& selector = at(spec, {"nodeSelector"}); selector.is_object())
    validate_labels(causes, selector, path + ".nodeSelector");
  validate_pod_context(causes, spec, path, ratchets);
  if (const auto& grace = at(spec, {"terminationGracePeriodSeconds"}); grace.is_number_integer() && num(grace) < 0)
    invalid_value(causes, path + ".terminationGracePeriodSeconds", grace, "must be greater than or equal to 0");
  if (const auto account = str(at(spec, {"serviceAccountName"})); !account.empty())
    invalid_each(causes, path + ".serviceAccountName", account, subdomain_errors(account));
  if (const auto node = str(at(spec, {"nodeName"})); !node.empty())
    invalid_each(causes, path + ".nodeName", node, subdomain_errors(node));
  const json& deadline = at(spec, {"activeDeadlineSeconds"});
  if (deadline.is_number() && (num(deadline) < 1 || num(deadline) > 2147483647))
    invalid_value(causes, path + ".activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive");
  if (const auto host = str(at(spec, {"hostname"})); !host.empty())
    invalid_each(causes, path + ".hostname", host, dns1123_label_errors(host));
  if (const auto sub = str(at(spec, {"subdomain"})); !sub.empty())
    invalid_each(causes, path + ".subdomain", sub, dns1123_label_errors(sub));
  if (const auto& tolerations = at(spec, {"tolerations"}); tolerations.is_array())
    validate_tolerations(causes, tolerations, path + ".tolerations");
  validate_pod_extras(causes, spec, path, ratchets);
}

void validate_pod_template(Causes& causes, const json& pod_template, const std::string& path,
                           const json* old_template) {
  validate_labels(causes, at(pod_template, {"metadata", "labels"}), path + ".labels");
  validate_annotation_keys(causes, at(pod_template, {"metadata", "annotations"}), path + ".annotations");
  const json& spec = at(pod_template, {"spec"});
  validate_pod_specific_annotations(causes, at(pod_template, {"metadata", "annotations"}), spec, path + ".annotations");
  const json* old_spec = old_template != nullptr ? &at(*old_template, {"spec"}) : nullptr;
  validate_pod_spec(causes, spec.is_object() ? spec : json::object(), path + ".spec", nullptr,
                    old_spec != nullptr && old_spec->is_object() ? old_spec : nullptr);
  validate_seccomp_match(causes, at(pod_template, {"metadata", "annotations"}), spec, path + ".spec");
  if (!arr(at(spec, {"ephemeralContainers"})).empty())
    forbidden(causes, path + ".spec.ephemeralContainers", "ephemeral containers not allowed in pod template");
}

std::string go_toleration(const json& t) {
  const json& seconds = at(t, {"tolerationSeconds"});
  return "core.Toleration{Key:" + go_quoted(at(t, {"key"})) + ", Operator:" + go_quoted(at(t, {"operator"})) +
         ", Value:" + go_quoted(at(t, {"value"})) + ", Effect:" + go_quoted(at(t, {"effect"})) +
         ", TolerationSeconds:" + (seconds.is_number() ? seconds.dump() : std::string("(*int64)(nil)")) + "}";
}

void validate_tolerations(Causes& causes, const json& tolerations, const std::string& path) {
  const json& list = arr(tolerations);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& t = list[i];
    const std::string field = index_path(path, i);
    const std::string key = str(at(t, {"key"}));
    const std::string op = str(at(t, {"operator"}));
    const std::string value = str(at(t, {"value"}));
    const std::string effect = str(at(t, {"effect"}));
    if (!key.empty()) invalid_each(causes, field + ".key", key, qualified_name_errors(key));
    if (key.empty() && op != "Exists")
      invalid_value(causes, field + ".operator", op,
                    "operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
    if (at(t, {"tolerationSeconds"}).is_number() && effect != "NoExecute")
      invalid_value(causes, field + ".effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (op == "Equal" || op.empty()) {
      std::string joined;
      for (const auto& message : label_value_errors(value)) joined += (joined.empty() ? "" : ";") + message;
      if (!joined.empty()) invalid_value(causes, field + ".operator", value, joined);
    } else if (op == "Exists") {
      if (!value.empty())
        invalid_rendered(causes, field + ".operator", go_toleration(t),
                         "value must be empty when `operator` is 'Exists'");
    } else {
      unsupported(causes, field + ".operator", op, {"Equal", "Exists"});
    }
    if (!effect.empty() && !one_of(effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}))
      unsupported(causes, field + ".effect", effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
  }
}

std::string pod_qos_class(const json& pod) {
  bool any = false, guaranteed = true;
  std::map<std::string, long double> requests, limits;
  for (const char* list : {"initContainers", "containers"})
    for (const auto& c : arr(at(pod, {"spec", list}))) {
      int limited = 0;
      for (const char* resource : {"cpu", "memory"}) {
        const auto request = api::quantity_value(at(c, {"resources", "requests", resource}));
        if (request && *request != 0) {
          any = true;
          requests[resource] += *request;
        }
        const auto limit = api::quantity_value(at(c, {"resources", "limits", resource}));
        if (limit && *limit != 0) {
          any = true;
          limits[resource] += *limit;
          ++limited;
        }
      }
      if (limited < 2) guaranteed = false;
    }
  if (!any) return "BestEffort";
  return guaranteed && requests == limits ? "Guaranteed" : "Burstable";
}

}  // namespace kw::kinds
