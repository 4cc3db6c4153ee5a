#include "server/audit/policy.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::audit {
namespace {

using json = nlohmann::json;

constexpr std::string_view k_levels[] = {"None", "Metadata", "Request", "RequestResponse"};
constexpr std::string_view k_stages[] = {"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"};

// kube's field errors, joined as an aggregate: one message alone, several in brackets.
class FieldErrors {
 public:
  void add(std::string message) { m_errors.push_back(std::move(message)); }
  bool empty() const { return m_errors.empty(); }
  std::string message() const {
    if (m_errors.size() == 1) return m_errors.front();
    std::string out = "[";
    for (std::size_t i = 0; i < m_errors.size(); ++i) out += (i ? ", " : "") + m_errors[i];
    return out + "]";
  }

 private:
  std::vector<std::string> m_errors;
};

// Go's %#v of a []string, as field.Invalid prints a list value.
std::string go_string_slice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + util::go_quote(values[i]);
  return out + "}";
}

std::string indexed(std::string_view path, std::size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }

// A list of strings at `key` of `object`; a value of another type is a decoding error.
Result<std::vector<std::string>> strings_at(const json& object, const char* key, const std::string& path) {
  std::vector<std::string> out;
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return out;
  if (!found->is_array()) return fail("failed decoding: " + path + key + ": expected a list of strings");
  for (const auto& item : *found) {
    if (!item.is_string()) return fail("failed decoding: " + path + key + ": expected a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

// omitStages: the bits of the valid stages; invalid ones are field errors.
Result<std::uint8_t> stages_at(const json& object, const std::string& path, FieldErrors& errors) {
  auto names = strings_at(object, "omitStages", path);
  if (!names) return std::unexpected(names.error());
  std::uint8_t bits = 0;
  for (std::size_t i = 0; i < names->size(); ++i) {
    const auto& name = (*names)[i];
    const auto* known = std::ranges::find(k_stages, name);
    if (known == std::end(k_stages)) {
      errors.add(indexed(path + "omitStages", i) + ": Invalid value: " + util::go_quote(name) +
                 ": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic");
      continue;
    }
    bits |= static_cast<std::uint8_t>(1u << (known - std::begin(k_stages)));
  }
  return bits;
}

Result<PolicyRule> parse_rule(const json& item, const std::string& path, FieldErrors& errors) {
  if (!item.is_object()) return fail("failed decoding: " + path + ": expected an object");
  PolicyRule rule;
  const json level = item.value("level", json());
  if (!level.is_null() && !level.is_string()) return fail("failed decoding: " + path + ".level: expected a string");
  const std::string level_text = level.is_string() ? level.get<std::string>() : "";
  if (const auto* known = std::ranges::find(k_levels, level_text); known != std::end(k_levels)) {
    rule.level = static_cast<Level>(known - std::begin(k_levels));
  } else if (level_text.empty()) {
    errors.add(path + ".level: Required value");
  } else {
    errors.add(path + ".level: Unsupported value: " + util::go_quote(level_text) +
               ": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\"");
  }
  const std::string prefix = path + ".";
  for (auto [key, into] : {std::pair{"users", &rule.users}, std::pair{"userGroups", &rule.user_groups},
                           std::pair{"verbs", &rule.verbs}, std::pair{"namespaces", &rule.namespaces},
                           std::pair{"nonResourceURLs", &rule.non_resource_urls}}) {
    auto values = strings_at(item, key, prefix);
    if (!values) return std::unexpected(values.error());
    *into = std::move(*values);
  }
  for (std::size_t i = 0; i < rule.non_resource_urls.size(); ++i) {
    const auto& url = rule.non_resource_urls[i];
    if (url == "*") continue;
    const std::string field = indexed(prefix + "nonResourceURLs", i) + ": Invalid value: " + util::go_quote(url);
    if (!url.starts_with('/')) errors.add(field + ": non-resource URL rules must begin with a '/' character");
    if (!url.empty() && url.substr(0, url.size() - 1).find('*') != std::string::npos)
      errors.add(field + ": non-resource URL wildcards '*' must be the final character of the rule");
  }
  if (const auto found = item.find("resources"); found != item.end() && !found->is_null()) {
    if (!found->is_array()) return fail("failed decoding: " + prefix + "resources: expected a list");
    for (const auto& entry : *found) {
      if (!entry.is_object()) return fail("failed decoding: " + prefix + "resources: expected a list of objects");
      GroupResources group;
      const json name = entry.value("group", json(""));
      if (!name.is_string()) return fail("failed decoding: " + prefix + "resources.group: expected a string");
      group.group = name.get<std::string>();
      auto resources = strings_at(entry, "resources", prefix + "resources.");
      auto names = strings_at(entry, "resourceNames", prefix + "resources.");
      if (!resources) return std::unexpected(resources.error());
      if (!names) return std::unexpected(names.error());
      group.resources = std::move(*resources);
      group.resource_names = std::move(*names);
      if (!group.group.empty()) {
        const auto messages = kinds::subdomain_errors(group.group);
        std::string joined;
        for (const auto& message : messages) joined += (joined.empty() ? "" : ",") + message;
        if (!messages.empty())
          errors.add(prefix + "resources.group: Invalid value: " + util::go_quote(group.group) + ": " + joined);
      }
      if (!group.resource_names.empty() && group.resources.empty())
        errors.add(prefix + "resources.resourceNames: Invalid value: " + go_string_slice(group.resource_names) +
                   ": using resourceNames requires at least one resource");
      rule.resources.push_back(std::move(group));
    }
  }
  auto stages = stages_at(item, prefix, errors);
  if (!stages) return std::unexpected(stages.error());
  rule.omit_stages = *stages;
  if (!rule.non_resource_urls.empty() && (!rule.resources.empty() || !rule.namespaces.empty()))
    errors.add(prefix + "nonResourceURLs: Invalid value: " + go_string_slice(rule.non_resource_urls) +
               ": rules cannot apply to both regular resources and non-resource URLs");
  if (const auto found = item.find("omitManagedFields"); found != item.end() && !found->is_null()) {
    if (!found->is_boolean()) return fail("failed decoding: " + prefix + "omitManagedFields: expected a boolean");
    rule.omit_managed_fields = found->get<bool>();
  }
  return rule;
}

bool has(const std::vector<std::string>& values, std::string_view value) {
  return std::ranges::find(values, value) != values.end();
}

bool path_matches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  return spec.ends_with('*') && path.starts_with(spec.substr(0, spec.find_last_not_of('*') + 1));
}

bool resource_matches(const PolicyRule& rule, const auth::Attributes& a) {
  if (!a.resource_request) return false;
  if (!rule.namespaces.empty() && !has(rule.namespaces, a.namespace_)) return false;
  if (rule.resources.empty()) return true;
  const std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& group : rule.resources) {
    if (group.group != a.api_group) continue;
    if (group.resources.empty()) return true;
    if (!group.resource_names.empty() && !has(group.resource_names, a.name)) continue;
    for (std::string_view resource : group.resources) {
      if (resource == combined || resource == "*") return true;
      if (!a.subresource.empty() && resource.starts_with("*/") && resource.substr(2) == a.subresource) return true;
      if (resource.ends_with("/*") && resource.substr(0, resource.size() - 2) == a.resource) return true;
    }
  }
  return false;
}

bool rule_matches(const PolicyRule& rule, const auth::Attributes& a, bool authenticated) {
  if (!rule.users.empty() && (!authenticated || !has(rule.users, a.user.name))) return false;
  if (!rule.user_groups.empty() &&
      (!authenticated || std::ranges::none_of(a.user.groups, [&](const std::string& group) { return has(rule.user_groups, group); })))
    return false;
  if (!rule.verbs.empty() && !has(rule.verbs, a.verb)) return false;
  if (!rule.namespaces.empty() || !rule.resources.empty()) return resource_matches(rule, a);
  if (!rule.non_resource_urls.empty()) {
    if (a.resource_request) return false;
    return std::ranges::any_of(rule.non_resource_urls, [&](const std::string& spec) { return path_matches(a.path, spec); });
  }
  return true;
}

}  // namespace

