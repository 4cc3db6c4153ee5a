#include "server/auth/abac_policy.hpp"

#include <nlohmann/json.hpp>

namespace kw::auth {

namespace {

constexpr const char* k_api_version = "abac.authorization.kubernetes.io/v1beta1";

using Json = nlohmann::json;

Result<std::string> string_field(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return fail(std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

Result<AbacPolicy> read_spec(const Json& spec, bool v0) {
  static const std::vector<std::string> v1_fields = {"user",      "group",    "readonly",       "apiGroup",
                                                     "namespace", "resource", "nonResourcePath"};
  static const std::vector<std::string> v0_fields = {"user", "group", "readonly", "namespace", "resource"};
  const auto& known = v0 ? v0_fields : v1_fields;
  for (const auto& [key, value] : spec.items()) {
    if (std::ranges::find(known, key) == known.end()) {
      std::string list;
      for (const auto& field : known) list += (list.empty() ? "" : ", ") + field;
      return fail("unknown field \"" + key + "\" (known: " + list + ")");
    }
  }
  AbacPolicy policy;
  for (auto [field, key] :
       {std::pair{&policy.user, "user"}, std::pair{&policy.group, "group"}, std::pair{&policy.api_group, "apiGroup"},
        std::pair{&policy.namespace_, "namespace"}, std::pair{&policy.resource, "resource"},
        std::pair{&policy.non_resource_path, "nonResourcePath"}}) {
    auto value = string_field(spec, key);
    if (!value) return std::unexpected(value.error());
    *field = std::move(*value);
  }
  if (const auto it = spec.find("readonly"); it != spec.end() && !it->is_null()) {
    if (!it->is_boolean()) return fail("\"readonly\" must be true or false");
    policy.readonly = it->get<bool>();
  }
  return policy;
}

// v1beta1: a "*" user or group means every authenticated user.
AbacPolicy from_v1beta1(AbacPolicy policy) {
  if (policy.user == "*" || policy.group == "*") {
    policy.group = k_group_authenticated;
    policy.user.clear();
  }
  return policy;
}

// v0: empty fields are wildcards, and every rule spans all API groups.
AbacPolicy from_v0(AbacPolicy policy) {
  if (policy.user.empty() && policy.group.empty()) policy.group = k_group_authenticated;
  if (policy.user == "*" || policy.group == "*") {
    policy.group = k_group_authenticated;
    policy.user.clear();
  }
  if (policy.namespace_.empty() && policy.resource.empty()) policy.non_resource_path = "*";
  if (policy.namespace_.empty()) policy.namespace_ = "*";
  if (policy.resource.empty()) policy.resource = "*";
  policy.api_group = "*";
  return policy;
}

Result<AbacPolicy> parse_line(std::string_view line) {
  const Json object = Json::parse(line, nullptr, false);
  if (object.is_discarded()) return fail("not valid JSON");
  if (!object.is_object()) return fail("expected a JSON object");
  if (!object.contains("apiVersion") && !object.contains("kind")) {
    auto policy = read_spec(object, true);
    if (!policy) return policy;
    return from_v0(std::move(*policy));
  }
  auto api_version = string_field(object, "apiVersion");
  auto kind = string_field(object, "kind");
  if (!api_version || *api_version != k_api_version) {
    return fail(std::string("apiVersion must be \"") + k_api_version + "\"");
  }
  if (!kind || *kind != "Policy") return fail("kind must be \"Policy\"");
  for (const auto& [key, value] : object.items()) {
    if (key != "apiVersion" && key != "kind" && key != "spec") return fail("unknown field \"" + key + "\"");
  }
  const auto spec = object.find("spec");
  if (spec == object.end() || !spec->is_object()) return fail("\"spec\" must be an object");
  auto policy = read_spec(*spec, false);
  if (!policy) return policy;
  return from_v1beta1(std::move(*policy));
}

bool subject_matches(const AbacPolicy& policy, const UserInfo& user) {
  bool matched = false;
  if (!policy.user.empty()) {
    if (policy.user != "*" && policy.user != user.name) return false;
    matched = true;
  }
  if (!policy.group.empty()) {
    if (policy.group != "*" && !user.in_group(policy.group)) return false;
    matched = true;
  }
  return matched;
}

bool verb_matches(const AbacPolicy& policy, const Attributes& attributes) {
  return attributes.read_only || !policy.readonly;
}

bool resource_matches(const AbacPolicy& policy, const Attributes& attributes) {
  if (!attributes.resource_request) return false;
  auto wild_or = [](const std::string& rule, const std::string& value) { return rule == "*" || rule == value; };
  return wild_or(policy.namespace_, attributes.namespace_) && wild_or(policy.resource, attributes.resource) &&
         wild_or(policy.api_group, attributes.api_group);
}

bool non_resource_matches(const AbacPolicy& policy, const Attributes& attributes) {
  if (attributes.resource_request || policy.non_resource_path.empty()) return false;
  const std::string& rule = policy.non_resource_path;
  if (rule == "*" || rule == attributes.path) return true;
  if (rule.back() != '*') return false;
  const std::string prefix = rule.substr(0, rule.find_last_not_of('*') + 1);
  return attributes.path.starts_with(prefix);
}

}  // namespace

Result<std::vector<AbacPolicy>> parse_abac_policies(std::string_view text, const std::string& source) {
  std::vector<AbacPolicy> policies;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto policy = parse_line(line);
    if (!policy) {
      return fail("policy file " + source + ", line " + std::to_string(line_number) + ": " + policy.error().message +
                  ": " + std::string(line.substr(0, 200)));
    }
    policies.push_back(std::move(*policy));
  }
  return policies;
}

bool abac_matches(const AbacPolicy& policy, const Attributes& attributes) {
  return subject_matches(policy, attributes.user) && verb_matches(policy, attributes) &&
         (resource_matches(policy, attributes) || non_resource_matches(policy, attributes));
}

RuleSet abac_rules_for(const std::vector<AbacPolicy>& policies, const UserInfo& user, const std::string& ns) {
  RuleSet out;
  for (const auto& policy : policies) {
    if (!subject_matches(policy, user) || (policy.namespace_ != "*" && policy.namespace_ != ns)) continue;
    const std::vector<std::string> verbs =
        policy.readonly ? std::vector<std::string>{"get", "list", "watch"} : std::vector<std::string>{"*"};
    if (!policy.resource.empty())
      out.rules.push_back({.verbs = verbs, .api_groups = {policy.api_group}, .resources = {policy.resource},
                           .resource_names = {}, .non_resource_urls = {}});
    if (!policy.non_resource_path.empty())
      out.rules.push_back({.verbs = verbs, .api_groups = {}, .resources = {}, .resource_names = {},
                           .non_resource_urls = {policy.non_resource_path}});
  }
  return out;
}

}  // namespace kw::auth
