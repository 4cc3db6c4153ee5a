#pragma once
// kube-apiserver's ABAC policy file: one JSON object per line,
//   {"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy",
//    "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
// Blank lines and lines starting with '#' are skipped. Unversioned (v0) lines, with the spec
// fields at the top level, are read with v0's meaning, as kube does.
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::auth {

struct AbacPolicy {
  std::string user;               // "*" = any authenticated user
  std::string group;              // "*" = any authenticated user
  bool readonly = false;          // only get, list and watch
  std::string api_group;          // "*" = all
  std::string namespace_;         // "*" = all; "" = cluster-scoped only
  std::string resource;           // "*" = all
  std::string non_resource_path;  // "*" = all; "/foo/*" = prefix "/foo/"
};

// `source` names the file in error messages.
Result<std::vector<AbacPolicy>> parse_abac_policies(std::string_view text, const std::string& source);

// True when `policy` allows `attributes` (kube's abac.matches).
bool abac_matches(const AbacPolicy& policy, const Attributes& attributes);

// What the policies allow `user` in `ns`, as rules (kube's PolicyList.RulesFor).
RuleSet abac_rules_for(const std::vector<AbacPolicy>& policies, const UserInfo& user, const std::string& ns);

}  // namespace kw::auth
