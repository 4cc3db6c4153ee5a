// serviceaccounts/{name}/token (kube's TokenREST): validate the TokenRequest, find the
// ServiceAccount and the object the token is bound to, sign.
#include <chrono>
#include <cstdint>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {
namespace {

using nlohmann::json;
using registry::ApiError;
using registry::ApiResult;

constexpr std::int64_t k_default_expiration = 3600;
constexpr std::int64_t k_min_expiration = 600;
constexpr std::int64_t k_max_expiration = std::int64_t{1} << 32;

ApiResult<json> stored_in(const ResourceRequest& r, const char* plural, const std::string& ns, const std::string& name) {
  const auto* info = r.registry.resources()->find_plural("", "v1", plural);
  if (info == nullptr) return std::unexpected(registry::not_found("", plural, name));
  return r.registry.get(*info, ns, name, "");
}

ApiResult<json> stored(const ResourceRequest& r, const char* plural, const std::string& name) {
  return stored_in(r, plural, r.info.namespace_, name);
}

json invalid_cause(const char* field, std::int64_t value, const char* message) {
  return {{"reason", "FieldValueInvalid"},
          {"message", "Invalid value: " + std::to_string(value) + ": " + message},
          {"field", field}};
}

}  // namespace

void request_token(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = true}, "CreateOptions")) return;
  if (r.service_accounts == nullptr)
    return r.fail(ApiError{503, "ServiceUnavailable", "this server issues no service account tokens", {}});
  auto body = read_body(r.request);
  if (!body) return r.fail(body.error());
  json request = std::move(*body);
  r.audited_request(request);
  if (!request.is_object()) return r.fail(registry::bad_request("the request body must be a TokenRequest object"));
  if (const std::string kind = request.value("kind", std::string()); !kind.empty() && kind != "TokenRequest") {
    const std::string api_version = request.value("apiVersion", std::string());
    const std::string version = api_version.substr(api_version.find('/') == std::string::npos ? 0 : api_version.find('/') + 1);
    return r.fail(registry::bad_request(kind + " in version " + util::go_quote(version) +
                                        " cannot be handled as a TokenRequest: converting (" + version + "." + kind +
                                        ") to (authentication.TokenRequest): unknown conversion"));
  }
  // SetDefaults_TokenRequestSpec, admission (NamespaceLifecycle names a missing namespace;
  // NodeRestriction holds kubelets to their pods' tokens), then ValidateTokenRequest.
  {
    json& spec = request["spec"];
    if (!spec.is_object()) spec = json::object();
    if (!spec.contains("expirationSeconds") || spec["expirationSeconds"].is_null())
      spec["expirationSeconds"] = k_default_expiration;
    if (!spec["expirationSeconds"].is_number_integer())
      return r.fail(registry::bad_request("spec.expirationSeconds must be an integer"));
  }
  request["kind"] = "TokenRequest";
  request["apiVersion"] = "authentication.k8s.io/v1";
  if (auto admitted = r.registry.admit_create(r.resource, r.info.namespace_, r.info.name, request, write.options);
      !admitted)
    return r.fail(admitted.error());
  json& spec = request["spec"];
  if (!spec.is_object() || !spec["expirationSeconds"].is_number_integer())
    return r.fail(registry::bad_request("spec.expirationSeconds must be an integer"));
  std::int64_t expiration = spec["expirationSeconds"].get<std::int64_t>();
  json causes = json::array();
  if (expiration < k_min_expiration)
    causes.push_back(invalid_cause("spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes"));
  if (expiration > k_max_expiration)
    causes.push_back(invalid_cause("spec.expirationSeconds", expiration, "may not specify a duration larger than 2^32 seconds"));
  if (!causes.empty())
    return r.fail(registry::invalid("authentication.k8s.io", "TokenRequest", "", causes, registry::causes_summary(causes)));

  auto account = stored(r, "serviceaccounts", r.info.name);
  if (!account) return r.fail(account.error());
  std::optional<json> pod, secret;
  if (const auto ref = spec.find("boundObjectRef"); ref != spec.end() && ref->is_object()) {
    const std::string api_version = ref->value("apiVersion", std::string());
    const std::string kind = ref->value("kind", std::string());
    const std::string name = ref->value("name", std::string());
    const std::string group = api_version.find('/') == std::string::npos ? "" : api_version.substr(0, api_version.find('/'));
    const std::string version = api_version.substr(api_version.find('/') == std::string::npos ? 0 : api_version.find('/') + 1);
    json bound;
    if (group.empty() && kind == "Pod") {
      auto found = stored(r, "pods", name);
      if (!found) return r.fail(found.error());
      if (found->value("spec", json::object()).value("serviceAccountName", std::string()) != r.info.name)
        return r.fail(registry::bad_request("cannot bind token for serviceaccount " + util::go_quote(r.info.name) +
                                            " to pod running with different serviceaccount name."));
      bound = *found;
      pod = std::move(*found);
    } else if (group.empty() && kind == "Secret") {
      auto found = stored(r, "secrets", name);
      if (!found) return r.fail(found.error());
      bound = *found;
      secret = std::move(*found);
    } else {
      // schema.GroupVersionKind's String(): "group/version, Kind=kind".
      return r.fail(registry::bad_request("cannot bind token to object of type " + group + "/" + version +
                                          ", Kind=" + kind));
    }
    const std::string uid = ref->value("uid", std::string());
    const std::string stored_uid = bound["metadata"].value("uid", std::string());
    if (!uid.empty() && uid != stored_uid)
      return r.fail(ApiError{409, "Conflict",
                             "Operation cannot be fulfilled on " + kind + " " + util::go_quote(name) +
                                 ": the UID in the bound object reference (" + uid +
                                 ") does not match the UID in record. The object might have been deleted and then "
                                 "recreated",
                             {{"name", name}, {"kind", kind}}});
  }
  json& audiences = spec["audiences"];
  if (!audiences.is_array() || audiences.empty()) audiences = r.service_accounts->api_audiences();
  const auto max = r.service_accounts->max_expiration().count();
  if (max > 0 && expiration > max) spec["expirationSeconds"] = expiration = max;
  if (write.options.dry_run) return reply(r, write.format, 201, std::move(request), write.warnings);
  auto issued = r.service_accounts->issue(*account, pod ? &*pod : nullptr, secret ? &*secret : nullptr,
                                          audiences.get<std::vector<std::string>>(), expiration);
  if (!issued) return r.fail(ApiError{500, "InternalError", "failed to generate token: " + issued.error().message, {}});
  request["status"] = {{"token", issued->token}, {"expirationTimestamp", api::print::format_rfc3339(issued->expiration)}};
  reply(r, write.format, 201, std::move(request), write.warnings);
}

}  // namespace kw::http::handlers
