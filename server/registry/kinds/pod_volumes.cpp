// A pod spec's volumes: ValidateVolumes and the checks of each volume source.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/api/json_access.hpp"
#include "core/api/quantity.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

constexpr const char* k_file_mode_error = "must be a number between 0 and 0777 (octal), both inclusive";

// A pod volume source, in the order validateVolumeSource looks at them.
struct PodVolumeSource {
  const char* key;
  const char* path;  // where its own causes are reported (gcePersistentDisk's are under "persistentDisk")
};
constexpr PodVolumeSource k_sources[] = {
    {"emptyDir", "emptyDir"},
    {"hostPath", "hostPath"},
    {"gitRepo", "gitRepo"},
    {"gcePersistentDisk", "persistentDisk"},
    {"awsElasticBlockStore", "awsElasticBlockStore"},
    {"secret", "secret"},
    {"nfs", "nfs"},
    {"iscsi", "iscsi"},
    {"glusterfs", "glusterfs"},
    {"flocker", "flocker"},
    {"persistentVolumeClaim", "persistentVolumeClaim"},
    {"rbd", "rbd"},
    {"cinder", "cinder"},
    {"cephfs", "cephfs"},
    {"quobyte", "quobyte"},
    {"downwardAPI", "downwardAPI"},
    {"fc", "fc"},
    {"flexVolume", "flexVolume"},
    {"configMap", "configMap"},
    {"azureFile", "azureFile"},
    {"vsphereVolume", "vsphereVolume"},
    {"photonPersistentDisk", "photonPersistentDisk"},
    {"portworxVolume", "portworxVolume"},
    {"azureDisk", "azureDisk"},
    {"storageos", "storageos"},
    {"projected", "projected"},
    {"scaleIO", "scaleIO"},
    {"csi", "csi"},
    {"ephemeral", "ephemeral"},
    {"image", "image"},
};

// The strings a source must give (Required when empty), in the order Kubernetes checks them.
struct RequiredStrings {
  const char* key;
  std::initializer_list<const char*> fields;
};
const RequiredStrings k_required_strings[] = {
    {"gitRepo", {"repository"}},
    {"gcePersistentDisk", {"pdName"}},
    {"awsElasticBlockStore", {"volumeID"}},
    {"secret", {"secretName"}},
    {"nfs", {"server", "path"}},
    {"iscsi", {"targetPortal"}},
    {"glusterfs", {"endpoints", "path"}},
    {"persistentVolumeClaim", {"claimName"}},
    {"cinder", {"volumeID"}},
    {"flexVolume", {"driver"}},
    {"configMap", {"name"}},
    {"azureFile", {"secretName", "shareName"}},
    {"vsphereVolume", {"volumePath"}},
    {"photonPersistentDisk", {"pdID"}},
    {"portworxVolume", {"volumeID"}},
    {"azureDisk", {"diskName", "diskURI"}},
    {"scaleIO", {"gateway", "system", "volumeName"}},
    {"image", {"reference"}},
};

void required_strings(Causes& causes, std::string_view key, const json& source, const std::string& path) {
  for (const auto& entry : k_required_strings)
    if (key == entry.key)
      for (const char* field : entry.fields)
        if (str(at(source, {field})).empty()) required(causes, path + "." + field);
}

// A file mode (defaultMode, an item's mode): 0 to 0777.
void file_mode(Causes& causes, const json& mode, const std::string& field) {
  if (mode.is_number_integer() && (mode.get<std::int64_t>() < 0 || mode.get<std::int64_t>() > 0777))
    invalid_value(causes, field, mode, k_file_mode_error);
}

// validateLocalNonReservedPath: relative, no "..", and not starting with "..".
void local_non_reserved_path(Causes& causes, const std::string& value, const std::string& field) {
  local_descending_path(causes, field, value);
  if (value.starts_with("..") && !value.starts_with("../"))
    invalid_value(causes, field, value, "must not start with '..'");
}

