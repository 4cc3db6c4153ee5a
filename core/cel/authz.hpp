#pragma once
// Kubernetes' CEL authorizer library: the `authorizer` variable of admission expressions
// (ValidatingAdmissionPolicy, webhook matchConditions), which asks the server's authorizer
// what the requester (or a ServiceAccount) may do:
//
//   authorizer.group('apps').resource('deployments').namespace('web').name('x').check('update').allowed()
//   authorizer.path('/healthz').check('get').allowed()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').reason()
//   authorizer.requestResource.subresource('status').check('update').allowed()
//
// A decision has allowed(), reason(), errored() and error(). The host answers the checks:
//
//   activation.bind("authorizer", cel::authorizer_value(host, request_resource));
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/cel/value.hpp"

namespace kw::cel {

// One question to the authorizer.
struct AuthzCheck {
  bool resource_request = false;
  std::string group = {};
  std::string resource = {};
  std::string subresource = {};
  std::string namespace_ = {};
  std::string name = {};
  std::string path = {};  // a non-resource request's URL path
  std::string verb = {};  // a resource verb, or a non-resource request's lower-case HTTP method
  // Asked for this ServiceAccount (namespace, name) instead of the requester.
  std::optional<std::pair<std::string, std::string>> service_account = std::nullopt;
};

struct AuthzDecision {
  enum class Kind { allow, deny, no_opinion };
  Kind kind = Kind::no_opinion;
  std::string reason = {};
  std::string error = {};  // the authorizer failed; errored() is then true
};

class AuthzHost {
 public:
  virtual ~AuthzHost() = default;
  virtual AuthzDecision check(const AuthzCheck& check) const = 0;
};

// The `authorizer` value for one request. `request_resource` (resource_request set, verb
// empty) is where `authorizer.requestResource` starts: the request's group, resource,
// subresource, namespace and name.
Value authorizer_value(std::shared_ptr<const AuthzHost> host, AuthzCheck request_resource);

}  // namespace kw::cel
