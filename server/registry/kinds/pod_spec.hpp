#pragma once
// Pod specs wherever they sit: a Pod's spec, the pod template of a PodTemplate, a
// ReplicationController, the apps/v1 workloads and the batch/v1 Job and CronJob. Kubernetes
// applies the same defaults to a template as to a pod (SetDefaults_PodSpec and the defaults of
// everything nested in it; SetDefaults_Pod's own part is the Pod row's) and checks it alike.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/selector.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::kinds {

// ---- defaults ----------------------------------------------------------------------------------

// SetDefaults_PodSpec and everything nested in a pod spec: containers (SetDefaults_Container,
// ports, env, probes, lifecycle hooks) and volumes.
void default_pod_spec(nlohmann::json& spec);
// A PodTemplateSpec: its spec's defaults.
void default_pod_template(nlohmann::json& pod_template);
void default_container(nlohmann::json& container);
// The deprecated serviceAccount mirrors serviceAccountName (which it fills when only it is
// set), as kube's v1 conversion keeps them.
void sync_service_account_name(nlohmann::json& spec);
// SetDefaults_Volume and the defaults of each volume source.
void default_volume(nlohmann::json& volume);
// The defaults of the volume sources a PersistentVolumeSpec shares with a pod's volumes
// (hostPath, rbd, iscsi, azureDisk, scaleIO), applied to the ones `holder` has.
void default_volume_sources(nlohmann::json& holder);
// SetDefaults_PersistentVolumeClaim and SetDefaults_PersistentVolumeClaimSpec: of a claim and of
// the claim templates of a StatefulSet.
void default_persistent_volume_claim(nlohmann::json& claim);
// ValidatePersistentVolumeClaimSpec (core_v1.cpp), for the claim spec at `path`.
void validate_persistent_volume_claim_spec(Causes& causes, const nlohmann::json& spec, const std::string& path);

// GetPodQOS: BestEffort without cpu or memory requests and limits, Guaranteed when every
// container limits both and requests what it limits, else Burstable.
std::string pod_qos_class(const nlohmann::json& pod);

// ---- references ---------------------------------------------------------------------------------

// The secrets a pod spec names: image pull secrets, every container's env and envFrom, and its
// volumes (kube's VisitPodSecretNames over all containers). Empty names are skipped; a name
// may come more than once.
void visit_secret_names(const nlohmann::json& spec, const std::function<void(const std::string&)>& visit);
// The ConfigMaps a pod spec names: env, envFrom, configMap and projected volumes.
void visit_config_map_names(const nlohmann::json& spec, const std::function<void(const std::string&)>& visit);

// Whether a pod spec runs on Windows (spec.os.name), which the Linux-only rules skip.
bool is_windows_pod(const nlohmann::json& spec);

// VisitContainersWithPath: every container of `spec` (init, regular, then ephemeral) with its
// field path under `path`. `Spec` is a json or a const json; `visit(container, path)`.
template <class Spec, class Visit>
void visit_containers_with_path(Spec& spec, const std::string& path, Visit&& visit) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (!spec.is_object() || !spec.contains(list) || !spec[list].is_array()) continue;
    std::size_t i = 0;
    for (auto& container : spec[list]) visit(container, index_path(path + "." + list, i++));
  }
}

// ---- pod-specific annotations (pod_annotations.cpp) ------------------------------------------

inline constexpr std::string_view k_app_armor_annotation_prefix = "container.apparmor.security.beta.kubernetes.io/";

// ValidatePodSpecificAnnotations, for a pod's or a template's annotations at `path`: the mirror
// pod annotation needs spec.nodeName; the tolerations annotation is JSON of valid tolerations;
// the pod deletion cost a 32-bit integer (unless `check_deletion_cost` is false: an update of
// a pod that already had an invalid one); seccomp and AppArmor annotations name valid profiles.
void validate_pod_specific_annotations(Causes& causes, const nlohmann::json& annotations,
                                       const nlohmann::json& spec, const std::string& path,
                                       bool check_deletion_cost = true);
// GetDeletionCostFromPodAnnotations succeeds: no deletion cost, or a 32-bit integer without a
// plus sign or leading zeros.
bool valid_deletion_cost(const nlohmann::json& annotations);
// validateSeccompAnnotationsAndFields: where a seccomp annotation and the securityContext's
// seccompProfile (the pod's, or a container's) are both given, they name the same profile.
void validate_seccomp_match(Causes& causes, const nlohmann::json& annotations, const nlohmann::json& spec,
                            const std::string& spec_path);
// ValidatePodSpecificAnnotationUpdates: a pod's AppArmor and mirror-pod annotations are never
// added, changed or removed, then its pod-specific annotations are checked (an invalid deletion
// cost `old` already had is kept). Updates, status writes and ephemeral containers all run it.
void validate_pod_annotation_updates(Causes& causes, const nlohmann::json& pod, const nlohmann::json& old);

// ---- AppArmor (pod_app_armor.cpp) -------------------------------------------------------------

