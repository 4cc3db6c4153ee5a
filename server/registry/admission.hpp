#pragma once
// Checks a write must pass after the registry has defaulted and validated it and before it is
// stored (kube-apiserver's validating admission and its storage-level checks, such as RBAC's
// escalation prevention). Registered once, before the server serves:
//
//   registry.add_admission_check([](const AdmissionRequest& r) -> ApiResult<void> { ... });
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "server/registry/api_error.hpp"

namespace kw::registry {

struct AdmissionRequest {
  const api::ResourceInfo& info;
  std::string_view operation;    // CREATE or UPDATE
  std::string_view subresource;  // "" for the resource itself
  const std::string& namespace_;
  const std::string& name;
  const nlohmann::json& object;  // as it will be stored
  const nlohmann::json* old;     // the stored object (UPDATE), else null
  // Who writes: an authentication.k8s.io/v1 UserInfo; null for the server's own writes.
  const nlohmann::json& user;
  bool dry_run;
};

using AdmissionCheck = std::function<ApiResult<void>(const AdmissionRequest&)>;

}  // namespace kw::registry
