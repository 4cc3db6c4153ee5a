// The describers of storage and of a few kinds whose text is a short list of fields:
// PersistentVolume, PersistentVolumeClaim, StorageClass, PriorityClass and
// ReplicationController.
#include <algorithm>

#include "cli/print/describe.hpp"
#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

// The access modes in kubectl's short form, in its fixed order ("RWO,ROX").
std::string access_modes_text(const json& modes) {
  const std::pair<const char*, const char*> k_modes[] = {
      {"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}};
  std::string out;
  for (const auto& [mode, short_name] : k_modes)
    if (std::ranges::any_of(arr(modes), [&](const json& m) { return str(m) == mode; }))
      out += (out.empty() ? "" : ",") + std::string(short_name);
  return out;
}

// A volume's class: spec.storageClassName, else the beta annotation kubectl still reads.
std::string storage_class(const json& object) {
  if (const json& name = at(object, {"spec", "storageClassName"}); name.is_string()) return str(name);
  return str(at(object, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"}));
}

std::string status_text(const json& object, const std::string& phase, TimePoint now) {
  if (const json& deleted = at(object, {"metadata", "deletionTimestamp"}); !deleted.is_null())
    return "Terminating (lasts " + api::print::since(api::print::time_of(deleted), now) + ")";
  return phase;
}

void write_node_affinity(Writer& w, const json& affinity) {
  w.write(0, "Node Affinity:\t");
  const json& required = at(affinity, {"required"});
  if (!required.is_object()) return w.write(0, "<none>\n");
  w.write(0, "\n");
  w.write(1, "Required Terms:\t");
  const json& terms = arr(at(required, {"nodeSelectorTerms"}));
  if (terms.empty()) return w.write(0, "<none>\n");
  w.write(0, "\n");
  for (std::size_t i = 0; i < terms.size(); ++i) {
    w.write(2, "Term " + std::to_string(i) + ":\t");
    const json& expressions = arr(at(terms[i], {"matchExpressions"}));
    if (expressions.empty()) w.write(0, "<none>\n");
    for (std::size_t j = 0; j < expressions.size(); ++j) {
      if (j != 0) w.write(2, "\t");
      std::string op = str(at(expressions[j], {"operator"}));
      std::ranges::transform(op, op.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      std::string text = str(at(expressions[j], {"key"})) + " " + op;
      if (const json& values = arr(at(expressions[j], {"values"})); !values.empty()) {
        std::string list;
        for (const auto& value : values) list += (list.empty() ? "" : ", ") + str(value);
        text += " [" + list + "]";
      }
      w.write(0, text + "\n");
    }
  }
}

// A PersistentVolume's source, for the kinds kw describes in full; others as <unknown>.
void write_volume_source(Writer& w, const json& spec) {
  if (const json& host = at(spec, {"hostPath"}); host.is_object()) {
    w.write(2, "Type:\tHostPath (bare host directory volume)\n    Path:\t" + str(at(host, {"path"})) +
                   "\n    HostPathType:\t" + str(at(host, {"type"})) + "\n");
  } else if (const json& nfs = at(spec, {"nfs"}); nfs.is_object()) {
    w.write(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t" + str(at(nfs, {"server"})) +
                   "\n    Path:\t" + str(at(nfs, {"path"})) + "\n    ReadOnly:\t" +
                   (at(nfs, {"readOnly"}) == true ? "true" : "false") + "\n");
  } else if (const json& local = at(spec, {"local"}); local.is_object()) {
    w.write(2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n    Path:\t" +
                   str(at(local, {"path"})) + "\n");
  } else if (const json& csi = at(spec, {"csi"}); csi.is_object()) {
    w.write(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n    Driver:\t" +
                   str(at(csi, {"driver"})) + "\n    FSType:\t" + str(at(csi, {"fsType"})) + "\n    VolumeHandle:\t" +
                   str(at(csi, {"volumeHandle"})) + "\n    ReadOnly:\t" +
                   (at(csi, {"readOnly"}) == true ? "true" : "false") + "\n");
    write_volume_attributes(w, at(csi, {"volumeAttributes"}));
  } else {
    w.write(1, "<unknown>\n");
  }
}

void describe_persistent_volume(Writer& w, const json& pv, const Related& related, TimePoint now) {
  const json& spec = at(pv, {"spec"});
  write_name(w, pv, false);
  write_metadata(w, pv);
  w.write(0, "Finalizers:\t" + go_list(at(pv, {"metadata", "finalizers"})) + "\n");
  w.write(0, "StorageClass:\t" + storage_class(pv) + "\n");
  w.write(0, "Status:\t" + status_text(pv, str(at(pv, {"status", "phase"})), now) + "\n");
  const json& claim = at(spec, {"claimRef"});
  w.write(
      0, "Claim:\t" + (claim.is_object() ? str(at(claim, {"namespace"})) + "/" + str(at(claim, {"name"})) : "") + "\n");
  w.write(0, "Reclaim Policy:\t" + str(at(spec, {"persistentVolumeReclaimPolicy"})) + "\n");
  w.write(0, "Access Modes:\t" + access_modes_text(at(spec, {"accessModes"})) + "\n");
  if (const std::string mode = str(at(spec, {"volumeMode"})); !mode.empty()) w.write(0, "VolumeMode:\t" + mode + "\n");
  const std::string capacity = value_text(at(spec, {"capacity", "storage"}));
  w.write(0, "Capacity:\t" + (capacity.empty() ? "0" : capacity) + "\n");
  write_node_affinity(w, at(spec, {"nodeAffinity"}));
  w.write(0, "Message:\t" + str(at(pv, {"status", "message"})) + "\n");
  w.write(0, "Source:\n");
  write_volume_source(w, spec);
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

void write_claim(Writer& w, const json& pvc, bool whole, TimePoint now) {
  const json& spec = at(pvc, {"spec"});
  if (whole) write_name(w, pvc);
  w.write(0, "StorageClass:\t" + storage_class(pvc) + "\n");
  if (whole) w.write(0, "Status:\t" + status_text(pvc, str(at(pvc, {"status", "phase"})), now) + "\n");
  const std::string volume = str(at(spec, {"volumeName"}));
  w.write(0, "Volume:\t" + volume + "\n");
  write_metadata(w, pvc);
  if (whole) w.write(0, "Finalizers:\t" + go_list(at(pvc, {"metadata", "finalizers"})) + "\n");
  // Capacity and access modes are the bound volume's: none before the claim is bound.
  std::string capacity, modes;
  if (!volume.empty()) {
    modes = access_modes_text(at(pvc, {"status", "accessModes"}));
    capacity = value_text(at(pvc, {"status", "capacity", "storage"}));
    if (capacity.empty()) capacity = "0";
  }
  w.write(0, "Capacity:\t" + capacity + "\n");
  w.write(0, "Access Modes:\t" + modes + "\n");
  if (const std::string mode = str(at(spec, {"volumeMode"})); !mode.empty()) w.write(0, "VolumeMode:\t" + mode + "\n");
  if (const json& source = at(spec, {"dataSource"}); source.is_object()) {
    w.write(0, "DataSource:\n");
    if (at(source, {"apiGroup"}).is_string()) w.write(1, "APIGroup:\t" + str(at(source, {"apiGroup"})) + "\n");
    w.write(1, "Kind:\t" + str(at(source, {"kind"})) + "\n");
    w.write(1, "Name:\t" + str(at(source, {"name"})) + "\n");
  }
}

namespace {

void describe_claim(Writer& w, const json& pvc, const Related& related, TimePoint now) {
  write_claim(w, pvc, true, now);
  // The pods that mount the claim, by name.
  std::vector<std::string> users;
  const std::string name = str(at(pvc, {"metadata", "name"}));
  for (const auto& pod : related.pods)
    for (const auto& pod_volume : arr(at(pod, {"spec", "volumes"})))
      if (str(at(pod_volume, {"persistentVolumeClaim", "claimName"})) == name)
        users.push_back(str(at(pod, {"metadata", "name"})));
  std::ranges::sort(users);
  w.write(0, "Used By:\t");
  if (users.empty()) w.write(0, "<none>\n");
  for (std::size_t i = 0; i < users.size(); ++i) w.write(0, (i == 0 ? "" : "\t") + users[i] + "\n");
  if (const json& conditions = arr(at(pvc, {"status", "conditions"})); !conditions.empty()) {
    w.write(0, "Conditions:\n");
    w.write(1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n");
    w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
    for (const auto& c : conditions)
      w.write(1, str(at(c, {"type"})) + " \t" + str(at(c, {"status"})) + " \t" + rfc1123z(at(c, {"lastProbeTime"})) +
                     " \t" + rfc1123z(at(c, {"lastTransitionTime"})) + " \t" + str(at(c, {"reason"})) + " \t" +
                     str(at(c, {"message"})) + "\n");
  }
  if (related.events) write_events(w, *related.events, now);
}

void describe_storage_class(Writer& w, const json& sc, const Related& related, TimePoint now) {
  write_name(w, sc, false);
  const json& annotations = at(sc, {"metadata", "annotations"});
  const bool is_default = str(at(annotations, {"storageclass.kubernetes.io/is-default-class"})) == "true" ||
                          str(at(annotations, {"storageclass.beta.kubernetes.io/is-default-class"})) == "true";
  w.write(0, std::string("IsDefaultClass:\t") + (is_default ? "Yes" : "No") + "\n");
  w.write(0, "Annotations:\t" + api::print::format_labels(annotations) + "\n");
  w.write(0, "Provisioner:\t" + str(at(sc, {"provisioner"})) + "\n");
  w.write(0, "Parameters:\t" + api::print::format_labels(at(sc, {"parameters"})) + "\n");
  const json& expansion = at(sc, {"allowVolumeExpansion"});
  w.write(0, std::string("AllowVolumeExpansion:\t") +
                 (expansion.is_boolean() ? (expansion == true ? "True" : "False") : "<unset>") + "\n");
  if (arr(at(sc, {"mountOptions"})).empty()) {
    w.write(0, "MountOptions:\t<none>\n");
  } else {
    w.write(0, "MountOptions:\n");
    for (const auto& option : arr(at(sc, {"mountOptions"}))) w.write(1, str(option) + "\n");
  }
  if (const std::string policy = str(at(sc, {"reclaimPolicy"})); !policy.empty())
    w.write(0, "ReclaimPolicy:\t" + policy + "\n");
  if (const std::string mode = str(at(sc, {"volumeBindingMode"})); !mode.empty())
    w.write(0, "VolumeBindingMode:\t" + mode + "\n");
  if (const json& topologies = at(sc, {"allowedTopologies"}); topologies.is_array()) {
    w.write(0, "AllowedTopologies:\t");
    if (topologies.empty())
      w.write(0, "<none>\n");
    else
      w.write(0, "\n");
    for (std::size_t i = 0; i < topologies.size(); ++i) {
      w.write(1, "Term " + std::to_string(i) + ":\t");
      const json& expressions = arr(at(topologies[i], {"matchLabelExpressions"}));
      if (expressions.empty()) w.write(0, "<none>\n");
      for (std::size_t j = 0; j < expressions.size(); ++j) {
        if (j != 0) w.write(1, "\t");
        std::string values;
        for (const auto& value : arr(at(expressions[j], {"values"})))
          values += (values.empty() ? "" : ", ") + str(value);
        w.write(0, str(at(expressions[j], {"key"})) + " in [" + values + "]\n");
      }
    }
  }
  if (related.events) write_events(w, *related.events, now);
}

void describe_priority_class(Writer& w, const json& pc, const Related& related, TimePoint now) {
  write_name(w, pc, false);
  w.write(0, "Value:\t" + std::to_string(num(at(pc, {"value"}))) + "\n");
  w.write(0, std::string("GlobalDefault:\t") + (at(pc, {"globalDefault"}) == true ? "true" : "false") + "\n");
  w.write(0, "PreemptionPolicy:\t" + str(at(pc, {"preemptionPolicy"})) + "\n");
  w.write(0, "Description:\t" + str(at(pc, {"description"})) + "\n");
  w.write(0, "Annotations:\t" + api::print::format_labels(at(pc, {"metadata", "annotations"})) + "\n");
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

Describer storage_describer(std::string_view group, std::string_view kind) {
  if (group.empty()) {
    if (kind == "PersistentVolume") return describe_persistent_volume;
    if (kind == "PersistentVolumeClaim") return describe_claim;
  }
  if (group == "storage.k8s.io" && kind == "StorageClass") return describe_storage_class;
  if (group == "scheduling.k8s.io" && kind == "PriorityClass") return describe_priority_class;
  return nullptr;
}

}  // namespace kw::cli::describe