// ValidateAppArmorProfileField: a pod's or a container's securityContext.appArmorProfile at `path`.
void validate_app_armor_profile(Causes& causes, const nlohmann::json& profile, const std::string& path);
// ValidateAppArmorPodAnnotations: each container.apparmor.security.beta.kubernetes.io/NAME
// annotation (at `path`) names a container of `spec` and a profile kube knows.
void validate_app_armor_annotations(Causes& causes, const nlohmann::json& annotations, const nlohmann::json& spec,
                                    const std::string& path);
// A create's deprecation warnings for AppArmor annotations a container has no field for, as the
// client sent the pod (before sync_app_armor).
void app_armor_create_warnings(const nlohmann::json& pod, std::vector<std::string>& warnings);
// PrepareForCreate's version skew step: an annotation for every container whose field (or the
// pod's) gives a profile, and a field for every container with only an annotation that differs
// from the pod's profile. Not for Windows pods.
void sync_app_armor(nlohmann::json& pod);
// ValidatePodCreate's check that a container's annotation and its effective field agree.
void validate_app_armor_match(Causes& causes, const nlohmann::json& pod);

// ---- a new pod (pod_prepare.cpp) ------------------------------------------------------------

// mutatePodAffinity: each pod (anti-)affinity term with matchLabelKeys or mismatchLabelKeys and
// a label selector gets `key In (value)` / `key NotIn (value)` for the pod's own labels.
void mutate_pod_affinity(nlohmann::json& pod);
// applySchedulingGatedCondition: a pod created with scheduling gates starts with PodScheduled
// False, reason SchedulingGated, since `now`.
void apply_scheduling_gated_condition(nlohmann::json& pod, const std::string& now);

// ---- validation --------------------------------------------------------------------------------

// What an update may keep of the stored pod spec though a create may no longer have it
// (GetValidationOptionsFromPodSpecAndMeta's ratchets, for the rules kw checks that have one):
// each is set when the stored spec already has it. A create has none.
struct PodRatchets {
  bool indivisible_huge_pages = false;      // a hugepages quantity that is not a whole number of pages
  bool host_namespace_sysctls = false;      // a net or ipc sysctl where the pod shares the host's
  bool any_se_linux_change_policy = false;  // seLinuxChangePolicy set (MountOption may stay)
};
PodRatchets pod_ratchets(const nlohmann::json* old_spec);
// The containers', init containers' or overhead's hugepages quantities are not all whole pages
// (pod_containers.cpp).
bool uses_indivisible_huge_pages(const nlohmann::json& spec);
// A sysctl names a namespace (net, ipc) the pod shares with its host (pod_level.cpp).
bool uses_host_namespace_sysctls(const nlohmann::json& spec);

// The volumes of a pod spec that passed their checks, by name (what mounts may name).
using PodVolumes = std::map<std::string, const nlohmann::json*>;

// ValidateVolumes (pod_volumes.cpp): each volume at `path` (the spec's "volumes") is named,
// once, with a DNS label, and has exactly one valid source. `pod_meta` is a pod's metadata
// (null for a template): its name gives the claims of ephemeral volumes.
PodVolumes validate_volumes(Causes& causes, const nlohmann::json& volumes, const std::string& path,
                            const nlohmann::json* pod_meta = nullptr);

// The rules of the volume sources pods and PersistentVolumes check alike (hostPath, the GCE and
// AWS disks, nfs, flocker, quobyte, fc, flexVolume options, azureDisk), for the source `key` at
// `path`; false for any other source.
bool shared_volume_source_rules(Causes& causes, std::string_view key, const nlohmann::json& source,
                                const std::string& path);

// ---- the downward API (downward_api.cpp) -----------------------------------------------------

