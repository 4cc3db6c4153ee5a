// storage.k8s.io/v1: CSIDriver, CSINode, CSIStorageCapacity, StorageClass, VolumeAttachment.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// ---- StorageClass ----------------------------------------------------------------------------

constexpr std::int64_t k_max_parameters = 512;
constexpr std::int64_t k_max_parameters_size = 256 * 1024;

bool is_default_class(const json& object) {
  const auto& annotations = at(object, {"metadata", "annotations"});
  return str(at(annotations, {"storageclass.kubernetes.io/is-default-class"})) == "true" ||
         str(at(annotations, {"storageclass.beta.kubernetes.io/is-default-class"})) == "true";
}

Cells print_storage_class(const json& sc, TimePoint now) {
  std::string name = name_of(sc);
  if (is_default_class(sc)) name += " (default)";
  const auto& reclaim = at(sc, {"reclaimPolicy"});
  const auto& binding = at(sc, {"volumeBindingMode"});
  const auto& expansion = at(sc, {"allowVolumeExpansion"});
  return {name,
          str(at(sc, {"provisioner"})),
          reclaim.is_string() ? str(reclaim) : "Delete",
          binding.is_string() ? str(binding) : "Immediate",
          expansion.is_boolean() && expansion.get<bool>(),
          age_of(sc, now)};
}

// SetDefaults_StorageClass.
void default_storage_class(json& sc) {
  default_value(sc, "reclaimPolicy", "Delete");
  default_value(sc, "volumeBindingMode", "Immediate");
}

// core validation's ValidateTopologySelectorTerm, plus StorageClass's check that no two terms
// are the same (an empty term counts as a repeat, as Kubernetes' comparison has it).
void validate_allowed_topologies(Causes& causes, const json& terms) {
  using Term = std::map<std::string, std::set<std::string>>;
  std::vector<Term> seen;
  for (std::size_t i = 0; i < arr(terms).size(); ++i) {
    const std::string term_path = "allowedTopologies[" + std::to_string(i) + "]";
    Term term;
    const auto& expressions = arr(at(terms[i], {"matchLabelExpressions"}));
    for (std::size_t e = 0; e < expressions.size(); ++e) {
      const std::string expr_path = term_path + ".matchLabelExpressions[" + std::to_string(e) + "]";
      const auto& values = arr(at(expressions[e], {"values"}));
      if (values.empty()) required(causes, expr_path + ".values");
      std::set<std::string> value_set;
      for (std::size_t v = 0; v < values.size(); ++v)
        if (!value_set.insert(str(values[v])).second)
          duplicate(causes, expr_path + ".values[" + std::to_string(v) + "]", values[v]);
      const auto key = str(at(expressions[e], {"key"}));
      invalid_each(causes, expr_path + ".key", key, qualified_name_errors(key));
      if (term.contains(key)) duplicate(causes, expr_path + ".key", key);
      term[key] = std::move(value_set);
    }
    if (term.empty() || std::find(seen.begin(), seen.end(), term) != seen.end())
      duplicate(causes, term_path + ".matchLabelExpressions", "");
    seen.push_back(std::move(term));
  }
}

void validate_storage_class(const json& sc, Causes& causes) {
  const auto provisioner = str(at(sc, {"provisioner"}));
  if (provisioner.empty())
    required(causes, "provisioner");
  else
    invalid_each(causes, "provisioner", util::to_lower(provisioner),
                 qualified_name_errors(util::to_lower(provisioner)));

  const auto& parameters = at(sc, {"parameters"});
  if (parameters.is_object()) {
    if (static_cast<std::int64_t>(parameters.size()) > k_max_parameters) {
      too_long(causes, "parameters", k_max_parameters);
    } else {
      std::int64_t size = 0;
      for (const auto& [key, value] : parameters.items()) {
        if (key.empty()) invalid_value(causes, "parameters", key, "field can not be empty.");
        size += static_cast<std::int64_t>(key.size() + str(value).size());
      }
      if (size > k_max_parameters_size) too_long(causes, "parameters", k_max_parameters_size);
    }
  }

  const auto& reclaim = at(sc, {"reclaimPolicy"});
  if (!str(reclaim).empty() && reclaim != "Delete" && reclaim != "Retain")
    unsupported(causes, "reclaimPolicy", reclaim, {"Delete", "Retain"});

  const auto& binding = at(sc, {"volumeBindingMode"});
  if (binding.is_null())
    required(causes, "volumeBindingMode");
  else if (binding != "Immediate" && binding != "WaitForFirstConsumer")
    unsupported(causes, "volumeBindingMode", binding, {"Immediate", "WaitForFirstConsumer"});

  validate_allowed_topologies(causes, at(sc, {"allowedTopologies"}));
}

