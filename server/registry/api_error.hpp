#pragma once
// An API error as the REST layer answers it: HTTP code, Kubernetes reason and message, turned
// into a meta/v1 Status by the HTTP layer. Storage errors map here in one place.
#include <string>

#include <nlohmann/json.hpp>

#include "server/storage/backend.hpp"

namespace kw::registry {

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "AlreadyExists", "Conflict", "Invalid", ...
  std::string message;
  nlohmann::json details = nlohmann::json::object();  // {name, group, kind, causes}
  // Write "details": {} even when empty, as kube's generic server responses do (a failed JSON
  // patch); otherwise empty details are left out.
  bool keep_empty_details = false;

  nlohmann::json status() const;  // the meta/v1 Status object
};

ApiError bad_request(std::string message);
// kube's apierrors.NewInternalError: 500 "Internal error occurred: WHY", WHY also as the cause.
ApiError internal_error(const std::string& why);
ApiError not_found(const std::string& group, const std::string& plural, const std::string& name);
// 403 Forbidden about `name` of `plural` in `group` (name "" = the resource as a whole), in
// kube's words: `pods "web" is forbidden: WHY`.
ApiError forbidden(const std::string& group, const std::string& plural, const std::string& name,
                   const std::string& why);
// 409 Conflict about `name` of `plural` in `group`, in kube's words:
// `Operation cannot be fulfilled on deployments.apps "web": WHY`.
ApiError conflict(const std::string& group, const std::string& plural, const std::string& name,
                  const std::string& why);
// kube-apiserver's summary of field errors ({field, message} causes): the one error, or all
// of them in brackets.
std::string causes_summary(const nlohmann::json& causes);
ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 nlohmann::json causes, const std::string& summary);
// storage error about object `name` of `plural` in `group`
ApiError from_storage(const storage::Error& error, const std::string& group, const std::string& plural,
                      const std::string& name);

template <class T>
using ApiResult = std::expected<T, ApiError>;

}  // namespace kw::registry
