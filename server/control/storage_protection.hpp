#pragma once
// kube-controller-manager's pvc-protection and pv-protection controllers, done by kw itself so
// that claims and volumes (which the StorageObjectInUseProtection admission plugin gives a
// finalizer) can be deleted without a controller-manager:
// - a PersistentVolumeClaim being deleted loses kubernetes.io/pvc-protection once no pod that
//   has not finished uses it (a volume naming the claim, or the claim of an ephemeral volume);
// - a PersistentVolume being deleted loses kubernetes.io/pv-protection once it is not Bound.
// A real controller-manager may run beside it: both remove the same finalizers.
//
//   auto protection = control::StorageProtection::start(registry, {.claims = true, .volumes = true});
#include <memory>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

struct StorageProtectionOptions {
  bool claims = true;   // pvc-protection
  bool volumes = true;  // pv-protection
};

class StorageProtection {
 public:
  // Follows claims, volumes and pods; the work happens in the background. Destroy before `registry`.
  static Result<std::unique_ptr<StorageProtection>> start(registry::Registry& registry,
                                                          StorageProtectionOptions options);
  ~StorageProtection();
  StorageProtection(const StorageProtection&) = delete;
  StorageProtection& operator=(const StorageProtection&) = delete;

 private:
  struct State;
  explicit StorageProtection(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace kw::control