void validate_storage_class_update(const json& sc, const json& old, Causes& causes) {
  const auto& parameters = at(sc, {"parameters"});
  const auto& old_parameters = at(old, {"parameters"});
  // An empty map and no map are the same to Kubernetes.
  if ((parameters.is_object() && !parameters.empty() ? parameters : json()) !=
      (old_parameters.is_object() && !old_parameters.empty() ? old_parameters : json()))
    forbidden(causes, "parameters", "updates to parameters are forbidden.");
  if (str(at(sc, {"provisioner"})) != str(at(old, {"provisioner"})))
    forbidden(causes, "provisioner", "updates to provisioner are forbidden.");
  if (str(at(sc, {"reclaimPolicy"})) != str(at(old, {"reclaimPolicy"})))
    forbidden(causes, "reclaimPolicy", "updates to reclaimPolicy are forbidden.");
  immutable(causes, "volumeBindingMode", at(sc, {"volumeBindingMode"}), at(old, {"volumeBindingMode"}));
}

KindSpec storage_class_row() {
  return {.info = {.group = "storage.k8s.io",
                   .version = "v1",
                   .kind = "StorageClass",
                   .plural = "storageclasses",
                   .short_names = {"sc"},
                   .namespaced = false,
                   .columns = {name_col(),
                               col("Provisioner", "string", "provisioner indicates the type of the provisioner."),
                               col("ReclaimPolicy", "string",
                                   "reclaimPolicy controls the reclaimPolicy for dynamically provisioned "
                                   "PersistentVolumes of this storage class. Defaults to Delete."),
                               col("VolumeBindingMode", "string",
                                   "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and "
                                   "bound.  When unset, VolumeBindingImmediate is used. This field is only honored by "
                                   "servers that enable the VolumeScheduling feature."),
                               col("AllowVolumeExpansion", "string",
                                   "allowVolumeExpansion shows whether the storage class allow volume expand."),
                               age_col()},
                   .printer = print_storage_class},
          .delete_returns_object = true,
          .strategy = {.defaults = default_storage_class,
                       .validate = validate_storage_class,
                       .validate_update = validate_storage_class_update}};
}

// ---- VolumeAttachment ------------------------------------------------------------------------

constexpr std::int64_t k_max_attachment_metadata_size = 256 * 1024;
constexpr std::size_t k_max_volume_error_message = 1024;

Cells print_volume_attachment(const json& va, TimePoint now) {
  const auto& attached = at(va, {"status", "attached"});
  return {name_of(va),
          str(at(va, {"spec", "attacher"})),
          str(at(va, {"spec", "source", "persistentVolumeName"})),
          str(at(va, {"spec", "nodeName"})),
          attached.is_boolean() && attached.get<bool>(),
          age_of(va, now)};
}

// PrepareForCreate: no status yet. Its `attached` is always written, as Kubernetes writes it.
void prepare_volume_attachment(json& va) { va["status"] = {{"attached", false}}; }

void validate_volume_error(Causes& causes, const json& error, const std::string& path) {
  if (!error.is_object()) return;
  // Kubernetes quotes the metadata limit here, not the message limit.
  if (str(at(error, {"message"})).size() > k_max_volume_error_message)
    too_long(causes, path + ".message", k_max_attachment_metadata_size);
  const auto& code = at(error, {"errorCode"});
  if (code.is_number() && num(code) < 0)
    invalid_value(causes, path + ".errorCode", code, "must be between 0 and 2147483647, inclusive");
}

