#include <algorithm>

#include "core/api/print_support.hpp"
#include "core/api/quantity.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_beta_class_annotation = "volume.beta.kubernetes.io/storage-class";

// storageutil.IsDefaultAnnotation.
bool default_storage_class(const json& storage_class) {
  const json& annotations = at(storage_class, {"metadata", "annotations"});
  return str(at(annotations, {"storageclass.kubernetes.io/is-default-class"})) == "true" ||
         str(at(annotations, {"storageclass.beta.kubernetes.io/is-default-class"})) == "true";
}

// A claim's class: the beta annotation wins over spec.storageClassName (GetPersistentVolumeClaimClass).
std::string claim_class(const json& claim) {
  if (const json& beta = at(claim, {"metadata", "annotations", k_beta_class_annotation}); beta.is_string())
    return beta.get<std::string>();
  return str(at(claim, {"spec", "storageClassName"}));
}

void add_finalizer(json& object, const char* finalizer) {
  json& finalizers = object["metadata"]["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  if (std::ranges::find(finalizers, json(finalizer)) == finalizers.end()) finalizers.push_back(finalizer);
}

std::optional<api::GoQuantity> requested_storage(const json& claim) {
  auto parsed = api::parse_go_quantity(at(claim, {"spec", "resources", "requests", "storage"}));
  return parsed ? std::optional(*parsed) : std::nullopt;
}

}  // namespace

registry::AdmissionMutation default_storage_class(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& claim) -> registry::ApiResult<void> {
    if (r.operation != "CREATE" || !writes_object(r, "", "persistentvolumeclaims")) return {};
    if (at(claim, {"spec", "storageClassName"}).is_string() ||
        at(claim, {"metadata", "annotations", k_beta_class_annotation}).is_string())
      return {};
    auto classes = cached(registry, "storage.k8s.io", "v1", "storageclasses");
    if (!classes) return std::unexpected(classes.error());
    // Of several defaults, the newest (then the first by name) is used, as since Kubernetes 1.26;
    // 1.23 refused the claim instead.
    const json* chosen = nullptr;
    for (const auto& storage_class : *classes) {
      if (!default_storage_class(storage_class->object())) continue;
      const std::string created = str(at(storage_class->object(), {"metadata", "creationTimestamp"}));
      if (chosen == nullptr || created > str(at(*chosen, {"metadata", "creationTimestamp"})) ||
          (created == str(at(*chosen, {"metadata", "creationTimestamp"})) &&
           storage_class->name < str(at(*chosen, {"metadata", "name"}))))
        chosen = &storage_class->object();
    }
    if (chosen != nullptr) claim["spec"]["storageClassName"] = str(at(*chosen, {"metadata", "name"}));
    return {};
  };
}

registry::AdmissionMutation storage_object_in_use_protection() {
  return [](const registry::AdmissionRequest& r, json& object) -> registry::ApiResult<void> {
    if (r.operation != "CREATE") return {};
    if (writes_object(r, "", "persistentvolumeclaims")) add_finalizer(object, "kubernetes.io/pvc-protection");
    if (writes_object(r, "", "persistentvolumes")) add_finalizer(object, "kubernetes.io/pv-protection");
    return {};
  };
}

registry::AdmissionCheck persistent_volume_claim_resize(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (r.operation != "UPDATE" || r.old == nullptr || !writes_object(r, "", "persistentvolumeclaims")) return {};
    const auto now = requested_storage(r.object);
    const auto before = requested_storage(*r.old);
    if (now.value_or(api::GoQuantity{}).compare(before.value_or(api::GoQuantity{})) <= 0) return {};
    if (str(at(*r.old, {"status", "phase"})) != "Bound")
      return std::unexpected(registry::admission_forbidden(r, "Only bound persistent volume claims can be expanded"));
    const std::string class_name = claim_class(r.object);
    bool allowed = false;
    if (!class_name.empty() && class_name == claim_class(*r.old)) {
      auto storage_class = cached_object(registry, "storage.k8s.io", "v1", "storageclasses", "", class_name);
      allowed = storage_class && *storage_class && at(**storage_class, {"allowVolumeExpansion"}) == true;
    }
    if (!allowed)
      return std::unexpected(registry::admission_forbidden(
          r, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"));
    return {};
  };
}

}  // namespace kw::admission
