#pragma once
// kube-apiserver's ServiceAccount admission plugin, for pods created through the API:
// - a pod without serviceAccountName gets `default`;
// - the ServiceAccount must exist (403 `error looking up service account NS/NAME: ...`;
//   `default` is looked for for up to about two seconds, as kube does, since a controller
//   creates it with the namespace);
// - unless the pod or its ServiceAccount turns automountServiceAccountToken off, every
//   container and init container mounts the projected volume `kube-api-access-XXXXX` (a bound
//   token, the namespace's kube-root-ca.crt and the namespace) read-only at
//   /var/run/secrets/kubernetes.io/serviceaccount, unless it mounts something there already;
// - a pod without imagePullSecrets gets its ServiceAccount's;
// - with the ServiceAccount annotation kubernetes.io/enforce-mountable-secrets=true, a pod may
//   only use the secrets the ServiceAccount lists;
// - mirror pods (kubernetes.io/config.mirror) may use neither ServiceAccounts nor secrets.
//
//   registry.add_admission_mutation(admission::service_account_mutation(registry));
//   registry.add_admission_check(admission::service_account_check(registry));
#include "server/registry/registry.hpp"

namespace kw::admission {

// The mutating phase (which checks as well, as kube's Admit does).
registry::AdmissionMutation service_account_mutation(registry::Registry& registry);
// The validating phase: the checks again, on the pod as the other plugins left it.
registry::AdmissionCheck service_account_check(registry::Registry& registry);

}  // namespace kw::admission
