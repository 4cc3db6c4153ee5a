#pragma once
// kube-apiserver's two admission phases, as the registry runs them on every create, update and
// delete (a DELETE's mutations see it by name, before the object is read):
// - mutations change the object after it was decoded and defaulted and before the kind's
//   own preparation and validation (the ServiceAccount plugin's token volume);
// - checks see the validated object just before it is stored and may only refuse it
//   (validating admission, RBAC's escalation prevention). A DELETE's check sees the stored
//   object as `old`.
// Both are registered once, before the server serves:
//
//   registry.add_admission_mutation([](const AdmissionRequest& r, nlohmann::json& object) -> ApiResult<void> { ... });
//   registry.add_admission_check([](const AdmissionRequest& r) -> ApiResult<void> { ... });
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "server/registry/api_error.hpp"

namespace kw::registry {

struct AdmissionRequest {
  const api::ResourceInfo& info;
  std::string_view operation;    // CREATE, UPDATE or DELETE
  std::string_view subresource;  // "" for the resource itself
  const std::string& namespace_;
  const std::string& name;       // "" for a create whose name is still to be generated
  const nlohmann::json& object;  // as it will be stored (a mutation: as it is now); null for DELETE
  const nlohmann::json* old;     // the stored object (UPDATE), else null
  // Who writes: an authentication.k8s.io/v1 UserInfo; null for the server's own writes.
  const nlohmann::json& user;
  bool dry_run;
  // Where a plugin's warnings go (the response's Warning headers); may be null.
  std::vector<std::string>* warnings = nullptr;
  // Adds an annotation to the request's audit event; may be null (or empty: no audit).
  const std::function<void(const std::string& key, const std::string& value)>* annotate = nullptr;
  // The resource the client wrote when `info` is an equivalent one that a webhook or policy
  // matched instead (matchPolicy Equivalent; object and old are then converted to `info`'s
  // version); null: `info` itself.
  const api::ResourceInfo* requested = nullptr;

  // Adds `key` to the request's audit annotations (a no-op when the request is not audited).
  void add_audit_annotation(const std::string& key, const std::string& value) const {
    if (annotate != nullptr && *annotate) (*annotate)(key, value);
  }
};

using AdmissionCheck = std::function<ApiResult<void>(const AdmissionRequest&)>;
// `object` is request.object, writable.
using AdmissionMutation = std::function<ApiResult<void>(const AdmissionRequest&, nlohmann::json& object)>;

// An admission plugin's refusal, 403 in kube's words: `pods "web" is forbidden: WHY`. The name
// is the request's, else the object's name or generateName (before a create's name is made).
ApiError admission_forbidden(const AdmissionRequest& request, const std::string& why);

}  // namespace kw::registry