// validateKeyToPath: a secret's or config map's item.
void key_to_path(Causes& causes, const json& item, const std::string& path) {
  if (str(at(item, {"key"})).empty()) required(causes, path + ".key");
  const std::string target = str(at(item, {"path"}));
  if (target.empty()) required(causes, path + ".path");
  local_non_reserved_path(causes, target, path + ".path");
  file_mode(causes, at(item, {"mode"}), path + ".mode");
}

void key_to_paths(Causes& causes, const json& source, const std::string& path) {
  const json& items = arr(at(source, {"items"}));
  for (std::size_t i = 0; i < items.size(); ++i) key_to_path(causes, items[i], index_path(path + ".items", i));
}

// validateDownwardAPIVolumeFile: `path` is where Kubernetes reports it (the volume source, not
// the item).
void downward_api_file(Causes& causes, const json& file, const std::string& path) {
  const std::string target = str(at(file, {"path"}));
  if (target.empty()) required(causes, path + ".path");
  local_non_reserved_path(causes, target, path + ".path");
  const json& field_ref = at(file, {"fieldRef"});
  const json& resource_ref = at(file, {"resourceFieldRef"});
  if (field_ref.is_object()) {
    validate_object_field_selector(causes, field_ref, k_volume_downward_api_fields, path + ".fieldRef");
    if (resource_ref.is_object())
      invalid_value(causes, path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously");
  } else if (resource_ref.is_object()) {
    validate_resource_field_selector(causes, resource_ref, path + ".resourceFieldRef", true);
  } else {
    required(causes, path, "one of fieldRef and resourceFieldRef is required");
  }
  file_mode(causes, at(file, {"mode"}), path + ".mode");
}

// validateProjectionSources: one source each, and no path projected twice.
void projection_sources(Causes& causes, const json& projected, const std::string& path) {
  std::set<std::string> paths;
  const json& sources = arr(at(projected, {"sources"}));
  auto claim = [&](const std::string& target, const json& value) {
    if (!target.empty() && !paths.insert(target).second) invalid_value(causes, path, value, "conflicting duplicate paths");
  };
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const json& source = sources[i];
    const std::string source_path = index_path(path + ".sources", i);
    int kinds = 0;
    for (const char* kind : {"secret", "configMap"}) {
      const json& object = at(source, {kind});
      if (!object.is_object()) continue;
      ++kinds;
      const std::string object_path = source_path + "." + kind;
      if (str(at(object, {"name"})).empty()) required(causes, object_path + ".name");
      const json& items = arr(at(object, {"items"}));
      for (std::size_t j = 0; j < items.size(); ++j) {
        key_to_path(causes, items[j], index_path(object_path + ".items", j));
        claim(str(at(items[j], {"path"})), at(object, {"name"}).is_string() ? object["name"] : json(""));
      }
    }
    if (const json& downward = at(source, {"downwardAPI"}); downward.is_object()) {
      ++kinds;
      for (const json& file : arr(at(downward, {"items"}))) {
        downward_api_file(causes, file, source_path + ".downwardAPI");
        claim(str(at(file, {"path"})), at(file, {"path"}));
      }
    }
    if (const json& token = at(source, {"serviceAccountToken"}); token.is_object()) {
      ++kinds;
      const json& seconds = at(token, {"expirationSeconds"});
      const std::int64_t expiration = seconds.is_number_integer() ? seconds.get<std::int64_t>() : 0;
      const std::string token_path = source_path + ".serviceAccountToken";
      if (expiration < 10 * 60)
        invalid_value(causes, token_path + ".expirationSeconds", expiration,
                      "may not specify a duration less than 10 minutes");
      if (expiration > (std::int64_t{1} << 32))
        invalid_value(causes, token_path + ".expirationSeconds", expiration,
                      "may not specify a duration larger than 2^32 seconds");
      if (str(at(token, {"path"})).empty()) required(causes, path + ".path");
    }
    if (kinds > 1) forbidden(causes, source_path, "may not specify more than 1 volume type");
  }
}