void validate_volume_attachment(const json& va, Causes& causes) {
  const auto& spec = at(va, {"spec"});
  const auto attacher = str(at(spec, {"attacher"}));
  if (attacher.empty()) required(causes, "spec.attacher");

  const auto& source = at(spec, {"source"});
  const auto& pv = at(source, {"persistentVolumeName"});
  const bool inline_spec = at(source, {"inlineVolumeSpec"}).is_object();
  constexpr const char* k_one_source = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";
  if (!inline_spec && pv.is_null())
    required(causes, "spec.source", k_one_source);
  else if (inline_spec && !pv.is_null())
    forbidden(causes, "spec.source", k_one_source);
  else if (!pv.is_null() && str(pv).empty())
    required(causes, "spec.source.persistentVolumeName", "must specify non empty persistentVolumeName");

  const auto node = str(at(spec, {"nodeName"}));
  invalid_each(causes, "spec.nodeName", node, subdomain_errors(node));

  const auto& status = at(va, {"status"});
  std::int64_t metadata_size = 0;
  if (const auto& metadata = at(status, {"attachmentMetadata"}); metadata.is_object())
    for (const auto& [key, value] : metadata.items())
      metadata_size += static_cast<std::int64_t>(key.size() + str(value).size());
  if (metadata_size > k_max_attachment_metadata_size)
    too_long(causes, "status.attachmentMetadata", k_max_attachment_metadata_size);
  validate_volume_error(causes, at(status, {"attachError"}), "status.attachError");
  validate_volume_error(causes, at(status, {"detachError"}), "status.detachError");

  // The stricter checks of storage.k8s.io/v1 (ValidateVolumeAttachmentV1).
  validate_csi_driver_name(causes, "spec.attacher", attacher);
  if (pv.is_string()) invalid_each(causes, "spec.source.persistentVolumeName", pv, subdomain_errors(str(pv)));
}

void validate_volume_attachment_update(const json& va, const json& old, Causes& causes) {
  immutable(causes, "spec", at(va, {"spec"}), at(old, {"spec"}));
}

KindSpec volume_attachment_row() {
  return {
      .info = {.group = "storage.k8s.io",
               .version = "v1",
               .kind = "VolumeAttachment",
               .plural = "volumeattachments",
               .namespaced = false,
               .subresources = {"status"},
               .columns = {name_col(),
                           col("Attacher", "string",
                               "attacher indicates the name of the volume driver that MUST handle this request. This "
                               "is the name returned by GetPluginName().",
                               0, "name"),
                           col("PV", "string",
                               "persistentVolumeName represents the name of the persistent volume to attach."),
                           col("Node", "string", "nodeName represents the node that the volume should be attached to."),
                           col("Attached", "boolean",
                               "attached indicates the volume is successfully attached. This field must only be set by "
                               "the entity completing the attach operation, i.e. the external-attacher."),
                           age_col()},
               .printer = print_volume_attachment},
      .delete_returns_object = true,
          .status_keeps_meta = status_meta::k_reset_all,
      .strategy = {.prepare_create = prepare_volume_attachment,
                   .validate = validate_volume_attachment,
                   .validate_update = validate_volume_attachment_update}};
}

// ---- CSIDriver -------------------------------------------------------------------------------

bool flag(const json& value, bool unset) { return value.is_boolean() ? value.get<bool>() : unset; }

Cells print_csi_driver(const json& driver, TimePoint now) {
  const auto& spec = at(driver, {"spec"});
  std::vector<std::string> modes;
  for (const auto& mode : arr(at(spec, {"volumeLifecycleModes"}))) modes.push_back(str(mode));
  std::string token_requests = "<unset>";
  if (const auto& requests = at(spec, {"tokenRequests"}); requests.is_array() && !requests.empty()) {
    std::vector<std::string> audiences;
    for (const auto& request : requests) audiences.push_back(str(at(request, {"audience"})));
    token_requests = join(audiences, ",");
  }
  return {name_of(driver),
          flag(at(spec, {"attachRequired"}), true),
          flag(at(spec, {"podInfoOnMount"}), false),
          flag(at(spec, {"storageCapacity"}), false),
          token_requests,
          flag(at(spec, {"requiresRepublish"}), false),
          modes.empty() ? std::string("<none>") : join(modes, ","),
          age_of(driver, now)};
}

