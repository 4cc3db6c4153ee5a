#include "server/auth/authorizer.hpp"

#include <algorithm>
#include <cctype>

#include "core/util/text.hpp"
#include "server/auth/abac_policy.hpp"
#include "server/auth/node_authorizer.hpp"
#include "server/auth/rbac.hpp"
#include "server/auth/secure_file.hpp"

namespace kw::auth {

namespace {

using Verdict = AuthorizerMode::Verdict;

class AlwaysAllow final : public AuthorizerMode {
 public:
  Verdict authorize(const Attributes&, std::string&, bool) const override { return Verdict::allow; }
  RuleSet rules_for(const UserInfo&, const std::string&) const override {
    return {.rules = all_rules(), .incomplete = false, .errors = {}};
  }
};

// Like kube's AlwaysDeny: no opinion, so a later mode may still allow, and the union denies.
class AlwaysDeny final : public AuthorizerMode {
 public:
  Verdict authorize(const Attributes&, std::string& reason, bool) const override {
    reason = "Everything is forbidden.";
    return Verdict::no_opinion;
  }
  RuleSet rules_for(const UserInfo&, const std::string&) const override { return {}; }
};

class Abac final : public AuthorizerMode {
 public:
  explicit Abac(std::vector<AbacPolicy> policies) : m_policies(std::move(policies)) {}
  Verdict authorize(const Attributes& attributes, std::string& reason, bool) const override {
    for (const auto& policy : m_policies) {
      if (abac_matches(policy, attributes)) return Verdict::allow;
    }
    reason = "no ABAC policy matched";
    return Verdict::no_opinion;
  }
  RuleSet rules_for(const UserInfo& user, const std::string& ns) const override {
    return abac_rules_for(m_policies, user, ns);
  }

 private:
  std::vector<AbacPolicy> m_policies;
};

std::vector<std::string> split_modes(const std::string& mode) {
  std::vector<std::string> modes;
  std::size_t start = 0;
  while (start <= mode.size()) {
    const std::size_t comma = std::min(mode.find(',', start), mode.size());
    std::string one = mode.substr(start, comma - start);
    std::erase_if(one, [](unsigned char c) { return std::isspace(c); });
    modes.push_back(one);
    start = comma + 1;
  }
  return modes;
}

Result<std::shared_ptr<const AuthorizerMode>> load_abac(const std::string& policy_file) {
  if (policy_file.empty()) return fail("authorization mode ABAC needs a policy file (--authorization-policy-file)");
  auto text = read_file(policy_file);
  if (!text) return std::unexpected(text.error());
  auto policies = parse_abac_policies(*text, policy_file);
  if (!policies) return std::unexpected(policies.error());
  return std::make_shared<const Abac>(std::move(*policies));
}

}  // namespace

bool read_only_verb(std::string_view verb) { return verb == "get" || verb == "list" || verb == "watch"; }

Attributes resource_attributes(UserInfo user, std::string verb, std::string namespace_, std::string api_group,
                               std::string resource, std::string subresource, std::string name, std::string path) {
  const bool read_only = read_only_verb(verb);
  return Attributes{.user = std::move(user),
                    .verb = std::move(verb),
                    .namespace_ = std::move(namespace_),
                    .api_group = std::move(api_group),
                    .resource = std::move(resource),
                    .subresource = std::move(subresource),
                    .name = std::move(name),
                    .resource_request = true,
                    .path = std::move(path),
                    .read_only = read_only};
}

Attributes non_resource_attributes(UserInfo user, std::string_view http_method, std::string path) {
  std::string verb = util::to_lower(http_method);
  const bool read_only = read_only_verb(verb);
  return Attributes{.user = std::move(user),
                    .verb = std::move(verb),
                    .namespace_ = {},
                    .api_group = {},
                    .resource = {},
                    .subresource = {},
                    .name = {},
                    .resource_request = false,
                    .path = std::move(path),
                    .read_only = read_only};
}

Result<Authorizer> Authorizer::load(const AuthorizerConfig& config) {
  const std::string& mode = config.mode;
  Authorizer authorizer;
  bool abac = false;
  std::vector<std::string> seen;
  for (const auto& name : split_modes(mode)) {
    const bool repeated = std::ranges::find(seen, name) != seen.end();
    seen.push_back(name);
    if (repeated) {
      return fail("authorization mode \"" + name + "\" is given twice in \"" + mode + "\"");
    } else if (name == "AlwaysAllow") {
      authorizer.m_modes.push_back(std::make_shared<const AlwaysAllow>());
    } else if (name == "AlwaysDeny") {
      authorizer.m_modes.push_back(std::make_shared<const AlwaysDeny>());
    } else if (name == "ABAC") {
      auto loaded = load_abac(config.policy_file);
      if (!loaded) return std::unexpected(loaded.error());
      authorizer.m_modes.push_back(std::move(*loaded));
      abac = true;
    } else if (name == "Node") {
      if (!config.node_graph) return fail("authorization mode Node needs the server's node graph");
      authorizer.m_modes.push_back(node_mode(config.node_graph, config.node_rules));
    } else if (name == "RBAC") {
      if (!config.rbac) return fail("authorization mode RBAC needs the server's RBAC policy");
      authorizer.m_modes.push_back(rbac_mode(config.rbac));
    } else {
      return fail("unknown authorization mode \"" + name + "\" in \"" + mode +
                  "\": use a comma-separated list of Node, RBAC, ABAC, AlwaysAllow, AlwaysDeny");
    }
  }
  authorizer.m_names = std::move(seen);
  if (!abac && !config.policy_file.empty()) {
    return fail("an authorization policy file was given but the authorization mode \"" + mode +
                "\" does not include ABAC");
  }
  return authorizer;
}

Decision Authorizer::authorize(const Attributes& attributes, bool explain_allow) const {
  if (attributes.user.in_group(k_group_masters)) return Decision{true, ""};
  std::string reasons;
  for (const auto& mode : m_modes) {
    std::string reason;
    const Verdict verdict = mode->authorize(attributes, reason, explain_allow);
    if (verdict == Verdict::allow) return Decision{true, reason};
    if (!reason.empty()) reasons += (reasons.empty() ? "" : "\n") + reason;
    if (verdict == Verdict::deny) break;
  }
  return Decision{false, reasons};
}

RuleSet Authorizer::rules_for(const UserInfo& user, const std::string& ns) const {
  RuleSet all;
  for (const auto& mode : m_modes) {
    RuleSet one = mode->rules_for(user, ns);
    all.rules.insert(all.rules.end(), std::make_move_iterator(one.rules.begin()),
                     std::make_move_iterator(one.rules.end()));
    all.errors.insert(all.errors.end(), one.errors.begin(), one.errors.end());
    all.incomplete = all.incomplete || one.incomplete;
  }
  return all;
}

bool Authorizer::uses(std::string_view name) const { return std::ranges::find(m_names, name) != m_names.end(); }

}  // namespace kw::auth