// ObjectMeta's members (Go's field names, first letter lowered) that an ephemeral volume's claim
// template may not set: only labels and annotations.
constexpr std::pair<const char*, const char*> k_claim_template_forbidden_meta[] = {
    {"name", "name"},
    {"generateName", "generateName"},
    {"namespace", "namespace"},
    {"selfLink", "selfLink"},
    {"uid", "uID"},
    {"resourceVersion", "resourceVersion"},
    {"generation", "generation"},
    {"creationTimestamp", "creationTimestamp"},
    {"deletionTimestamp", "deletionTimestamp"},
    {"deletionGracePeriodSeconds", "deletionGracePeriodSeconds"},
    {"ownerReferences", "ownerReferences"},
    {"finalizers", "finalizers"},
    {"managedFields", "managedFields"},
};

// ValidatePersistentVolumeClaimTemplate: the template's labels and annotations, nothing else of
// its metadata, and its claim spec.
void claim_template(Causes& causes, const json& claim, const std::string& path) {
  const json& meta = at(claim, {"metadata"});
  validate_annotation_keys(causes, at(meta, {"annotations"}), path + ".metadata.annotations");
  validate_labels(causes, at(meta, {"labels"}), path + ".metadata.labels");
  auto go_zero = [](const json& value) {
    return empty_value(value) || value == "" || value == 0 || value == false;
  };
  for (const auto& [member, go_name] : k_claim_template_forbidden_meta)
    if (!go_zero(at(meta, {member})))
      forbidden(causes, path + ".metadata." + go_name, "cannot be set for an ephemeral volume");
  validate_persistent_volume_claim_spec(causes, at(claim, {"spec"}), path + ".spec");
}

}  // namespace

bool shared_volume_source_rules(Causes& causes, std::string_view key, const json& source, const std::string& path) {
  if (key == "hostPath") {
    const std::string target = str(at(source, {"path"}));
    if (target.empty()) {
      required(causes, path + ".path");
      return true;
    }
    no_backsteps(causes, path + ".path", target);
    const json& type = at(source, {"type"});
    if (type.is_string() && !one_of(str(type), {"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File",
                                                "Socket", "CharDevice", "BlockDevice"}))
      unsupported(causes, path + ".type", type,
                  {"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"});
  } else if (key == "gcePersistentDisk" || key == "awsElasticBlockStore") {
    const json& partition = at(source, {"partition"});
    if (partition.is_number_integer() && (partition.get<std::int64_t>() < 0 || partition.get<std::int64_t>() > 255))
      invalid_value(causes, path + ".partition", partition, "must be between 1 and 255, inclusive");
  } else if (key == "nfs") {
    if (!str(at(source, {"path"})).starts_with('/'))
      invalid_value(causes, path + ".path", str(at(source, {"path"})), "must be an absolute path");
  } else if (key == "flocker") {
    const std::string name = str(at(source, {"datasetName"})), uuid = str(at(source, {"datasetUUID"}));
    if (name.empty() && uuid.empty()) required(causes, path, "one of datasetName and datasetUUID is required");
    if (!name.empty() && !uuid.empty())
      invalid_value(causes, path, "resource", "datasetName and datasetUUID can not be specified simultaneously");
    if (name.find('/') != std::string::npos) invalid_value(causes, path + ".datasetName", name, "must not contain '/'");
  } else if (key == "quobyte") {
    if (str(at(source, {"registry"})).empty())
      required(causes, path + ".registry", "must be a host:port pair or multiple pairs separated by commas");
    else if (str(at(source, {"tenant"})).size() >= 65)
      required(causes, path + ".tenant", "must be a UUID and may not exceed a length of 64 characters");
    if (str(at(source, {"volume"})).empty()) required(causes, path + ".volume");
  } else if (key == "fc") {
    const json& wwns = arr(at(source, {"targetWWNs"}));
    const json& wwids = arr(at(source, {"wwids"}));
    if (wwns.empty() && wwids.empty())
      required(causes, path + ".targetWWNs", "must specify either targetWWNs or wwids, but not both");
    if (!wwns.empty() && !wwids.empty())
      invalid_value(causes, path + ".targetWWNs", wwns, "targetWWNs and wwids can not be specified simultaneously");
    if (!wwns.empty()) {
      const json& lun = at(source, {"lun"});
      if (!lun.is_number_integer())
        required(causes, path + ".lun", "lun is required if targetWWNs is specified");
      else if (lun.get<std::int64_t>() < 0 || lun.get<std::int64_t>() > 255)
        invalid_value(causes, path + ".lun", lun, "must be between 0 and 255, inclusive");
    }
  } else if (key == "flexVolume") {
    if (const json& options = at(source, {"options"}); options.is_object())
      for (const auto& [option, value] : options.items()) {
        const auto slash = option.find('/');
        const std::string domain = "." + util::to_lower(slash == std::string::npos ? option : option.substr(0, slash));
        if (domain.ends_with(".kubernetes.io") || domain.ends_with(".k8s.io"))
          invalid_value(causes, key_path(path + ".options", option), option,
                        "kubernetes.io and k8s.io namespaces are reserved");
      }
  } else if (key == "azureDisk") {
    const json& caching = at(source, {"cachingMode"});
    if (caching.is_string() && !one_of(str(caching), {"None", "ReadOnly", "ReadWrite"}))
      unsupported(causes, path + ".cachingMode", caching, {"None", "ReadOnly", "ReadWrite"});
    const json& kind = at(source, {"kind"});
    if (kind.is_string() && !one_of(str(kind), {"Dedicated", "Managed", "Shared"}))
      unsupported(causes, path + ".kind", kind, {"Dedicated", "Managed", "Shared"});
    const std::string uri = str(at(source, {"diskURI"}));
    if (kind == "Managed" && !uri.starts_with("/subscriptions/"))
      unsupported(causes, path + ".diskURI", uri,
                  {"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"});
    if (kind.is_string() && kind != "Managed" && !uri.starts_with("https://"))
      unsupported(causes, path + ".diskURI", uri,
                  {"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"});
  } else {
    return false;
  }
  return true;
}

