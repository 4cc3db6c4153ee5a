#pragma once
// Request authorization (kube-apiserver's --authorization-mode): AlwaysAllow, AlwaysDeny and
// ABAC, tried in the order given (e.g. "ABAC,AlwaysDeny"); the first that allows wins.
// Members of system:masters are always allowed, before any mode is asked.
//
//   auto authz = kw::auth::Authorizer::load("ABAC", "/etc/kw/policy.jsonl");
//   Decision d = authz->authorize(kw::auth::resource_attributes(user, info.verb, ...));
//   if (!d.allowed) send_json(*stream, 403, forbidden_status(attributes, d.reason));
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/user_info.hpp"

namespace kw::auth {

// What a request asks to do (kube's authorizer.Attributes).
struct Attributes {
  UserInfo user;
  std::string verb;         // resource: get list watch create update patch delete deletecollection;
                            // non-resource: the lower-case HTTP method (get, post, put, ...)
  std::string namespace_;   // "" for cluster-scoped resources
  std::string api_group;    // "" for the core group
  std::string resource;     // plural, e.g. "pods"
  std::string subresource;  // e.g. "status"
  std::string name;         // object name, "" for list/create/watch of a collection
  bool resource_request = false;
  std::string path;        // the URL path (what non-resource rules match)
  bool read_only = false;  // verb is get, list or watch (see read_only_verb)
};

bool read_only_verb(std::string_view verb);

// Attributes of a request for an API resource / for any other URL path (/healthz, /version,
// /apis, ...). read_only is derived from the verb; `http_method` is lowered to the verb.
Attributes resource_attributes(UserInfo user, std::string verb, std::string namespace_, std::string api_group,
                               std::string resource, std::string subresource, std::string name, std::string path);
Attributes non_resource_attributes(UserInfo user, std::string_view http_method, std::string path);

struct Decision {
  bool allowed = false;
  std::string reason;  // why not (or which rule allowed), for logs and the 403 message
};

class AuthorizerMode {
 public:
  enum class Verdict { allow, deny, no_opinion };
  virtual ~AuthorizerMode() = default;
  virtual Verdict authorize(const Attributes& attributes, std::string& reason) const = 0;
};

class Authorizer {
 public:
  // `mode`: comma-separated AlwaysAllow, AlwaysDeny, ABAC. `policy_file` is read for ABAC
  // (errors name the file and line) and must be empty otherwise. Called at start-up.
  static Result<Authorizer> load(const std::string& mode, const std::string& policy_file);

  // Thread-safe (const).
  Decision authorize(const Attributes& attributes) const;

 private:
  std::vector<std::shared_ptr<const AuthorizerMode>> m_modes;
};

}  // namespace kw::auth
