#pragma once
// Request authorization (kube-apiserver's --authorization-mode): Node, RBAC, ABAC, AlwaysAllow
// and AlwaysDeny, tried in the order given (e.g. "Node,RBAC"); the first that allows wins, and a
// mode that denies outright ends the chain. Members of system:masters are always allowed,
// before any mode is asked.
//
//   auto authz = kw::auth::Authorizer::load({.mode = "RBAC", .rbac = policy});
//   Decision d = authz->authorize(kw::auth::resource_attributes(user, info.verb, ...));
//   if (!d.allowed) send_json(*stream, 403, forbidden_status(attributes, d.reason));
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/policy_rule.hpp"
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
  // `reason` says why not (or, when explain_allow is set, which rule allowed).
  virtual Verdict authorize(const Attributes& attributes, std::string& reason, bool explain_allow) const = 0;
  // What the mode would allow `user` in `ns` (SelfSubjectRulesReview).
  virtual RuleSet rules_for(const UserInfo& user, const std::string& ns) const = 0;
};

class RbacPolicy;
class NodeGraph;

struct AuthorizerConfig {
  std::string mode = "AlwaysAllow";  // comma-separated Node, RBAC, ABAC, AlwaysAllow, AlwaysDeny
  std::string policy_file = {};      // ABAC's policy (JSON lines); only with ABAC
  std::shared_ptr<const RbacPolicy> rbac = {};  // what RBAC reads; needed when the mode names it
  // What Node reads, and the system:node ClusterRole's rules; needed when the mode names it.
  std::shared_ptr<const NodeGraph> node_graph = {};
  std::vector<PolicyRule> node_rules = {};
};

class Authorizer {
 public:
  // Called at start-up; ABAC's errors name the policy file and line.
  static Result<Authorizer> load(const AuthorizerConfig& config);

  // Thread-safe (const).
  // With explain_allow (access reviews), an allowed Decision says what allowed it; requests
  // only need the reasons of a refusal.
  Decision authorize(const Attributes& attributes, bool explain_allow = false) const;
  // The union of every mode's rules for `user` in `ns` (kube's union RulesFor).
  RuleSet rules_for(const UserInfo& user, const std::string& ns) const;
  // Whether the chain has the mode `name` ("Node", "RBAC", ...).
  bool uses(std::string_view name) const;

 private:
  std::vector<std::shared_ptr<const AuthorizerMode>> m_modes;
  std::vector<std::string> m_names;  // the modes' names, in order
};

}  // namespace kw::auth
