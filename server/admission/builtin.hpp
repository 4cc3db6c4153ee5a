#pragma once
// kube-apiserver's built-in admission plugins beyond the pod scheduling ones (pod_scheduling.hpp)
// and ServiceAccount (service_account.hpp), each a mutation (before validation) or a check
// (after it) on the registry. plugins.cpp installs them by name, in kube's order.
//
// - NamespaceLifecycle: creates in a missing namespace are 404, in a Terminating one 403
//   (cause NamespaceTerminating); default, kube-system and kube-public cannot be deleted.
// - DefaultStorageClass: a claim without a class gets the default StorageClass (the newest,
//   of several).
// - StorageObjectInUseProtection: claims and volumes get their protection finalizer.
// - PersistentVolumeClaimResize: a claim grows only when bound and its StorageClass allows
//   volume expansion.
// - DefaultIngressClass: an Ingress without a class gets the default IngressClass (403 when
//   there are several).
// - TaintNodesByCondition: a new Node is tainted node.kubernetes.io/not-ready:NoSchedule.
// - RuntimeClass: a pod gets its RuntimeClass's overhead, node selector and tolerations.
// - LimitRanger: pods get their namespace's LimitRange defaults; pods and claims outside its
//   bounds are refused in kube's words.
// - CertificateApproval, CertificateSigning: approving and signing a CertificateSigningRequest
//   takes `approve` / `sign` on its signer (certificates.k8s.io "signers").
// - CertificateSubjectRestriction: no system:masters client certificates from
//   kubernetes.io/kube-apiserver-client.
// - ResourceQuota: creates (and updates that grow a service's or claim's usage) over a quota of
//   their namespace are refused ("exceeded quota: ..."); the rest are charged to the quotas'
//   status.used before they are stored. Its configuration's limitedResources refuse usage and
//   scopes no quota covers.
// - PodSecurity: the Pod Security Standards from the namespaces' pod-security.kubernetes.io/
//   labels: pods refused (enforce), warned about (warn) or annotated in the audit log (audit);
//   workload templates warned about and annotated (pod_security.cpp).
// - NodeRestriction: a kubelet (system:node:NAME) writes only its own Node, Lease and CSINode,
//   mirror pods bound to it, the status and evictions of pods bound to it, tokens bound to
//   those pods and claims' status (node_restriction.cpp). Off unless enabled, as in kube.
//
//   registry.add_admission_mutation(admission::namespace_lifecycle(registry));
#include "server/auth/authorizer.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

registry::AdmissionMutation namespace_lifecycle(registry::Registry& registry);
registry::AdmissionMutation default_storage_class(registry::Registry& registry);
registry::AdmissionMutation storage_object_in_use_protection();
registry::AdmissionCheck persistent_volume_claim_resize(registry::Registry& registry);
registry::AdmissionMutation default_ingress_class(registry::Registry& registry);
registry::AdmissionMutation taint_nodes_by_condition();
registry::AdmissionMutation node_restriction(registry::Registry& registry);
registry::AdmissionMutation runtime_class_mutation(registry::Registry& registry);
registry::AdmissionCheck runtime_class_check(registry::Registry& registry);
registry::AdmissionMutation limit_ranger_mutation(registry::Registry& registry);
registry::AdmissionCheck limit_ranger_check(registry::Registry& registry);
registry::AdmissionCheck certificate_approval(const auth::Authorizer& authorizer);
registry::AdmissionCheck certificate_signing(const auth::Authorizer& authorizer);
registry::AdmissionCheck certificate_subject_restriction();
// `configuration`: a ResourceQuotaConfiguration (limitedResources), or null for none.
Result<registry::AdmissionCheck> resource_quota(registry::Registry& registry, const nlohmann::json& configuration);
// `configuration`: a PodSecurityConfiguration (defaults, exemptions), or null for kube's defaults.
Result<registry::AdmissionCheck> pod_security(registry::Registry& registry, const nlohmann::json& configuration);

}  // namespace kw::admission
