#pragma once
// The audit policy (kube-apiserver's --audit-policy-file): an audit.k8s.io Policy whose first
// matching rule says how much of a request is recorded (None, Metadata, Request,
// RequestResponse) and which stages are left out.
//
//   auto policy = kw::audit::Policy::load("/etc/kw/audit-policy.yaml");
//   RequestConfig config = policy->evaluate(attributes);  // attributes of the requesting user
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::audit {

// In increasing order of detail, so that levels compare.
enum class Level { none, metadata, request, request_response };

enum class Stage : std::uint8_t {
  request_received = 1,
  response_started = 2,
  response_complete = 4,
  panic = 8,
};

std::string_view level_name(Level level);  // "Metadata", ...
std::string_view stage_name(Stage stage);  // "ResponseComplete", ...

// What the policy says about one request.
struct RequestConfig {
  Level level = Level::none;
  std::uint8_t omit_stages = 0;  // a set of Stage bits
  bool omit_managed_fields = false;

  bool omits(Stage stage) const { return (omit_stages & static_cast<std::uint8_t>(stage)) != 0; }
};

struct GroupResources {
  std::string group;
  std::vector<std::string> resources;  // "pods", "pods/log", "*/status", "deployments/*", "*"
  std::vector<std::string> resource_names;
};

struct PolicyRule {
  Level level = Level::none;
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<GroupResources> resources;
  std::vector<std::string> namespaces;         // "" matches cluster-scoped resources
  std::vector<std::string> non_resource_urls;  // "/healthz", "/healthz*", "*"
  std::uint8_t omit_stages = 0;                // the rule's and the policy's
  std::optional<bool> omit_managed_fields;     // unset: the policy's
};

class Policy {
 public:
  // A YAML or JSON audit.k8s.io/v1 (or v1beta1, v1alpha1) Policy with at least one rule.
  // Errors are kube-apiserver's field errors ("rules[0].level: Required value").
  static Result<Policy> parse(std::string_view text);
  // parse() of a file; errors name the file.
  static Result<Policy> load(const std::string& path);

  // The first rule that matches; no match is level None. Without `authenticated` the request
  // has no user, and rules that name users or groups do not match it. Thread-safe (const).
  RequestConfig evaluate(const auth::Attributes& attributes, bool authenticated = true) const;

  const std::vector<PolicyRule>& rules() const { return m_rules; }

 private:
  std::vector<PolicyRule> m_rules;
  std::uint8_t m_omit_stages = 0;
  bool m_omit_managed_fields = false;
};

}  // namespace kw::audit