// The pod fields a downwardAPI volume file may name (validVolumeDownwardAPIFieldPathExpressions),
// and those an env var may name (validEnvDownwardAPIFieldPathExpressions); both sorted.
inline constexpr std::string_view k_volume_downward_api_fields[] = {
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"};
inline constexpr std::string_view k_env_downward_api_fields[] = {
    "metadata.name",  "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
    "status.hostIP", "status.hostIPs",     "status.podIP", "status.podIPs"};
// validateObjectFieldSelector: a fieldRef at `path` names a v1 pod field in `allowed` (sorted),
// or a label or annotation by key.
void validate_object_field_selector(Causes& causes, const nlohmann::json& selector,
                                    std::span<const std::string_view> allowed, const std::string& path);
// validateContainerResourceFieldSelector: a resourceFieldRef at `path` names a container
// resource (and, for a volume file, its container) with a divisor that resource takes.
void validate_resource_field_selector(Causes& causes, const nlohmann::json& selector, const std::string& path,
                                      bool volume);
// validateContainers and validateInitContainers (pod_containers.cpp), for the containers and
// init containers of the pod spec at `path`.
void validate_pod_containers(Causes& causes, const nlohmann::json& spec, const PodVolumes& volumes,
                             const std::string& path, const PodRatchets& ratchets);
// ValidateResourceRequirements (pod_containers.cpp), for the requirements at `path` (a
// container's resources, or a pod's overhead as limits): names, quantities, requests within
// limits, hugepages, and claims among `pod_claims`.
void validate_resource_requirements(Causes& causes, const nlohmann::json& resources,
                                    const std::set<std::string>& pod_claims, const std::string& path,
                                    const PodRatchets& ratchets);
// validateSeccompProfileField, for a pod's or a container's securityContext.seccompProfile.
void validate_seccomp_profile_field(Causes& causes, const nlohmann::json& profile, const std::string& path);
// validateWindowsSecurityContextOptions, for a pod's or a container's windowsOptions.
void validate_windows_options(Causes& causes, const nlohmann::json& options, const std::string& path);
// ValidatePodSpec's pod-level checks between nodeSelector and serviceAccountName
// (pod_level.cpp): the pod's security context, image pull secrets, affinity, DNS config,
// readiness and scheduling gates, topology spread constraints, host process and host users.
// `old_spec` as validate_pod_spec takes it.
void validate_pod_context(Causes& causes, const nlohmann::json& spec, const std::string& path,
                          const PodRatchets& ratchets);
// ValidatePodSpec's checks after tolerations (pod_level.cpp): host aliases, priority class,
// runtime class, preemption policy, overhead, and the operating system's rules.
void validate_pod_extras(Causes& causes, const nlohmann::json& spec, const std::string& path,
                         const PodRatchets& ratchets);
// ValidateNodeSelector (pod_level.cpp): at least one term; each requirement's operator fits its
// values, keys are label names and values label values; field requirements name metadata.name.
// For a pod's required node affinity and a PersistentVolume's nodeAffinity.required.
void validate_node_selector(Causes& causes, const nlohmann::json& selector, const std::string& path);

// A pod spec's containers and init containers: at least one container, each named (a DNS
// label, unique in the pod) with an image.
void validate_containers(Causes& causes, const nlohmann::json& pod_spec, const std::string& path);
// validateContainerCommon's name and image: the name a DNS label not in `names` (which it joins),
// the image set. For containers, init and ephemeral containers alike.
void validate_container_identity(Causes& causes, const nlohmann::json& container, std::set<std::string>& names,
                                 const std::string& field);
// A workload's spec.selector as metav1.LabelSelectorAsSelector reads it: an absent selector
// selects nothing, one without requirements everything.
struct WorkloadSelector {
  bool nothing = false;
  api::LabelSelector requirements;

  // labels.Selector.Empty(): no requirements (an absent selector is not empty).
  bool empty() const { return !nothing && requirements.empty(); }
  bool matches(const nlohmann::json& labels) const;
};
// nullopt when LabelSelectorAsSelector fails (an unknown operator, a bad key or value).
std::optional<WorkloadSelector> workload_selector(const nlohmann::json& selector);
// "`selector` does not match template `labels`" at <template_path>.metadata.labels, with the
// labels as %#v prints them, unless the selector matches the template's labels.
void selector_matches_template(Causes& causes, const WorkloadSelector& selector, const nlohmann::json& pod_template,
                               const std::string& template_path);
// The pods of a replicated workload run forever: restartPolicy Always and no
// activeDeadlineSeconds ("activeDeadlineSeconds in <owner> is not Supported").
void always_restarting(Causes& causes, const nlohmann::json& pod_spec, const std::string& spec_path,
                       std::string_view owner);
// The core of ValidatePodSpec: volumes, containers, restart and DNS policies, deadlines.
// `pod_meta` is a pod's metadata (null for a template). `old_spec` is the stored spec an update
// replaces (null for a create): what it already holds, a few rules let the update keep
// (GetValidationOptionsFromPodSpecAndMeta's ratchets).
void validate_pod_spec(Causes& causes, const nlohmann::json& spec, const std::string& path,
                       const nlohmann::json* pod_meta = nullptr, const nlohmann::json* old_spec = nullptr);
// ValidatePodTemplateSpec: the template's labels (reported at <path>.labels, as Kubernetes
// does), annotations and pod spec; no ephemeral containers. `old_template` is the one an update
// replaces (null on create): its spec is validate_pod_spec's `old_spec`
// (GetValidationOptionsFromPodTemplate).
void validate_pod_template(Causes& causes, const nlohmann::json& pod_template, const std::string& path,
                           const nlohmann::json* old_template = nullptr);
// ValidatePodUpdate's spec rules (pod_update.cpp): a pod's spec changes only in its images,
// a shorter activeDeadlineSeconds, added tolerations and removed scheduling gates.
void validate_pod_update(const nlohmann::json& pod, const nlohmann::json& old, Causes& causes);
// ValidatePodStatusUpdate (pod_status.cpp): pod-specific annotations, custom condition types,
// the node name, terminated containers that may not run again, claim statuses and the pod's
// and host's IPs.
void validate_pod_status_update(const nlohmann::json& pod, const nlohmann::json& old, Causes& causes);
// ValidateTolerations, for the tolerations at `path`.
void validate_tolerations(Causes& causes, const nlohmann::json& tolerations, const std::string& path);
// Go's %#v of a core.Toleration, as its field errors print it.
std::string go_toleration(const nlohmann::json& toleration);

}  // namespace kw::kinds