// SetDefaults_CSIDriver.
void default_csi_driver(json& driver) {
  auto& spec = object_member(driver, "spec");
  default_value(spec, "attachRequired", true);
  default_value(spec, "podInfoOnMount", false);
  default_value(spec, "storageCapacity", false);
  default_value(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
  if (!spec.contains("volumeLifecycleModes") || !spec["volumeLifecycleModes"].is_array() ||
      spec["volumeLifecycleModes"].empty())
    spec["volumeLifecycleModes"] = json::array({"Persistent"});
  default_value(spec, "requiresRepublish", false);
  default_value(spec, "seLinuxMount", false);
}

void validate_token_requests(Causes& causes, const json& requests) {
  std::set<std::string> audiences;
  for (std::size_t i = 0; i < arr(requests).size(); ++i) {
    const auto& request = requests[i];
    const std::string path = "spec.tokenRequests[" + std::to_string(i) + "]";
    const auto audience = str(at(request, {"audience"}));
    if (!audiences.insert(audience).second) {
      duplicate(causes, path + ".audience", audience);
      continue;
    }
    const auto& expiration = at(request, {"expirationSeconds"});
    if (!expiration.is_number()) continue;
    if (num(expiration) < 600)
      invalid_value(causes, path + ".expirationSeconds", expiration, "may not specify a duration less than 10 minutes");
    if (num(expiration) > (std::int64_t{1} << 32))
      invalid_value(causes, path + ".expirationSeconds", expiration,
                    "may not specify a duration larger than 2^32 seconds");
  }
}

void validate_csi_driver(const json& driver, Causes& causes) {
  const auto& spec = at(driver, {"spec"});
  // "attachedRequired" is how Kubernetes spells this field's path in its errors.
  if (!at(spec, {"attachRequired"}).is_boolean()) required(causes, "spec.attachedRequired");
  if (!at(spec, {"podInfoOnMount"}).is_boolean()) required(causes, "spec.podInfoOnMount");
  if (!at(spec, {"storageCapacity"}).is_boolean()) required(causes, "spec.storageCapacity");
  if (const auto& policy = at(spec, {"fsGroupPolicy"});
      !policy.is_null() && policy != "File" && policy != "None" && policy != "ReadWriteOnceWithFSType")
    unsupported(causes, "spec.fsGroupPolicy", policy, {"File", "None", "ReadWriteOnceWithFSType"});
  validate_token_requests(causes, at(spec, {"tokenRequests"}));
  for (const auto& mode : arr(at(spec, {"volumeLifecycleModes"})))
    if (mode != "Persistent" && mode != "Ephemeral")
      unsupported(causes, "spec.volumeLifecycleModes", mode, {"Persistent", "Ephemeral"});
  if (!at(spec, {"seLinuxMount"}).is_boolean()) required(causes, "spec.seLinuxMount");
  if (const auto& period = at(spec, {"nodeAllocatableUpdatePeriodSeconds"}); period.is_number() && num(period) < 10)
    invalid_value(causes, "spec.nodeAllocatableUpdatePeriodSeconds", period,
                  "must be greater than or equal to 10 seconds");
  if (const auto& in_secrets = at(spec, {"serviceAccountTokenInSecrets"});
      in_secrets.is_boolean() && arr(at(spec, {"tokenRequests"})).empty())
    invalid_value(causes, "spec.serviceAccountTokenInSecrets", in_secrets,
                  "serviceAccountTokenInSecrets is set but no tokenRequests are specified");
}

void validate_csi_driver_update(const json& driver, const json& old, Causes& causes) {
  immutable(causes, "spec.attachedRequired", at(driver, {"spec", "attachRequired"}),
            at(old, {"spec", "attachRequired"}));
  immutable(causes, "spec.volumeLifecycleModes", at(driver, {"spec", "volumeLifecycleModes"}),
            at(old, {"spec", "volumeLifecycleModes"}));
}

KindSpec csi_driver_row() {
  return {
      .info =
          {.group = "storage.k8s.io",
           .version = "v1",
           .kind = "CSIDriver",
           .plural = "csidrivers",
           .namespaced = false,
           .columns =
               {name_col(),
                col("AttachRequired", "boolean",
                    "attachRequired indicates this CSI volume driver requires an attach operation (because it "
                    "implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach "
                    "controller should call the attach volume interface which checks the volumeattachment status and "
                    "waits until the volume is attached before proceeding to mounting. The CSI external-attacher "
                    "coordinates with CSI volume driver and updates the volumeattachment status when the attach "
                    "operation is complete. If the value is specified to false, the attach operation will be skipped. "
                    "Otherwise the attach operation will be called.\n\nThis field is immutable."),
                col("PodInfoOnMount", "boolean",
                    "podInfoOnMount indicates this CSI volume driver requires additional pod information (like "
                    "podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information "
                    "will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part "
                    "of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI "
                    "NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the "
                    "information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if "
                    "podInfoOnMount is set to true. This list might grow, but the prefix will be used. "
                    "\"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace "
                    "\"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the "
                    "volume is an ephemeral inline volume\n                                defined by a "
                    "CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in "
                    "Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and "
                    "\"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this "
                    "field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when "
                    "deployed on such a cluster and the deployment determines which mode that is, for example via a "
                    "command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is "
                    "mutable."),
                col("StorageCapacity", "boolean",
                    "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage "
                    "capacity that the driver deployment will report by creating CSIStorageCapacity objects with "
                    "capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a "
                    "driver. In that case, provisioning new volumes with late binding will pause until the driver "
                    "deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver "
                    "can be deployed with the field unset or false and it can be flipped later when storage capacity "
                    "information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is "
                    "mutable."),
                col("TokenRequests", "string",
                    "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume "
                    "for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI "
                    "NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: "
                    "\"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n   "
                    " \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in "
                    "each TokenRequest should be different and at most one token is empty string. To receive a new "
                    "token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically."),
                col("RequiresRepublish", "boolean",
                    "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to "
                    "reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a "
                    "successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only "
                    "update the contents of the volume. New mount points will not be seen by a running container."),
                col("Modes", "string",
                    "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if "
                    "the list is empty is \"Persistent\", which is the usage defined by the CSI specification and "
                    "implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In "
                    "this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their "
                    "lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is "
                    "only going to get a NodePublishVolume call for such a volume.\n\nFor more information about "
                    "implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A "
                    "driver can support one or more of these modes and more modes may be added in the future.\n\nThis "
                    "field is beta. This field is immutable."),
                age_col()},
           .printer = print_csi_driver},
      .delete_returns_object = true,
          .strategy = {.defaults = default_csi_driver,
                   .validate = validate_csi_driver,
                   .validate_update = validate_csi_driver_update}};
}

// ---- CSINode ---------------------------------------------------------------------------------

constexpr std::size_t k_max_node_id = 192;

Cells print_csi_node(const json& node, TimePoint now) {
  return {name_of(node), size_of(at(node, {"spec", "drivers"})), age_of(node, now)};
}

void validate_csi_node(const json& node, Causes& causes) {
  const auto& drivers = arr(at(node, {"spec", "drivers"}));
  std::set<std::string> names;
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    const auto& driver = drivers[i];
    const std::string path = "spec.drivers[" + std::to_string(i) + "]";
    const auto name = str(at(driver, {"name"}));
    validate_csi_driver_name(causes, path + ".name", name);
    const auto node_id = str(at(driver, {"nodeID"}));
    if (node_id.empty()) required(causes, path + ".nodeID");
    if (node_id.size() > k_max_node_id)
      invalid_value(causes, path + ".nodeID", node_id,
                    "must be " + std::to_string(k_max_node_id) + " characters or less");
    non_negative(causes, path + ".allocatable.count", at(driver, {"allocatable", "count"}));
    if (!names.insert(name).second) duplicate(causes, path + ".name", name);
    // Kubernetes reports topology key errors on the driver, not on the key.
    std::set<std::string> keys;
    for (const auto& key_json : arr(at(driver, {"topologyKeys"}))) {
      const auto key = str(key_json);
      if (key.empty()) required(causes, path);
      if (!keys.insert(key).second) duplicate(causes, path, key);
      invalid_each(causes, path, key, qualified_name_errors(key));
    }
  }
}

