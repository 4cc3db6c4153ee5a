// The core/v1 kinds ("" group): rows and strategies.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/quantity.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/core_v1_print.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/pod_spec.hpp"
#include "server/registry/kinds/pod_warnings.hpp"

namespace kw::kinds {

KindSpec service_row();  // core_v1_service.cpp

namespace {

using api::print::age_col;
using api::print::arr;
using api::print::at;
using api::print::col;
using api::print::containers_col;
using api::print::images_col;
using api::print::k_created_doc;
using api::print::k_name_doc;
using api::print::name_col;
using api::print::str;
using nlohmann::json;

// SetDefaults_Namespace and the namespace strategy's Canonicalize: a namespace carries its
// name as the kubernetes.io/metadata.name label, whatever a write says.
void label_namespace(json& ns) {
  const auto name = str(at(ns, {"metadata", "name"}));
  if (!name.empty()) object_member(object_member(ns, "metadata"), "labels")["kubernetes.io/metadata.name"] = name;
}

// A namespace is born Active, held (also) by the "kubernetes" finalizer.
void prepare_namespace(json& ns) {
  label_namespace(ns);
  auto& finalizers = object_member(ns, "spec")["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  if (std::find(finalizers.begin(), finalizers.end(), "kubernetes") == finalizers.end()) finalizers.push_back("kubernetes");
  ns["status"] = {{"phase", "Active"}};
}

// spec.finalizers change through namespaces/{name}/finalize only.
void prepare_namespace_update(json& ns, const json& old) {
  auto& spec = object_member(ns, "spec");
  const auto& before = at(old, {"spec", "finalizers"});
  if (before.is_null()) spec.erase("finalizers");
  else spec["finalizers"] = before;
}

// validateFinalizerName: a qualified name, and one of Kubernetes' own unless domain-qualified.
void validate_namespace(const json& ns, Causes& causes) {
  const auto& finalizers = at(ns, {"spec", "finalizers"});
  if (!finalizers.is_array()) return;
  for (const auto& finalizer : finalizers) {
    const auto name = str(finalizer);
    invalid_each(causes, "spec.finalizers", finalizer, qualified_name_errors(name));
    if (name.find('/') == std::string::npos && !one_of(name, {"kubernetes", "orphan", "foregroundDeletion"}))
      invalid_value(causes, "spec.finalizers", finalizer,
                    "name is neither a standard finalizer name nor is it fully qualified");
  }
}

// validateEphemeralContainers: named uniquely among all the pod's containers, with an image,
// without what only long-running containers have, aimed at an existing container.
void validate_ephemeral_containers(const json& spec, Causes& causes) {
  const auto& ephemeral = at(spec, {"ephemeralContainers"});
  if (!ephemeral.is_array()) return;
  std::set<std::string> names;
  for (const char* list : {"containers", "initContainers"})
    for (const auto& c : arr(at(spec, {list}))) names.insert(str(at(c, {"name"})));
  std::set<std::string> regular = names;
  for (std::size_t i = 0; i < ephemeral.size(); ++i) {
    const auto path = index_path("spec.ephemeralContainers", i);
    const auto& c = ephemeral[i];
    validate_container_identity(causes, c, names, path);
    for (const char* field : {"lifecycle", "livenessProbe", "readinessProbe", "resources", "startupProbe", "ports"}) {
      const auto& value = at(c, {field});
      if (!value.is_null() && !(value.is_object() && value.empty()) && !(value.is_array() && value.empty()))
        forbidden(causes, path + "." + field, "cannot be set for an Ephemeral Container");
    }
    const auto target = str(at(c, {"targetContainerName"}));
    if (!target.empty() && !regular.contains(target))
      add_cause(causes, path + ".targetContainerName", "FieldValueNotFound", "Not found: " + go_quoted(target));
  }
}

// validatePodMetadataAndSpec. The deletion cost is checked on create; an update checks it
// again, against the stored pod, in validate_pod_update. `old` is the stored pod of an update
// (null for a create), for the spec's ratchets.
void validate_pod_metadata_and_spec(const json& pod, Causes& causes, bool create, const json* old = nullptr) {
  const auto& spec = at(pod, {"spec"});
  validate_pod_specific_annotations(causes, at(pod, {"metadata", "annotations"}), spec, "metadata.annotations",
                                    create);
  if (!spec.is_object()) required(causes, "spec");
  else validate_pod_spec(causes, spec, "spec", &at(pod, {"metadata"}), old ? &at(*old, {"spec"}) : nullptr);
  if (spec.is_object()) validate_ephemeral_containers(spec, causes);
  // What pods are held to and templates are not: no token volume without a service account,
  // and no blanks around an image.
  if (str(at(spec, {"serviceAccountName"})).empty()) {
    const json& volumes = arr(at(spec, {"volumes"}));
    for (std::size_t v = 0; v < volumes.size(); ++v) {
      const json& sources = arr(at(volumes[v], {"projected", "sources"}));
      for (std::size_t s = 0; s < sources.size(); ++s)
        if (at(sources[s], {"serviceAccountToken"}).is_object())
          forbidden(causes, index_path(index_path("spec.volumes", v) + ".projected.sources", s) + ".serviceAccountToken",
                    "must not be specified when serviceAccountName is not set");
    }
  }
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = arr(at(spec, {list}));
    for (std::size_t i = 0; i < containers.size(); ++i)
      if (const std::string image = str(at(containers[i], {"image"})); has_surrounding_space(image))
        invalid_value(causes, index_path(std::string("spec.") + list, i) + ".image", image,
                        "must not have leading or trailing whitespace");
  }
}

// ValidatePodUpdate: the pod as a create checks it (a deletion cost the stored pod already
// had wrong is kept), then what an update may change.
void validate_pod_changes(const json& pod, const json& old, Causes& causes) {
  validate_pod_metadata_and_spec(pod, causes, valid_deletion_cost(at(old, {"metadata", "annotations"})), &old);
  validate_pod_update(pod, old, causes);
}

// pods/{name}/ephemeralcontainers changes spec.ephemeralContainers and nothing else
// (dropNonEphemeralContainerUpdates).
void prepare_pod_subresource(std::string_view subresource, json& pod, const json& old) {
  if (subresource != "ephemeralcontainers") return;
  auto ephemeral = at(pod, {"spec", "ephemeralContainers"});
  auto meta = pod["metadata"];
  pod = old;
  pod["metadata"]["resourceVersion"] = meta.value("resourceVersion", json());
  if (meta["resourceVersion"].is_null()) pod["metadata"].erase("resourceVersion");
  if (ephemeral.is_null()) pod["spec"].erase("ephemeralContainers");
  else pod["spec"]["ephemeralContainers"] = std::move(ephemeral);
  default_pod_spec(pod["spec"]);
}

// pods/{name}/status: ValidatePodStatusUpdate. pods/{name}/ephemeralcontainers:
// ValidatePodEphemeralContainersUpdate, the pod checked whole and its ephemeral containers only
// ever added, never to a static pod.
void validate_pod_subresource(std::string_view subresource, const json& pod, const json& old, Causes& causes) {
  if (subresource == "status") return validate_pod_status_update(pod, old, causes);
  if (subresource != "ephemeralcontainers") return;
  const json& old_annotations = at(old, {"metadata", "annotations"});
  validate_pod_metadata_and_spec(pod, causes, valid_deletion_cost(old_annotations), &old);
  validate_pod_annotation_updates(causes, pod, old);
  if (old_annotations.is_object() && old_annotations.contains("kubernetes.io/config.mirror")) {
    causes = json::array();
    forbidden(causes, "", "static pods do not support ephemeral containers");
    return;
  }
  std::map<std::string, json> now;
  for (const auto& c : arr(at(pod, {"spec", "ephemeralContainers"}))) now[str(at(c, {"name"}))] = c;
  for (const auto& before : arr(at(old, {"spec", "ephemeralContainers"}))) {
    const auto name = str(at(before, {"name"}));
    const auto found = now.find(name);
    if (found == now.end())
      forbidden(causes, "spec.ephemeralContainers", "existing ephemeral containers " + go_quoted(name) + " may not be removed\n");
    else if (found->second != before)
      forbidden(causes, key_path("spec.ephemeralContainers", name),
                "existing ephemeral containers " + go_quoted(name) + " may not be changed\n");
  }
}

// stringData is a write-only convenience: folded into data (base64) on every write;
// stringData wins over data for the same key.
void fold_string_data(json& secret) {
  const auto string_data = secret.find("stringData");
  if (string_data == secret.end()) return;
  if (string_data->is_object()) {
    auto& data = object_member(secret, "data");
    for (const auto& [key, value] : string_data->items())
      if (value.is_string()) data[key] = codec::scalars::base64_encode(value.get<std::string>());
  }
  secret.erase("stringData");
}

// SetDefaults_Secret: a secret without a type is Opaque.
void default_secret(json& secret) { default_string(secret, "type", "Opaque"); }

// ---- resource names (pkg/apis/core/helper) --------------------------------------------------

bool overcommit_allowed(std::string_view name) { return is_native_resource(name) && !is_hugepages(name); }

bool standard_quota_resource(std::string_view name) {
  return one_of(name, {"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
                       "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
                       "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
                       "configmaps", "services.nodeports", "services.loadbalancers"}) ||
         name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
}

void quota_resource_name(Causes& causes, const std::string& field, const std::string& name) {
  resource_name(causes, field, name);
  if (name.find('/') == std::string::npos && !standard_quota_resource(name))
    invalid_value(causes, field, name, "must be a standard resource for quota");
}

std::string now_rfc3339() { return api::print::format_rfc3339(std::chrono::system_clock::now()); }

// SetDefaults_Pod: the pod spec's defaults, service links on, requests taken from limits where
// a container sets only limits, and with hostNetwork every unset host port the container port
// (a pod's, not a template's, since Kubernetes 1.28).
void default_pod(json& pod) {
  auto& spec = object_member(pod, "spec");
  default_pod_spec(spec);
  default_value(spec, "enableServiceLinks", true);
  const bool host_network = is_true(at(spec, {"hostNetwork"}));
  for (const char* list : {"initContainers", "containers"})
    if (at(spec, {list}).is_array())
      for (auto& c : spec[list]) {
        if (host_network && at(c, {"ports"}).is_array())
          for (auto& port : c["ports"])
            if (port.is_object() && num(at(port, {"hostPort"})) == 0 && port.contains("containerPort"))
              port["hostPort"] = port["containerPort"];
        const json& limits = at(c, {"resources", "limits"});
        if (!limits.is_object()) continue;
        auto& requests = object_member(object_member(c, "resources"), "requests");
        for (const auto& [name, quantity] : limits.items())
          if (!requests.contains(name)) requests[name] = quantity;
      }
}

// PrepareForCreate: a pod starts Pending, with its QoS class, whatever status the client sent;
// its AppArmor annotations and fields say the same.
void prepare_pod(json& pod) {
  pod["status"] = {{"phase", "Pending"}, {"qosClass", pod_qos_class(pod)}};
  apply_scheduling_gated_condition(pod, now_rfc3339());
  mutate_pod_affinity(pod);
  sync_app_armor(pod);
}

// ValidatePodCreate: a new pod's seccomp and AppArmor annotations agree with its fields too.
void validate_pod_create(const json& pod, Causes& causes) {
  validate_pod_metadata_and_spec(pod, causes, true);
  // Ephemeral containers come only through pods/ephemeralcontainers; a node only once the
  // scheduling gates are gone.
  if (!arr(at(pod, {"spec", "ephemeralContainers"})).empty())
    forbidden(causes, "spec.ephemeralContainers", "cannot be set on create");
  if (!str(at(pod, {"spec", "nodeName"})).empty() && !arr(at(pod, {"spec", "schedulingGates"})).empty())
    forbidden(causes, "spec.nodeName", "cannot be set until all schedulingGates have been cleared");
  validate_seccomp_match(causes, at(pod, {"metadata", "annotations"}), at(pod, {"spec"}), "spec");
  validate_app_armor_match(causes, pod);
}

// CheckGracefulDelete: the requested grace period or the pod's own; none for a pod no node
// runs or one that has finished. A negative period is one second.
std::int64_t pod_grace_period(const json& pod, std::int64_t requested) {
  std::int64_t period = requested;
  if (period < 0) {
    const json& own = at(pod, {"spec", "terminationGracePeriodSeconds"});
    period = own.is_number_integer() ? own.get<std::int64_t>() : 0;
  }
  const std::string phase = str(at(pod, {"status", "phase"}));
  if (str(at(pod, {"spec", "nodeName"})).empty() || phase == "Failed" || phase == "Succeeded") period = 0;
  return period < 0 ? 1 : period;
}

// ---- persistent volumes and claims ------------------------------------------------------

// The access modes of a volume or claim: known ones, ReadWriteOncePod alone.
void validate_access_modes(Causes& causes, const json& modes, const std::string& field) {
  bool once_pod = false, others = false;
  for (const auto& mode : arr(modes)) {
    const std::string m = str(mode);
    if (!one_of(m, {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}))
      unsupported(causes, field, mode, {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"});
    else if (m == "ReadWriteOncePod")
      once_pod = true;
    else
      others = true;
  }
  if (once_pod && others) forbidden(causes, field, "may not use ReadWriteOncePod with other access modes");
}

void validate_volume_mode(Causes& causes, const json& mode, const std::string& field) {
  if (mode.is_string() && !one_of(str(mode), {"Block", "Filesystem"}))
    unsupported(causes, field, mode, {"Block", "Filesystem"});
}

void validate_secret_reference(Causes& causes, const json& ref, const std::string& path) {
  const std::string name = str(at(ref, {"name"})), ns = str(at(ref, {"namespace"}));
  if (name.empty())
    required(causes, path + ".name");
  else
    subdomain_field(causes, path + ".name", name);
  if (ns.empty())
    required(causes, path + ".namespace");
  else
    label_field(causes, path + ".namespace", ns);
}

// The volume sources of a PersistentVolumeSpec, in the order Kubernetes checks them, with
// the strings each one requires.
struct PvSource {
  const char* key;
  const char* error_key;                        // the name in "may not specify more than 1 volume type" errors
  const char* path;                             // where its own errors are reported
  std::array<const char*, 3> required_strings;  // unused slots are null
};

const PvSource k_pv_sources[] = {
    {"hostPath", "hostPath", "hostPath", {}},
    {"gcePersistentDisk", "gcePersistentDisk", "persistentDisk", {"pdName"}},
    {"awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", {"volumeID"}},
    {"glusterfs", "glusterfs", "glusterfs", {"endpoints", "path"}},
    {"flocker", "flocker", "flocker", {}},
    {"nfs", "nfs", "nfs", {"server", "path"}},
    {"rbd", "rbd", "rbd", {}},
    {"quobyte", "quobyte", "quobyte", {}},
    {"cephfs", "cephFS", "cephfs", {}},
    {"iscsi", "iscsi", "iscsi", {"targetPortal"}},
    {"cinder", "cinder", "cinder", {"volumeID"}},
    {"fc", "fc", "fc", {}},
    {"flexVolume", nullptr, "flexVolume", {"driver"}},
    {"azureFile", "azureFile", "azureFile", {"secretName", "shareName"}},
    {"vsphereVolume", "vsphereVolume", "vsphereVolume", {"volumePath"}},
    {"photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", {"pdID"}},
    {"portworxVolume", "portworxVolume", "portworxVolume", {"volumeID"}},
    {"azureDisk", "azureDisk", "azureDisk", {"diskName", "diskURI"}},
    {"scaleIO", "scaleIO", "scaleIO", {"gateway", "system", "volumeName"}},
    {"local", "local", "local", {}},
    {"storageos", "storageos", "storageos", {}},
    {"csi", "csi", "csi", {}},
};

// What each source checks beyond its required strings.
void validate_pv_source(Causes& causes, const std::string& key, const json& source, const std::string& path,
                        const std::string& pv_name, bool node_affinity, const std::string& spec_path) {
  if (shared_volume_source_rules(causes, key, source, path)) return;
  if (key == "local") {
    const std::string p = str(at(source, {"path"}));
    if (p.empty())
      required(causes, path + ".path");
    else
      no_backsteps(causes, path + ".path", p);
    if (!node_affinity) required(causes, spec_path + ".nodeAffinity", "Local volume requires node affinity");
  } else if (key == "csi") {
    validate_csi_driver_name(causes, path + ".driver", str(at(source, {"driver"})));
    if (str(at(source, {"volumeHandle"})).empty()) required(causes, path + ".volumeHandle");
    for (const char* ref :
         {"controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef", "nodeExpandSecretRef"})
      if (at(source, {ref}).is_object()) validate_secret_reference(causes, source[ref], path + "." + ref);
  } else if (key == "rbd" || key == "cephfs") {
    if (arr(at(source, {"monitors"})).empty()) required(causes, path + ".monitors");
    if (key == "rbd" && str(at(source, {"image"})).empty()) required(causes, path + ".image");
  } else if (key == "iscsi") {
    const std::string iqn = str(at(source, {"iqn"}));
    if (at(source, {"initiatorName"}).is_string() && pv_name.size() + 1 + str(at(source, {"targetPortal"})).size() > 64)
      invalid_value(causes, path + ".targetportal", str(at(source, {"targetPortal"})),
                    "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
                    "iscsi.initiatorName is specified.");
    if (iqn.empty())
      required(causes, path + ".iqn");
    else if (!iqn.starts_with("iqn") && !iqn.starts_with("eui") && !iqn.starts_with("naa"))
      invalid_value(causes, path + ".iqn", iqn, "must be valid format");
    const json& lun = at(source, {"lun"});
    if (api::print::num(lun) < 0 || api::print::num(lun) > 255)
      invalid_value(causes, path + ".lun", lun, "must be between 0 and 255, inclusive");
    if ((at(source, {"chapAuthDiscovery"}) == true || at(source, {"chapAuthSession"}) == true) &&
        !at(source, {"secretRef"}).is_object())
      required(causes, path + ".secretRef");
    if (at(source, {"secretRef"}).is_object() && str(at(source, {"secretRef", "name"})).empty())
      required(causes, path + ".secretRef.name");
  } else if (key == "storageos") {
    const std::string volume = str(at(source, {"volumeName"}));
    if (volume.empty())
      required(causes, path + ".volumeName");
    else
      label_field(causes, path + ".volumeName", volume);
    if (!str(at(source, {"volumeNamespace"})).empty())
      label_field(causes, path + ".volumeNamespace", at(source, {"volumeNamespace"}));
    if (at(source, {"secretRef"}).is_object()) {
      if (str(at(source, {"secretRef", "name"})).empty()) required(causes, path + ".secretRef.name");
      if (str(at(source, {"secretRef", "namespace"})).empty()) required(causes, path + ".secretRef.namespace");
    }
  } else if (key == "cinder") {
    if (at(source, {"secretRef"}).is_object()) {
      if (str(at(source, {"secretRef", "name"})).empty()) required(causes, path + ".secretRef.name");
      if (str(at(source, {"secretRef", "namespace"})).empty()) required(causes, path + ".secretRef.namespace");
    }
  } else if (key == "glusterfs") {
    const json& ns = at(source, {"endpointsNamespace"});
    if (ns.is_string() && str(ns).empty())
      invalid_value(causes, path + ".endpointsNamespace", ns,
                    "if the endpointnamespace is set, it must be a valid namespace name");
    else
      label_field(causes, path + ".endpointsNamespace", ns);
  } else if (key == "azureFile") {
    if (at(source, {"secretNamespace"}).is_string() && str(at(source, {"secretNamespace"})).empty())
      required(causes, path + ".secretNamespace");
  }
}

// ---- PersistentVolume -------------------------------------------------------------------

// SetDefaults_PersistentVolume and the defaults of its volume source.
void default_persistent_volume(json& pv) {
  auto& spec = object_member(pv, "spec");
  default_string(spec, "persistentVolumeReclaimPolicy", "Retain");
  default_value(spec, "volumeMode", "Filesystem");
  default_volume_sources(spec);
  if (pv.contains("status") && pv["status"].is_object()) default_string(pv["status"], "phase", "Pending");
}

// PrepareForCreate: a new volume is Pending since now; it has no generation.
void prepare_persistent_volume(json& pv) {
  pv["status"] = {{"phase", "Pending"}, {"lastPhaseTransitionTime", now_rfc3339()}};
  object_member(pv, "metadata").erase("generation");
}

void validate_persistent_volume(const json& pv, Causes& causes) {
  const json& spec = at(pv, {"spec"});
  const std::string path = "spec";
  if (arr(at(spec, {"accessModes"})).empty()) required(causes, path + ".accessModes");
  validate_access_modes(causes, at(spec, {"accessModes"}), path + ".accessModes");

  const json& capacity = at(spec, {"capacity"});
  if (!capacity.is_object() || capacity.empty()) required(causes, path + ".capacity");
  if (!capacity.is_object() || !capacity.contains("storage") || capacity.size() > 1)
    unsupported(causes, path + ".capacity", capacity.is_object() ? capacity : json::object(), {"storage"});
  if (capacity.is_object())
    for (const auto& [resource, value] : capacity.items()) {
      basic_resource(causes, key_path(path + ".capacity", resource), value);
      positive_quantity(causes, key_path(path + ".capacity", resource), value);
    }

  const json& policy = at(spec, {"persistentVolumeReclaimPolicy"});
  if (!str(policy).empty() && !one_of(str(policy), {"Delete", "Recycle", "Retain"}))
    unsupported(causes, path + ".persistentVolumeReclaimPolicy", policy, {"Delete", "Recycle", "Retain"});

  const json& affinity = at(spec, {"nodeAffinity"});
  if (affinity.is_object()) {
    if (at(affinity, {"required"}).is_object())
      validate_node_selector(causes, affinity["required"], path + ".nodeAffinity.required");
    else
      required(causes, path + ".nodeAffinity.required", "must specify required node constraints");
  }

  int sources = 0;
  for (const auto& source : k_pv_sources) {
    const json& value = at(spec, {source.key});
    if (value.is_null()) continue;
    if (sources > 0 && source.error_key) {
      forbidden(causes, path + "." + source.error_key, "may not specify more than 1 volume type");
      continue;
    }
    ++sources;
    const std::string source_path = path + "." + source.path;
    for (const char* field : source.required_strings)
      if (field && str(at(value, {field})).empty()) required(causes, source_path + "." + field);
    validate_pv_source(causes, source.key, value, source_path, str(at(pv, {"metadata", "name"})), affinity.is_object(),
                       path);
  }
  if (sources == 0) required(causes, path, "must specify a volume type");

  const std::string host_path = str(at(spec, {"hostPath", "path"}));
  if (!host_path.empty() && host_path.find_first_not_of('/') == std::string::npos && policy == "Recycle")
    forbidden(causes, path + ".persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'");

  subdomain_field(causes, path + ".storageClassName", at(spec, {"storageClassName"}));
  validate_volume_mode(causes, at(spec, {"volumeMode"}), path + ".volumeMode");
  const json& attributes_class = at(spec, {"volumeAttributesClassName"});
  if (attributes_class.is_string()) {
    if (str(attributes_class).empty())
      required(causes, path + ".volumeAttributesClassName", "an empty string is disallowed");
    else
      subdomain_field(causes, path + ".volumeAttributesClassName", attributes_class);
    if (!at(spec, {"csi"}).is_object())
      required(causes, path + ".csi", "has to be specified when using volumeAttributesClassName");
  }
}

json persistent_volume_source(const json& pv) {
  json source = json::object();
  for (const auto& s : k_pv_sources)
    if (!at(pv, {"spec", s.key}).is_null()) source[s.key] = pv["spec"][s.key];
  return source;
}

// ValidatePersistentVolumeUpdate: the source is fixed (a CSI volume may gain a
// controllerExpandSecretRef), so are volumeMode and a set nodeAffinity.
void validate_persistent_volume_update(const json& pv, const json& old, Causes& causes) {
  json now = persistent_volume_source(pv);
  const json before = persistent_volume_source(old);
  if (before.contains("csi") && !at(before, {"csi", "controllerExpandSecretRef"}).is_object() &&
      at(now, {"csi", "controllerExpandSecretRef"}).is_object())
    now["csi"].erase("controllerExpandSecretRef");
  if (now != before)
    forbidden(causes, "spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation");
  immutable(causes, "volumeMode", at(pv, {"spec", "volumeMode"}), at(old, {"spec", "volumeMode"}));
  if (!at(old, {"spec", "nodeAffinity"}).is_null())
    immutable(causes, "nodeAffinity", at(pv, {"spec", "nodeAffinity"}), at(old, {"spec", "nodeAffinity"}));
  if (at(old, {"spec", "volumeAttributesClassName"}).is_string() &&
      at(pv, {"spec", "volumeAttributesClassName"}).is_null())
    forbidden(causes, "spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden");
}

// ---- PersistentVolumeClaim --------------------------------------------------------------

// PrepareForCreate: a new claim is Pending; it has no generation.
void prepare_persistent_volume_claim(json& pvc) {
  pvc["status"] = {{"phase", "Pending"}};
  object_member(pvc, "metadata").erase("generation");
}

// validateDataSource / validateDataSourceRef.
void validate_data_source(Causes& causes, const json& source, const std::string& path, bool reference) {
  if (str(at(source, {"name"})).empty()) required(causes, path + ".name");
  const std::string kind = str(at(source, {"kind"}));
  if (kind.empty()) required(causes, path + ".kind");
  const std::string group = str(at(source, {"apiGroup"}));
  if (group.empty() && kind != "PersistentVolumeClaim")
    invalid_value(causes, path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup");
  if (!group.empty()) invalid_each(causes, path + ".apiGroup", group, subdomain_errors(group));
  if (reference)
    label_field(causes, path + ".namespace", str(at(source, {"namespace"})).empty() ? json() : source["namespace"]);
}

}  // namespace

void validate_persistent_volume_claim_spec(Causes& causes, const json& spec, const std::string& path) {
  if (arr(at(spec, {"accessModes"})).empty())
    required(causes, path + ".accessModes", "at least 1 access mode is required");
  validate_label_selector(causes, at(spec, {"selector"}), path + ".selector");
  validate_access_modes(causes, at(spec, {"accessModes"}), path + ".accessModes");
  const json& storage = at(spec, {"resources", "requests", "storage"});
  if (storage.is_null())
    required(causes, key_path(path + ".resources", "storage"));
  else
    positive_quantity(causes, key_path(path + ".resources", "storage"), storage);
  subdomain_field(causes, path + ".storageClassName", at(spec, {"storageClassName"}));
  validate_volume_mode(causes, at(spec, {"volumeMode"}), path + ".volumeMode");
  const json& source = at(spec, {"dataSource"});
  const json& reference = at(spec, {"dataSourceRef"});
  if (source.is_object()) validate_data_source(causes, source, path + ".dataSource", false);
  if (reference.is_object()) validate_data_source(causes, reference, path + ".dataSourceRef", true);
  if (!str(at(reference, {"namespace"})).empty()) {
    if (source.is_object())
      invalid_value(causes, path, path + ".dataSource",
                    "may not be specified when dataSourceRef.namespace is specified");
  } else if (source.is_object() && reference.is_object()) {
    if (at(source, {"apiGroup"}) != at(reference, {"apiGroup"}) || at(source, {"kind"}) != at(reference, {"kind"}) ||
        at(source, {"name"}) != at(reference, {"name"}))
      invalid_value(causes, path, path + ".dataSource", "must match dataSourceRef");
  }
  subdomain_field(causes, path + ".volumeAttributesClassName", at(spec, {"volumeAttributesClassName"}));
}

namespace {

void validate_persistent_volume_claim(const json& pvc, Causes& causes) {
  validate_persistent_volume_claim_spec(causes, at(pvc, {"spec"}), "spec");
  const json& capacity = at(pvc, {"status", "capacity"});
  if (capacity.is_object())
    for (const auto& [resource, value] : capacity.items())
      basic_resource(causes, key_path("status.capacity", resource), value);
}

// ValidatePersistentVolumeClaimUpdate: the spec is fixed, except that volumeName may be set
// once, storageClassName may move from the beta annotation or from unset, and a bound claim
// may change its storage request and volumeAttributesClassName.
void validate_persistent_volume_claim_update(const json& pvc, const json& old, Causes& causes) {
  json now = at(pvc, {"spec"}).is_object() ? pvc["spec"] : json::object();
  json before = at(old, {"spec"}).is_object() ? old["spec"] : json::object();
  auto copy_member = [](json& to, const json& from, const char* key) {
    if (from.contains(key))
      to[key] = from[key];
    else
      to.erase(key);
  };
  if (str(at(before, {"volumeName"})).empty()) copy_member(before, now, "volumeName");

  constexpr const char* k_class_annotation = "volume.beta.kubernetes.io/storage-class";
  const json& old_annotation = at(old, {"metadata", "annotations", k_class_annotation});
  const json& new_annotation = at(pvc, {"metadata", "annotations", k_class_annotation});
  const bool from_annotation = old_annotation.is_string() && unset(before, "storageClassName") &&
                               at(now, {"storageClassName"}) == old_annotation &&
                               (new_annotation.is_null() || new_annotation == old_annotation);
  if (from_annotation) {
    now.erase("storageClassName");
  } else {
    if (str(new_annotation) != str(old_annotation))
      invalid_value(causes, std::string("metadata.annotations.") + k_class_annotation, str(new_annotation),
                    "field is immutable");
    if (at(now, {"storageClassName"}).is_string() && unset(before, "storageClassName") &&
        (old_annotation.is_null() || at(now, {"storageClassName"}) == old_annotation))
      now.erase("storageClassName");
  }
  const bool bound = str(at(pvc, {"status", "phase"})) == "Bound";
  if (bound && at(now, {"resources", "requests"}).is_object()) {
    const json& old_storage = at(before, {"resources", "requests", "storage"});
    if (old_storage.is_null())
      now["resources"]["requests"].erase("storage");
    else
      now["resources"]["requests"]["storage"] = old_storage;
  }
  if (bound && at(now, {"volumeAttributesClassName"}).is_string())
    copy_member(now, before, "volumeAttributesClassName");
  if (now != before)
    forbidden(causes, "spec",
              "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound "
              "claims");

  const auto new_size = api::quantity_value(at(pvc, {"spec", "resources", "requests", "storage"})).value_or(0);
  const auto old_size = api::quantity_value(at(old, {"spec", "resources", "requests", "storage"})).value_or(0);
  const auto status_size = api::quantity_value(at(old, {"status", "capacity", "storage"})).value_or(0);
  if (new_size < old_size && new_size <= status_size)
    forbidden(causes, "spec.resources.requests.storage", "field can not be less than status.capacity");
  immutable(causes, "volumeMode", at(pvc, {"spec", "volumeMode"}), at(old, {"spec", "volumeMode"}));
  const json& old_class = at(old, {"spec", "volumeAttributesClassName"});
  const json& new_class = at(pvc, {"spec", "volumeAttributesClassName"});
  if (old_class.is_string() && new_class != old_class) {
    if (new_class.is_null())
      forbidden(causes, "spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden");
    else if (str(new_class).empty())
      forbidden(causes, "spec.volumeAttributesClassName", "update from non-nil value to an empty string is forbidden");
  }
}

// ---- ReplicationController --------------------------------------------------------------

// SetDefaults_ReplicationController: selector and labels from the template's labels, one
// replica, and the pod template's defaults.
void default_replication_controller(json& rc) {
  auto& spec = object_member(rc, "spec");
  const json& template_labels = at(spec, {"template", "metadata", "labels"});
  if (template_labels.is_object()) {
    if (!at(spec, {"selector"}).is_object() || spec["selector"].empty()) spec["selector"] = template_labels;
    auto& meta = object_member(rc, "metadata");
    if (!at(meta, {"labels"}).is_object() || meta["labels"].empty()) meta["labels"] = template_labels;
  }
  default_value(spec, "replicas", 1);
}

// PrepareForCreate: status starts at zero replicas.
void prepare_replication_controller(json& rc) { rc["status"] = {{"replicas", 0}}; }

bool labels_match(const json& selector, const json& labels) {
  if (!selector.is_object()) return true;
  for (const auto& [key, value] : selector.items())
    if (!labels.is_object() || !labels.contains(key) || labels[key] != value) return false;
  return true;
}

// `old` is the stored controller of an update (null on create).
void validate_replication_controller(const json& rc, const json* old, Causes& causes) {
  const json& spec = at(rc, {"spec"});
  non_negative(causes, "spec.minReadySeconds", at(spec, {"minReadySeconds"}));
  const json& selector = at(spec, {"selector"});
  if (!selector.is_object() || selector.empty()) required(causes, "spec.selector");
  non_negative(causes, "spec.replicas", at(spec, {"replicas"}));
  const json& tmpl = at(spec, {"template"});
  if (!tmpl.is_object()) {
    required(causes, "spec.template");
  } else {
    const json& labels = at(tmpl, {"metadata", "labels"});
    if (selector.is_object() && !selector.empty() && !labels_match(selector, labels))
      invalid_rendered(causes, "spec.template.metadata.labels", go_string_map(labels),
                       "`selector` does not match template `labels`");
    validate_pod_template(causes, tmpl, "spec.template", old ? &at(*old, {"spec", "template"}) : nullptr);
    if (api::print::num(at(spec, {"replicas"})) > 1) {
      const json& volumes = arr(at(tmpl, {"spec", "volumes"}));
      for (std::size_t i = 0; i < volumes.size(); ++i)
        if (at(volumes[i], {"gcePersistentDisk"}).is_object() &&
            at(volumes[i], {"gcePersistentDisk", "readOnly"}) != true)
          invalid_value(causes, index_path("spec.template.spec.volumes", i) + ".gcePersistentDisk.readOnly", false,
                        "must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it "
                        "is read-only");
    }
    always_restarting(causes, at(tmpl, {"spec"}), "spec.template.spec", "ReplicationController");
  }
  // ValidateReplicationControllerStatus (status writes; create and spec writes carry the
  // stored status).
  validate_replica_counts(causes, at(rc, {"status"}));
}

// ---- PodTemplate ------------------------------------------------------------------------


// PrepareForCreate: generation 1 (the template is a pod template's spec).
void validate_pod_template_object(const json& pt, const json* old, Causes& causes) {
  const json& tmpl = at(pt, {"template"});
  validate_pod_template(causes, tmpl.is_object() ? tmpl : json::object(), "template",
                        old ? &at(*old, {"template"}) : nullptr);
}

// ---- LimitRange -------------------------------------------------------------------------

// SetDefaults_LimitRangeItem: a Container limit's default comes from max, its defaultRequest
// from default, then from min.
void default_limit_range(json& lr) {
  if (!at(lr, {"spec", "limits"}).is_array()) return;
  for (auto& item : lr["spec"]["limits"]) {
    if (!item.is_object() || str(at(item, {"type"})) != "Container") continue;
    json defaults = at(item, {"default"}).is_object() ? item["default"] : json::object();
    json requests = at(item, {"defaultRequest"}).is_object() ? item["defaultRequest"] : json::object();
    if (at(item, {"max"}).is_object())
      for (const auto& [resource, value] : item["max"].items())
        if (!defaults.contains(resource)) defaults[resource] = value;
    for (const auto& [resource, value] : defaults.items())
      if (!requests.contains(resource)) requests[resource] = value;
    if (at(item, {"min"}).is_object())
      for (const auto& [resource, value] : item["min"].items())
        if (!requests.contains(resource)) requests[resource] = value;
    if (!defaults.empty()) item["default"] = defaults;
    if (!requests.empty()) item["defaultRequest"] = requests;
  }
}

void validate_limit_range(const json& lr, Causes& causes) {
  const json& limits = arr(at(lr, {"spec", "limits"}));
  std::set<std::string> types;
  for (std::size_t i = 0; i < limits.size(); ++i) {
    const json& item = limits[i];
    const std::string path = index_path("spec.limits", i);
    const std::string type = str(at(item, {"type"}));
    const auto type_errors = qualified_name_errors(type);
    invalid_each(causes, path + ".type", type, type_errors);
    if (type_errors.empty() && type.find('/') == std::string::npos &&
        !one_of(type, {"Pod", "Container", "PersistentVolumeClaim"}))
      invalid_value(causes, path + ".type", type, "must be a standard limit type or fully qualified");
    if (!types.insert(type).second) duplicate(causes, path + ".type", type);

    auto check_name = [&](const std::string& field, const std::string& resource) {
      if (type == "Pod" || type == "Container")
        container_resource_name(causes, field, resource);
      else
        resource_name(causes, field, resource);
    };
    std::set<std::string> keys;
    auto names = [&](const char* member) {
      if (!at(item, {member}).is_object()) return;
      for (const auto& [resource, value] : item[member].items()) {
        check_name(key_path(path + "." + member, resource), resource);
        keys.insert(resource);
      }
    };
    names("max");
    names("min");
    if (type == "Pod") {
      if (!at(item, {"default"}).empty())
        forbidden(causes, path + ".default", "may not be specified when `type` is 'Pod'");
      if (!at(item, {"defaultRequest"}).empty())
        forbidden(causes, path + ".defaultRequest", "may not be specified when `type` is 'Pod'");
    } else {
      names("default");
      names("defaultRequest");
    }
    if (type == "PersistentVolumeClaim" && at(item, {"min", "storage"}).is_null() &&
        at(item, {"max", "storage"}).is_null())
      required(causes, path + ".limits",
               "either minimum or maximum storage value is required, but neither was provided");
    names("maxLimitRequestRatio");

    for (const auto& k : keys) {
      const json& min = at(item, {"min", k});
      const json& max = at(item, {"max", k});
      const json& def = type == "Pod" ? json() : at(item, {"default", k});
      const json& request = type == "Pod" ? json() : at(item, {"defaultRequest", k});
      const json& ratio = at(item, {"maxLimitRequestRatio", k});
      const auto min_q = api::quantity_value(min), max_q = api::quantity_value(max), def_q = api::quantity_value(def),
                 request_q = api::quantity_value(request), ratio_q = api::quantity_value(ratio);
      const std::string min_t = quantity_text(min), max_t = quantity_text(max), def_t = quantity_text(def),
                        request_t = quantity_text(request), ratio_t = quantity_text(ratio);
      if (min_q && max_q && *min_q > *max_q)
        invalid_value(causes, key_path(path + ".min", k), min_t,
                      "min value " + min_t + " is greater than max value " + max_t);
      if (request_q && min_q && *min_q > *request_q)
        invalid_value(causes, key_path(path + ".defaultRequest", k), request_t,
                      "min value " + min_t + " is greater than default request value " + request_t);
      if (request_q && max_q && *request_q > *max_q)
        invalid_value(causes, key_path(path + ".defaultRequest", k), request_t,
                      "default request value " + request_t + " is greater than max value " + max_t);
      if (request_q && def_q && *request_q > *def_q)
        invalid_value(causes, key_path(path + ".defaultRequest", k), request_t,
                      "default request value " + request_t + " is greater than default limit value " + def_t);
      if (def_q && min_q && *min_q > *def_q)
        invalid_value(causes, key_path(path + ".default", k), min_t,
                      "min value " + min_t + " is greater than default value " + def_t);
      if (def_q && max_q && *def_q > *max_q)
        invalid_value(causes, key_path(path + ".default", k), max_t,
                      "default value " + def_t + " is greater than max value " + max_t);
      if (ratio_q && *ratio_q < 1)
        invalid_value(causes, key_path(path + ".maxLimitRequestRatio", k), ratio_t,
                      "ratio " + ratio_t + " is less than 1");
      if (ratio_q && min_q && max_q) {
        const long double limit = *max_q / *min_q;
        if (*ratio_q > limit) {
          char bound[64];
          std::snprintf(bound, sizeof bound, "%Lf", limit);
          invalid_value(causes, key_path(path + ".maxLimitRequestRatio", k), ratio_t,
                        "ratio " + ratio_t + " is greater than max/min = " + bound);
        }
      }
      if (!overcommit_allowed(k) && def_q && request_q && *def_q != *request_q)
        invalid_value(causes, key_path(path + ".defaultRequest", k), request_t,
                      "default value " + def_t + " must equal to defaultRequest value " + request_t + " in " + k);
    }
  }
}

// PrepareForCreate: a limit range has no generation.
void prepare_without_generation(json& object) { object_member(object, "metadata").erase("generation"); }

// ---- ResourceQuota ----------------------------------------------------------------------

const std::initializer_list<std::string_view> k_quota_scopes = {"Terminating",          "NotTerminating",
                                                                "BestEffort",           "NotBestEffort",
                                                                "PriorityClass",        "CrossNamespacePodAffinity",
                                                                "VolumeAttributesClass"};

// IsResourceQuotaScopeValidForResource.
bool scope_fits(std::string_view scope, std::string_view resource) {
  const bool pod_count = resource == "pods";
  const bool pod_compute =
      one_of(resource, {"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"});
  if (one_of(scope, {"Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"}))
    return pod_count || pod_compute;
  if (scope == "BestEffort") return pod_count;
  if (scope == "VolumeAttributesClass") return one_of(resource, {"persistentvolumeclaims", "requests.storage"});
  return true;
}

// PrepareForCreate: no usage yet; no generation.
void prepare_resource_quota(json& quota) {
  quota["status"] = json::object();
  object_member(quota, "metadata").erase("generation");
}

void validate_quota_resources(Causes& causes, const json& resources, const std::string& path) {
  if (!resources.is_object()) return;
  for (const auto& [resource, value] : resources.items()) {
    const std::string field = key_path(path, resource);
    quota_resource_name(causes, field, resource);
    resource_quantity(causes, field, resource, value);
  }
}

void validate_resource_quota(const json& quota, Causes& causes) {
  const json& spec = at(quota, {"spec"});
  const json& hard = at(spec, {"hard"});
  validate_quota_resources(causes, hard, "spec.hard");
  std::vector<std::string> hard_names;
  if (hard.is_object())
    for (const auto& [resource, value] : hard.items()) hard_names.push_back(resource);

  const json& scopes = arr(at(spec, {"scopes"}));
  std::set<std::string> scope_set;
  for (const auto& scope : scopes) {
    if (!one_of(str(scope), k_quota_scopes)) invalid_value(causes, "spec.scopes", scopes, "unsupported scope");
    for (const auto& resource : hard_names)
      if (standard_quota_resource(resource) && !scope_fits(str(scope), resource))
        invalid_value(causes, "spec.scopes", scopes, "unsupported scope applied to resource");
    scope_set.insert(str(scope));
  }
  auto conflicting = [](const std::set<std::string>& set) {
    return (set.contains("BestEffort") && set.contains("NotBestEffort")) ||
           (set.contains("Terminating") && set.contains("NotTerminating"));
  };
  if (conflicting(scope_set))
    invalid_rendered(causes, "spec.scopes", go_slice(scopes, "core.ResourceQuotaScope"), "conflicting scopes");

  const json& selector = at(spec, {"scopeSelector"});
  if (selector.is_object()) {
    const std::string path = "spec.scopeSelector.matchExpressions";
    std::set<std::string> selected;
    for (const auto& requirement : arr(at(selector, {"matchExpressions"}))) {
      const json& name = at(requirement, {"scopeName"});
      const json& op = at(requirement, {"operator"});
      const json& values = arr(at(requirement, {"values"}));
      if (!one_of(str(name), k_quota_scopes))
        invalid_value(causes, path + ".scopeName", str(name), "unsupported scope");
      for (const auto& resource : hard_names)
        if (standard_quota_resource(resource) && !scope_fits(str(name), resource))
          invalid_value(causes, path, selector, "unsupported scope applied to resource");
      if (one_of(str(name),
                 {"BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"}) &&
          op != "Exists")
        invalid_value(causes, path + ".operator", str(op),
                      "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                      "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                      "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity");
      if (op == "In" || op == "NotIn") {
        if (values.empty())
          required(causes, path + ".values",
                   "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (!values.empty())
          invalid_value(causes, path + ".values", values,
                        "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector");
      } else {
        invalid_value(causes, path + ".operator", str(op), "not a valid selector operator");
      }
      selected.insert(str(name));
    }
    if (conflicting(selected)) invalid_value(causes, path, scopes, "conflicting scopes");
  }
  validate_quota_resources(causes, at(quota, {"status", "hard"}), "status.hard");
  validate_quota_resources(causes, at(quota, {"status", "used"}), "status.used");
}

// ValidateResourceQuotaUpdate: the set of scopes is fixed.
void validate_resource_quota_update(const json& quota, const json& old, Causes& causes) {
  auto scope_set = [](const json& q) {
    std::set<std::string> out;
    for (const auto& scope : arr(at(q, {"spec", "scopes"}))) out.insert(str(scope));
    return out;
  };
  if (scope_set(quota) != scope_set(old))
    invalid_value(causes, "spec.scopes", arr(at(quota, {"spec", "scopes"})), "field is immutable");
}

// The namespaces every cluster has.
std::vector<json> system_namespaces() {
  std::vector<json> out;
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"})
    out.push_back({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
  return out;
}

KindSpec namespace_row() {
  return {.info = {.version = "v1", .kind = "Namespace", .plural = "namespaces", .short_names = {"ns"},
                   .namespaced = false,
                   .verbs = {"create", "delete", "get", "list", "patch", "update", "watch"},
                   .subresources = {"status", "finalize"},
                   .columns = {name_col(), col("Status", "string", "The status of the namespace"), age_col()},
                   .printer = print_namespace},
          .fields = {{"status.phase", {"status", "phase"}, ""}},
          .delete_returns_object = true,
          .name_rule = NameRule::label,
          .lifecycle = Lifecycle::namespace_,
          .strategy = {.defaults = label_namespace,
                       .prepare_create = prepare_namespace,
                       .prepare_update = prepare_namespace_update,
                       .validate = validate_namespace},
          .bootstrap = system_namespaces};
}

KindSpec pod_row() {
  return {.info = {.version = "v1", .kind = "Pod", .plural = "pods", .short_names = {"po"}, .categories = {"all"},
                   .subresources = {"binding", "ephemeralcontainers", "eviction", "status"},
                   .columns = {name_col(),
                               col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
                               col("Status", "string", "The aggregate status of the containers in this pod."),
                               col("Restarts", "string",
                                   "The number of times the containers in this pod have been restarted and when the "
                                   "last container in this pod has restarted."),
                               age_col(),
                               col("IP", "string",
                                   "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
                                   "not yet allocated.",
                                   1),
                               col("Node", "string", "NodeName indicates in which node this pod is scheduled.", 1),
                               col("Nominated Node", "string",
                                   "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
                                   "cannot be scheduled right away as preemption victims receive their graceful "
                                   "termination periods.",
                                   1),
                               col("Readiness Gates", "string",
                                   "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
                   .printer = print_pod},
          .fields = {{"spec.nodeName", {"spec", "nodeName"}, ""},
                     {"spec.restartPolicy", {"spec", "restartPolicy"}, ""},
                     {"spec.schedulerName", {"spec", "schedulerName"}, ""},
                     {"spec.serviceAccountName", {"spec", "serviceAccountName"}, ""},
                     {"spec.hostNetwork", {"spec", "hostNetwork"}, "false"},
                     {"status.phase", {"status", "phase"}, ""},
                     {"status.podIP", {"status", "podIP"}, ""},
                     {"status.nominatedNodeName", {"status", "nominatedNodeName"}, ""}},
          // Kubelets watch their own node's pods: the cache indexes pods and watchers by node.
          .index_field = "spec.nodeName",
          // The pod status strategy drops deletionTimestamp and keeps ownerReferences.
          .delete_returns_object = true,
          .status_keeps_meta = {"deletionTimestamp", "ownerReferences"},
          .strategy = {.defaults = default_pod,
                       .prepare_create = prepare_pod,
                       .validate_create = validate_pod_create,
                       .create_warnings = app_armor_create_warnings,
                       .validate_update = validate_pod_changes,
                       .warnings = pod_write_warnings,
                       .prepare_subresource = prepare_pod_subresource,
                       .validate_subresource = validate_pod_subresource,
                       .grace_period = pod_grace_period}};
}

// ConfigMaps and Secrets hold at most 1 MiB of values (core.MaxSecretSize).
constexpr std::size_t k_max_data_bytes = 1024 * 1024;

// The bytes a []byte field holds: JSON carries it in base64.
std::size_t decoded_size(const json& value) {
  const std::string& text = str(value);
  const std::size_t n = text.size();
  if (n % 4 != 0) return n / 4 * 3 + (n % 4 > 1 ? n % 4 - 1 : 0);  // an unpadded tail
  std::size_t padding = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '=' && padding < 2; ++it) ++padding;
  return n / 4 * 3 - padding;
}

void check_data_keys(Causes& causes, const json& bag, const std::string& field) {
  if (!bag.is_object()) return;
  for (const auto& [key, value] : bag.items())
    for (const auto& why : config_key_errors(key)) invalid_value(causes, field + "[" + key + "]", key, why);
}

// ValidateConfigMap: keys, a key in both data and binaryData, and the total size.
void validate_config_map(const json& config_map, Causes& causes) {
  const json& data = at(config_map, {"data"});
  const json& binary = at(config_map, {"binaryData"});
  std::size_t total = 0;
  check_data_keys(causes, data, "data");
  if (data.is_object())
    for (const auto& [key, value] : data.items()) {
      if (binary.is_object() && binary.contains(key))
        invalid_value(causes, "data[" + key + "]", key, "duplicate of key present in binaryData");
      total += str(value).size();
    }
  check_data_keys(causes, binary, "binaryData");
  if (binary.is_object())
    for (const auto& [key, value] : binary.items()) total += decoded_size(value);
  if (total > k_max_data_bytes)
    add_cause(causes, "[]", "FieldValueTooLong", "Too long: must have at most " + std::to_string(k_max_data_bytes) + " bytes");
}

KindSpec config_map_row() {
  return {.info = {.version = "v1", .kind = "ConfigMap", .plural = "configmaps", .short_names = {"cm"},
                   .columns = {name_col(), col("Data", "string", "Data contains the configuration data."), age_col()},
                   .printer = print_config_map},
          .strategy = {.validate = validate_config_map}};
}

// ValidateSecret's checks of the well-known types: the keys each must carry (a
// ServiceAccount token Secret names its ServiceAccount; its token comes from a controller).
void validate_secret(const json& secret, Causes& causes) {
  const std::string type = str(at(secret, {"type"}));
  const json& data = at(secret, {"data"});
  check_data_keys(causes, data, "data");
  std::size_t total = 0;
  if (data.is_object())
    for (const auto& [key, value] : data.items()) total += decoded_size(value);
  if (total > k_max_data_bytes)
    add_cause(causes, "data", "FieldValueTooLong", "Too long: must have at most " + std::to_string(k_max_data_bytes) + " bytes");
  auto has = [&](const char* key) { return data.is_object() && data.contains(key); };
  auto require = [&](const char* key) {
    if (!has(key)) required(causes, std::string("data[") + key + "]");
  };
  if (type == "kubernetes.io/service-account-token") {
    if (str(at(secret, {"metadata", "annotations", "kubernetes.io/service-account.name"})).empty())
      required(causes, "metadata.annotations[kubernetes.io/service-account.name]");
  } else if (type == "kubernetes.io/dockercfg") {
    require(".dockercfg");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    require(".dockerconfigjson");
  } else if (type == "kubernetes.io/basic-auth") {
    if (!has("username") && !has("password")) {
      require("username");
      require("password");
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    if (str(at(secret, {"data", "ssh-privatekey"})).empty()) required(causes, "data[ssh-privatekey]");
  } else if (type == "kubernetes.io/tls") {
    require("tls.crt");
    require("tls.key");
  }
}

KindSpec secret_row() {
  return {.info = {.version = "v1", .kind = "Secret", .plural = "secrets",
                   .columns = {name_col(),
                               col("Type", "string", "Used to facilitate programmatic handling of secret data."),
                               col("Data", "string", "Data contains the secret data."), age_col()},
                   .printer = print_secret},
          .fields = {{"type", {"type"}, ""}},
          .strategy = {.canonicalize = fold_string_data, .defaults = default_secret, .validate = validate_secret}};
}

KindSpec event_row() {
  return {.info = {.version = "v1", .kind = "Event", .plural = "events", .short_names = {"ev"},
                   .columns = event_columns(),
                   .printer = print_event},
          .fields = {{"involvedObject.kind", {"involvedObject", "kind"}, ""},
                     {"involvedObject.namespace", {"involvedObject", "namespace"}, ""},
                     {"involvedObject.name", {"involvedObject", "name"}, ""},
                     {"involvedObject.uid", {"involvedObject", "uid"}, ""},
                     {"involvedObject.apiVersion", {"involvedObject", "apiVersion"}, ""},
                     {"involvedObject.resourceVersion", {"involvedObject", "resourceVersion"}, ""},
                     {"involvedObject.fieldPath", {"involvedObject", "fieldPath"}, ""},
                     {"reason", {"reason"}, ""},
                     {"reportingComponent", {"reportingComponent"}, ""},
                     {"source", {"source", "component"}, ""},
                     {"type", {"type"}, ""}},
          .uses_event_ttl = true};
}

KindSpec node_row() {
  return {.info = {.version = "v1", .kind = "Node", .plural = "nodes", .short_names = {"no"}, .namespaced = false,
                   .subresources = {"status"},
                   .columns = {name_col(), col("Status", "string", "The status of the node"),
                               col("Roles", "string", "The roles of the node"), age_col(),
                               col("Version", "string", "Kubelet Version reported by the node."),
                               col("Internal-IP", "string", "List of addresses reachable to the node.", 1),
                               col("External-IP", "string", "List of addresses reachable to the node.", 1),
                               col("OS-Image", "string",
                                   "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
                                   "(wheezy)).",
                                   1),
                               col("Kernel-Version", "string",
                                   "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
                                   1),
                               col("Container-Runtime", "string",
                                   "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
                                   "containerd://1.4.2).",
                                   1)},
                   .printer = print_node},
          .storage_resource = "minions",
          .fields = {{"spec.unschedulable", {"spec", "unschedulable"}, "false"}},
          .create_keeps_status = true};
}

KindSpec service_account_row() {
  return {.info = {.version = "v1", .kind = "ServiceAccount", .plural = "serviceaccounts", .short_names = {"sa"},
                   .subresources = {"token"},
                   .columns = {name_col(),
                               col("Secrets", "string",
                                   "Secrets is a list of the secrets in the same namespace that pods running using "
                                   "this ServiceAccount are allowed to use."),
                               age_col()},
                   .printer = print_service_account},
          .delete_returns_object = true};
}

KindSpec endpoints_row() {
  return {.info = {.version = "v1", .kind = "Endpoints", .plural = "endpoints", .short_names = {"ep"},
                   .columns = {name_col(),
                               col("Endpoints", "string", "The set of all endpoints is the union of all subsets."),
                               age_col()},
                   .printer = print_endpoints},
          .storage_resource = "services/endpoints"};
}

KindSpec binding_row() {
  return {.info = {.version = "v1", .kind = "Binding", .plural = "bindings", .verbs = {"create"}},
          .lifecycle = Lifecycle::binding};
}

KindSpec component_status_row() {
  return {.info = {.version = "v1", .kind = "ComponentStatus", .plural = "componentstatuses", .short_names = {"cs"},
                   .namespaced = false, .verbs = {"get", "list"},
                   .columns = {name_col(), col("Status", "string", "Status of the component conditions"),
                               col("Message", "string", "Message of the component conditions"),
                               col("Error", "string", "Error of the component conditions")},
                   .printer = print_component_status},
          .lifecycle = Lifecycle::computed};
}

KindSpec limit_range_row() {
  return {.info = {.version = "v1", .kind = "LimitRange", .plural = "limitranges", .short_names = {"limits"},
                   .columns = {name_col(), col("Created At", "date", k_created_doc)}},
          .strategy = {.defaults = default_limit_range,
                       .prepare_create = prepare_without_generation,
                       .validate = validate_limit_range}};
}

KindSpec persistent_volume_claim_row() {
  return {.info = {.version = "v1", .kind = "PersistentVolumeClaim", .plural = "persistentvolumeclaims",
                   .short_names = {"pvc"}, .subresources = {"status"},
                   .columns = {name_col(),
                               col("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
                               col("Volume", "string",
                                   "volumeName is the binding reference to the PersistentVolume backing this claim."),
                               col("Capacity", "string",
                                   "capacity represents the actual resources of the underlying volume."),
                               col("Access Modes", "string",
                                   "accessModes contains the actual access modes the volume backing the PVC has. More "
                                   "info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1"),
                               col("StorageClass", "string", "StorageClass of the pvc"),
                               col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"), age_col(),
                               col("VolumeMode", "string",
                                   "volumeMode defines what type of volume is required by the claim. Value of "
                                   "Filesystem is implied when not included in claim spec.",
                                   1)},
                   .printer = print_persistent_volume_claim},
          // "name" is a legacy alias of metadata.name that Kubernetes keeps supporting.
          .fields = {{"name", {"metadata", "name"}, ""}},
          .delete_returns_object = true,
          .strategy = {.defaults = default_persistent_volume_claim,
                       .prepare_create = prepare_persistent_volume_claim,
                       .validate = validate_persistent_volume_claim,
                       .validate_update = validate_persistent_volume_claim_update,
                       .warnings = claim_write_warnings}};
}

KindSpec persistent_volume_row() {
  return {.info = {.version = "v1", .kind = "PersistentVolume", .plural = "persistentvolumes", .short_names = {"pv"},
                   .namespaced = false, .subresources = {"status"},
                   .columns = {name_col(),
                               col("Capacity", "string",
                                   "capacity is the description of the persistent volume's resources and capacity. "
                                   "More info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
                               col("Access Modes", "string",
                                   "accessModes contains all ways the volume can be mounted. More info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes"),
                               col("Reclaim Policy", "string",
                                   "persistentVolumeReclaimPolicy defines what happens to a persistent volume when "
                                   "released from its claim. Valid options are Retain (default for manually created "
                                   "PersistentVolumes), Delete (default for dynamically provisioned "
                                   "PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the "
                                   "volume plugin underlying this PersistentVolume. More info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming"),
                               col("Status", "string",
                                   "phase indicates if a volume is available, bound to a claim, or released by a "
                                   "claim. More info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"),
                               col("Claim", "string",
                                   "claimRef is part of a bi-directional binding between PersistentVolume and "
                                   "PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the "
                                   "authoritative bind between PV and PVC. More info: "
                                   "https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding"),
                               col("StorageClass", "string", "StorageClass of the pv"),
                               col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
                               col("Reason", "string",
                                   "reason is a brief CamelCase string that describes any failure and is meant for "
                                   "machine parsing and tidy display in the CLI."),
                               age_col(),
                               col("VolumeMode", "string",
                                   "volumeMode defines if a volume is intended to be used with a formatted filesystem "
                                   "or to remain in raw block state. Value of Filesystem is implied when not included "
                                   "in spec.",
                                   1)},
                   .printer = print_persistent_volume},
          // "name" is a legacy alias of metadata.name that Kubernetes keeps supporting.
          .fields = {{"name", {"metadata", "name"}, ""}},
          .delete_returns_object = true,
          .strategy = {.defaults = default_persistent_volume,
                       .prepare_create = prepare_persistent_volume,
                       .validate = validate_persistent_volume,
                       .validate_update = validate_persistent_volume_update,
                       .warnings = volume_write_warnings}};
}

KindSpec pod_template_row() {
  return {.info = {.version = "v1",
                   .kind = "PodTemplate",
                   .plural = "podtemplates",
                   .columns = {name_col(), col("Containers", "string", "Names of each container in the template."),
                               col("Images", "string", "Images referenced by each container in the template."),
                               col("Pod Labels", "string", "The labels for the pod template.")},
                   .printer = print_pod_template},
          .generation = std::vector<std::string>{"template"},
          .delete_returns_object = true,
          .pod_template = {"template"},
          .strategy = {.validate_create = check_create<validate_pod_template_object>,
                       .validate_update = check_update<validate_pod_template_object>}};
}

KindSpec replication_controller_row() {
  // The scale subresource's selector is spec.selector, which here is a plain label map, not a
  // LabelSelector: the registry has to render it as "k=v,..." for Scale's status.selector.
  return {.info = {.version = "v1",
                   .kind = "ReplicationController",
                   .plural = "replicationcontrollers",
                   .short_names = {"rc"},
                   .categories = {"all"},
                   .subresources = {"status", "scale"},
                   .columns = {name_col(),
                               col("Desired", "integer",
                                   "Replicas is the number of desired replicas. This is a pointer to distinguish "
                                   "between explicit zero and unspecified. Defaults to 1. More info: "
                                   "https://kubernetes.io/docs/concepts/workloads/controllers/"
                                   "replicationcontroller#what-is-a-replicationcontroller"),
                               col("Current", "integer",
                                   "Replicas is the most recently observed number of replicas. More info: "
                                   "https://kubernetes.io/docs/concepts/workloads/controllers/"
                                   "replicationcontroller#what-is-a-replicationcontroller"),
                               col("Ready", "integer", "The number of ready replicas for this replication controller."),
                               age_col(), containers_col(), images_col(),
                               col("Selector", "string",
                                   "Selector is a label query over pods that should match the Replicas count. If "
                                   "Selector is empty, it is defaulted to the labels present on the Pod template. "
                                   "Label keys and values that must match in order to be controlled by this "
                                   "replication controller, if empty defaulted to labels on Pod template. More info: "
                                   "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
                                   "#label-selectors",
                                   1)},
                   .printer = print_replication_controller},
          .storage_resource = "controllers",
          .fields = {{"status.replicas", {"status", "replicas"}, "0"}},
          .generation = std::vector<std::string>{"spec"},
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_replication_controller,
                       .prepare_create = prepare_replication_controller,
                       .validate_create = check_create<validate_replication_controller>,
                       .validate_update = check_update<validate_replication_controller>}};
}

KindSpec resource_quota_row() {
  return {.info = {.version = "v1", .kind = "ResourceQuota", .plural = "resourcequotas", .short_names = {"quota"},
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("Request", "string",
                                   "Request represents a minimum amount of cpu/memory that a container may consume."),
                               col("Limit", "string",
                                   "Limits control the maximum amount of cpu/memory that a container may use "
                                   "independent of contention on the node."),
                               age_col()},
                   .printer = print_resource_quota},
          .delete_returns_object = true,
          .strategy = {.prepare_create = prepare_resource_quota,
                       .validate = validate_resource_quota,
                       .validate_update = validate_resource_quota_update}};
}

}  // namespace

// In the order kube-apiserver's discovery lists them (by resource name).
std::vector<KindSpec> core_v1_kinds() {
  return {binding_row(),
          component_status_row(),
          config_map_row(),
          endpoints_row(),
          event_row(),
          limit_range_row(),
          namespace_row(),
          node_row(),
          persistent_volume_claim_row(),
          persistent_volume_row(),
          pod_row(),
          pod_template_row(),
          replication_controller_row(),
          resource_quota_row(),
          secret_row(),
          service_account_row(),
          service_row()};
}

}  // namespace kw::kinds
