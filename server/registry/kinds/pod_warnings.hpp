#pragma once
// The warnings a pod or pod template write gets (kube's GetWarningsForPod and
// GetWarningsForPodTemplate): deprecated node labels in selectors, affinity and topology
// spread; deprecated and non-functional annotations and volume types; duplicate host aliases,
// image pull secrets, env names and ports; fractional byte quantities (ephemeral volumes' claim
// templates included); a negative grace period;
// affinity terms without a selector. Each names its field path, prefixed with the template's
// own path for templates ("spec.template.spec.volumes[0].gitRepo: deprecated in v1.11").
//
//   kinds::pod_warnings(pod, "", warnings);                      // a Pod
//   kinds::pod_warnings(deployment_template, "spec.template", warnings);
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::kinds {

// `holder` has the pod's (or template's) metadata and spec; `path` is where it sits in its
// object ("" for a Pod).
void pod_warnings(const nlohmann::json& holder, const std::string& path, std::vector<std::string>& warnings);

// The warnings of a PersistentVolumeClaim write (kube's GetWarningsForPersistentVolumeClaim):
// the beta storage-class annotation, and the claim spec's.
void claim_warnings(const nlohmann::json& claim, std::vector<std::string>& warnings);
// The warnings of a PersistentVolume write (GetWarningsForPersistentVolume): the beta
// storage-class annotation, the Recycle policy, deprecated node labels in its node affinity and
// deprecated volume plugins.
void volume_warnings(const nlohmann::json& volume, std::vector<std::string>& warnings);
// A claim spec's (GetWarningsForPersistentVolumeClaimSpec): a storage request or limit that is
// not a whole number of bytes. `path` is the spec's ("spec.volumes[0].ephemeral.volumeClaimTemplate.spec").
void claim_spec_warnings(const nlohmann::json& spec, const std::string& path, std::vector<std::string>& warnings);

// The rows' Strategy::warnings: a Pod's, a claim's, a volume's, and a StatefulSet's claim
// templates (kube's paths: a create's leave out each claim's "spec", an update's spell it "Spec").
void pod_write_warnings(const nlohmann::json& pod, const nlohmann::json* old, std::vector<std::string>& warnings);
void claim_write_warnings(const nlohmann::json& claim, const nlohmann::json* old, std::vector<std::string>& warnings);
void volume_write_warnings(const nlohmann::json& volume, const nlohmann::json* old, std::vector<std::string>& warnings);
void stateful_set_warnings(const nlohmann::json& stateful_set, const nlohmann::json* old,
                           std::vector<std::string>& warnings);

}  // namespace kw::kinds
