#include "server/auth/status.hpp"

#include "core/util/text.hpp"

namespace kw::auth {

namespace {

using util::go_quote;

nlohmann::json failure(int code, const std::string& reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", message}, {"reason", reason},
                        {"code", code}};
}

}  // namespace

nlohmann::json unauthorized_status() { return failure(401, "Unauthorized", "Unauthorized"); }

std::string forbidden_message(const Attributes& a) {
  const std::string user = "User " + go_quote(a.user.name) + " cannot " + a.verb;
  if (!a.resource_request) return user + " path " + go_quote(a.path);
  const std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  const std::string what = user + " resource " + go_quote(resource) + " in API group " + go_quote(a.api_group);
  if (!a.namespace_.empty()) return what + " in the namespace " + go_quote(a.namespace_);
  return what + " at the cluster scope";
}

nlohmann::json forbidden_status(const Attributes& a, const std::string& reason) {
  std::string detail = forbidden_message(a);
  if (!reason.empty()) detail += ": " + reason;
  // Like kube's NewForbidden: the subject is the group-qualified resource (and the name).
  nlohmann::json details = nlohmann::json::object();
  std::string message;
  if (!a.resource_request || a.resource.empty()) {
    message = "forbidden: " + detail;
  } else {
    const std::string qualified = a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
    message = a.name.empty() ? qualified + " is forbidden: " + detail
                             : qualified + " " + go_quote(a.name) + " is forbidden: " + detail;
    if (!a.name.empty()) details["name"] = a.name;
    if (!a.api_group.empty()) details["group"] = a.api_group;
    details["kind"] = a.resource;
  }
  nlohmann::json status = failure(403, "Forbidden", message);
  status["details"] = details;
  return status;
}

}  // namespace kw::auth