std::string_view level_name(Level level) { return k_levels[static_cast<int>(level)]; }

std::string_view stage_name(Stage stage) {
  switch (stage) {
    case Stage::request_received: return k_stages[0];
    case Stage::response_started: return k_stages[1];
    case Stage::response_complete: return k_stages[2];
    case Stage::panic: return k_stages[3];
  }
  return "";
}

Result<Policy> Policy::parse(std::string_view text) {
  auto documents = codec::yaml_to_json(text);
  if (!documents) return fail("failed decoding: " + documents.error().message);
  if (documents->empty() || !documents->front().is_object()) return fail("failed decoding: the policy is not an object");
  const json& document = documents->front();
  const std::string api_version = document.value("apiVersion", "");
  const std::string kind = document.value("kind", "");
  if (kind.empty()) return fail("failed decoding: Object 'Kind' is missing");
  if (kind != "Policy" || (api_version != "audit.k8s.io/v1" && api_version != "audit.k8s.io/v1beta1" &&
                           api_version != "audit.k8s.io/v1alpha1"))
    return fail("failed decoding: no kind " + util::go_quote(kind) + " is registered for version " +
                util::go_quote(api_version));
  Policy policy;
  FieldErrors errors;
  auto stages = stages_at(document, "", errors);
  if (!stages) return std::unexpected(stages.error());
  policy.m_omit_stages = *stages;
  if (const auto found = document.find("omitManagedFields"); found != document.end() && !found->is_null()) {
    if (!found->is_boolean()) return fail("failed decoding: omitManagedFields: expected a boolean");
    policy.m_omit_managed_fields = found->get<bool>();
  }
  const json rules = document.value("rules", json::array());
  if (!rules.is_array()) return fail("failed decoding: rules: expected a list");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto rule = parse_rule(rules[i], indexed("rules", i), errors);
    if (!rule) return std::unexpected(rule.error());
    rule->omit_stages |= policy.m_omit_stages;
    policy.m_rules.push_back(std::move(*rule));
  }
  if (!errors.empty()) return fail(errors.message());
  if (policy.m_rules.empty()) return fail("loaded illegal policy with 0 rules");
  return policy;
}

Result<Policy> Policy::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("failed to read file path " + util::go_quote(path));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto policy = parse(text);
  if (!policy) return fail(policy.error().message + ": from file " + path);
  return policy;
}

RequestConfig Policy::evaluate(const auth::Attributes& attributes, bool authenticated) const {
  for (const auto& rule : m_rules)
    if (rule_matches(rule, attributes, authenticated))
      return {.level = rule.level,
              .omit_stages = rule.omit_stages,
              .omit_managed_fields = rule.omit_managed_fields.value_or(m_omit_managed_fields)};
  return {.level = Level::none, .omit_stages = m_omit_stages, .omit_managed_fields = m_omit_managed_fields};
}

}  // namespace kw::audit