// A registered driver without its allocatable count; an empty key list counts as none.
json identity_of(const json& driver) {
  json out = driver.is_object() ? driver : json::object();
  out.erase("allocatable");
  if (auto keys = out.find("topologyKeys"); keys != out.end() && (keys->is_null() || keys->empty())) out.erase(keys);
  return out;
}

// A driver already registered keeps its identity; only its allocatable count may change.
void validate_csi_node_update(const json& node, const json& old, Causes& causes) {
  for (const auto& before : arr(at(old, {"spec", "drivers"})))
    for (const auto& now : arr(at(node, {"spec", "drivers"}))) {
      if (str(at(now, {"name"})) != str(at(before, {"name"}))) continue;
      immutable(causes, "spec.drivers", identity_of(now), identity_of(before));
    }
}

KindSpec csi_node_row() {
  return {.info = {.group = "storage.k8s.io",
                   .version = "v1",
                   .kind = "CSINode",
                   .plural = "csinodes",
                   .namespaced = false,
                   .columns = {name_col(),
                               col("Drivers", "integer",
                                   "Drivers indicates the number of CSI drivers registered on the node"),
                               age_col()},
                   .printer = print_csi_node},
          .delete_returns_object = true,
          .strategy = {.validate = validate_csi_node, .validate_update = validate_csi_node_update}};
}

