#pragma once
// Two of kube-apiserver's default admission plugins that fill in how pods are scheduled:
// - DefaultTolerationSeconds: pods (create and update) that do not tolerate
//   node.kubernetes.io/not-ready and node.kubernetes.io/unreachable (NoExecute) get tolerations
//   for them, for --default-not-ready-toleration-seconds and
//   --default-unreachable-toleration-seconds (300 each);
// - Priority: a pod created gets the priority and preemptionPolicy of its priorityClassName
//   (403 `no PriorityClass with name X was found`), or of the global default class, or 0 and
//   PreemptLowerPriority; an update keeps the stored ones; a PriorityClass may only be made the
//   global default while no other one is.
//
//   registry.add_admission_mutation(admission::default_toleration_seconds({300, 300}));
//   registry.add_admission_mutation(admission::priority_mutation(registry));
//   registry.add_admission_check(admission::priority_check(registry));
#include <cstdint>

#include "server/registry/registry.hpp"

namespace kw::admission {

struct TolerationSeconds {
  std::int64_t not_ready = 300;
  std::int64_t unreachable = 300;
};

registry::AdmissionMutation default_toleration_seconds(TolerationSeconds seconds);
registry::AdmissionMutation priority_mutation(registry::Registry& registry);
registry::AdmissionCheck priority_check(registry::Registry& registry);

}  // namespace kw::admission