namespace {

// What each pod volume source checks beyond the strings it requires.
void source_rules(Causes& causes, std::string_view key, const json& source, const std::string& path) {
  if (shared_volume_source_rules(causes, key, source, path)) return;
  if (key == "emptyDir") {
    const json& limit = at(source, {"sizeLimit"});
    if (auto value = api::quantity_value(limit); !limit.is_null() && value && *value < 0)
      forbidden(causes, path + ".sizeLimit", "SizeLimit field must be a valid resource quantity");
  } else if (key == "gitRepo") {
    local_descending_path(causes, path + ".directory", str(at(source, {"directory"})));
  } else if (key == "secret" || key == "configMap") {
    file_mode(causes, at(source, {"defaultMode"}), path + ".defaultMode");
    key_to_paths(causes, source, path);
  } else if (key == "iscsi") {
    const std::string iqn = str(at(source, {"iqn"}));
    if (iqn.empty())
      required(causes, path + ".iqn");
    else if (!iqn.starts_with("iqn") && !iqn.starts_with("eui") && !iqn.starts_with("naa"))
      invalid_value(causes, path + ".iqn", iqn, "must be valid format starting with iqn, eui, or naa");
    const json& lun = at(source, {"lun"});
    if (lun.is_number_integer() && (lun.get<std::int64_t>() < 0 || lun.get<std::int64_t>() > 255))
      invalid_value(causes, path + ".lun", lun, "must be between 0 and 255, inclusive");
    if ((at(source, {"chapAuthDiscovery"}) == true || at(source, {"chapAuthSession"}) == true) &&
        !at(source, {"secretRef"}).is_object())
      required(causes, path + ".secretRef");
    if (const json& initiator = at(source, {"initiatorName"}); initiator.is_string()) {
      const std::string name = str(initiator);
      if (!name.starts_with("iqn") && !name.starts_with("eui") && !name.starts_with("naa"))
        invalid_value(causes, path + ".initiatorname", name, "must be valid format starting with iqn, eui, or naa");
    }
  } else if (key == "rbd") {
    if (arr(at(source, {"monitors"})).empty()) required(causes, path + ".monitors");
    if (str(at(source, {"image"})).empty()) required(causes, path + ".image");
  } else if (key == "cinder" || key == "storageos") {
    if (key == "storageos") {
      const std::string volume = str(at(source, {"volumeName"}));
      if (volume.empty())
        required(causes, path + ".volumeName");
      else
        label_field(causes, path + ".volumeName", volume);
      if (const std::string ns = str(at(source, {"volumeNamespace"})); !ns.empty())
        label_field(causes, path + ".volumeNamespace", ns);
    }
    if (at(source, {"secretRef"}).is_object() && str(at(source, {"secretRef", "name"})).empty())
      required(causes, path + ".secretRef.name");
  } else if (key == "cephfs") {
    if (arr(at(source, {"monitors"})).empty()) required(causes, path + ".monitors");
  } else if (key == "downwardAPI") {
    file_mode(causes, at(source, {"defaultMode"}), path + ".defaultMode");
    for (const json& file : arr(at(source, {"items"}))) downward_api_file(causes, file, path);
  } else if (key == "projected") {
    file_mode(causes, at(source, {"defaultMode"}), path + ".defaultMode");
    projection_sources(causes, source, path);
  } else if (key == "csi") {
    validate_csi_driver_name(causes, path + ".driver", str(at(source, {"driver"})));
    if (const json& secret = at(source, {"nodePublishSecretRef"}); secret.is_object()) {
      const std::string name = str(at(secret, {"name"}));
      if (name.empty())
        required(causes, path + ".nodePublishSecretRef.name");
      else
        invalid_each(causes, path + ".name", name, subdomain_errors(name));
    }
  } else if (key == "ephemeral") {
    if (const json& claim = at(source, {"volumeClaimTemplate"}); claim.is_object())
      claim_template(causes, claim, path + ".volumeClaimTemplate");
    else
      required(causes, path + ".volumeClaimTemplate");
  }
}

}  // namespace