// ---- CSIStorageCapacity (also served as storage.k8s.io/v1beta1) -------------------------------

Cells print_csi_storage_capacity(const json& capacity, TimePoint) {
  const auto& value = at(capacity, {"capacity"});
  return {name_of(capacity), str(at(capacity, {"storageClassName"})), value.is_string() ? str(value) : "<unset>"};
}

void validate_csi_storage_capacity(const json& capacity, Causes& causes) {
  validate_label_selector(causes, at(capacity, {"nodeTopology"}), "nodeTopology");
  const auto class_name = str(at(capacity, {"storageClassName"}));
  invalid_each(causes, "storageClassName", class_name, subdomain_errors(class_name));
  nonnegative_quantity(causes, "capacity", at(capacity, {"capacity"}));
}

void validate_csi_storage_capacity_update(const json& capacity, const json& old, Causes& causes) {
  immutable(causes, "nodeTopology", at(capacity, {"nodeTopology"}), at(old, {"nodeTopology"}));
  immutable(causes, "storageClassName", at(capacity, {"storageClassName"}), at(old, {"storageClassName"}));
}

}  // namespace

// Shared with storage_v1beta1.cpp, which serves the same kind from the same storage.
KindSpec csi_storage_capacity_row(std::string version) {
  return {
      .info =
          {.group = "storage.k8s.io",
           .version = std::move(version),
           .kind = "CSIStorageCapacity",
           .plural = "csistoragecapacities",
           .columns =
               {name_col(),
                col("StorageClassName", "string",
                    "storageClassName represents the name of the StorageClass that the reported capacity applies to. "
                    "It must meet the same requirements as the name of a StorageClass object (non-empty, DNS "
                    "subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should "
                    "be removed by its creator. This field is immutable."),
                col("Capacity", "string",
                    "capacity is the value reported by the CSI driver in its GetCapacityResponse for a "
                    "GetCapacityRequest with topology and parameters that match the previous fields.\n\nThe semantic "
                    "is currently (CSI spec 1.2) defined as: The available capacity, in bytes, of the storage that can "
                    "be used to provision volumes. If not set, that information is currently unavailable.")},
           .printer = print_csi_storage_capacity},
      .strategy = {.validate = validate_csi_storage_capacity, .validate_update = validate_csi_storage_capacity_update}};
}

std::vector<KindSpec> storage_v1_kinds() {
  return {csi_driver_row(), csi_node_row(), csi_storage_capacity_row("v1"), storage_class_row(),
          volume_attachment_row()};
}

}  // namespace kw::kinds