PodVolumes validate_volumes(Causes& causes, const json& volumes, const std::string& path, const json* pod_meta) {
  PodVolumes valid;
  const std::string pod_name = pod_meta ? str(at(*pod_meta, {"name"})) : "";
  // The claims the pod's ephemeral volumes create, which a claim volume may not name.
  std::set<std::string> created_claims;
  if (!pod_name.empty())
    for (const json& volume : arr(volumes))
      if (at(volume, {"ephemeral"}).is_object()) created_claims.insert(pod_name + "-" + str(at(volume, {"name"})));
  const json& list = arr(volumes);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& volume = list[i];
    const std::string volume_path = index_path(path, i);
    const std::string name = str(at(volume, {"name"}));
    Causes own = json::array();
    int types = 0;
    for (const auto& source : k_sources) {
      const json& value = at(volume, {source.key});
      if (value.is_null()) continue;
      const std::string source_path = volume_path + "." + source.path;
      if (types++ > 0) {
        forbidden(own, volume_path + "." + source.key, "may not specify more than 1 volume type");
        continue;
      }
      required_strings(own, source.key, value, source_path);
      source_rules(own, source.key, value, source_path);
      if (std::string_view(source.key) == "iscsi" && at(value, {"initiatorName"}).is_string() &&
          name.size() + 1 + str(at(value, {"targetPortal"})).size() > 64)
        invalid_value(own, volume_path + ".name", name,
                      "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if "
                      "iscsi.initiatorName is specified.");
      if (std::string_view(source.key) == "ephemeral" && !pod_name.empty() && !name.empty()) {
        const std::string claim = pod_name + "-" + name;
        for (const auto& message : subdomain_errors(claim))
          invalid_value(own, volume_path + ".name", name, "PVC name " + util::go_quote(claim) + ": " + message);
      }
    }
    if (types == 0) required(own, volume_path, "must specify a volume type");
    if (name.empty())
      required(own, volume_path + ".name");
    else
      label_field(own, volume_path + ".name", name);
    if (valid.contains(name)) duplicate(own, volume_path + ".name", name);
    if (own.empty()) valid.emplace(name, &volume);
    for (auto& cause : own) causes.push_back(std::move(cause));
    const std::string claim = str(at(volume, {"persistentVolumeClaim", "claimName"}));
    if (!claim.empty() && created_claims.contains(claim))
      invalid_value(causes, volume_path + ".persistentVolumeClaim.claimName", claim,
                    "must not reference a PVC that gets created for an ephemeral volume");
  }
  return valid;
}

}  // namespace kw::kinds
