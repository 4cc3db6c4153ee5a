#include "server/auth/policy_rule.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/util/text.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::auth {

namespace {

using nlohmann::json;

std::vector<std::string> strings_of(const json& rule, const char* key) {
  std::vector<std::string> out;
  const auto found = rule.find(key);
  if (found == rule.end() || !found->is_array()) return out;
  for (const auto& item : *found)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& set, std::string_view value) {
  return std::ranges::find(set, value) != set.end();
}

bool has_all(const std::vector<std::string>& set, const std::vector<std::string>& wanted) {
  return std::ranges::all_of(wanted, [&](const std::string& one) { return has(set, one); });
}

// "/logs/*" covers every path below /logs/; "*" every path.
bool url_matches(const std::string& rule_url, const std::string& path) {
  if (rule_url == "*" || rule_url == path) return true;
  if (!rule_url.ends_with('*')) return false;
  return path.starts_with(std::string_view(rule_url).substr(0, rule_url.find_last_not_of('*') + 1));
}

bool resource_matches(const PolicyRule& rule, const std::string& combined, const std::string& subresource) {
  for (const auto& resource : rule.resources) {
    if (resource == "*" || resource == combined) return true;
    // "*/status" names that subresource of every resource.
    if (!subresource.empty() && resource.size() == subresource.size() + 2 && resource.starts_with("*/") &&
        std::string_view(resource).substr(2) == subresource)
      return true;
  }
  return false;
}

// Whether `held` grants every resource of `wanted` (kube's resourceCoversAll).
bool resources_cover(const std::vector<std::string>& held, const std::vector<std::string>& wanted) {
  if (has(held, "*") || has_all(held, wanted)) return true;
  for (const auto& path : wanted) {
    if (has(held, path)) continue;
    const auto slash = path.find('/');
    if (slash == std::string::npos || !has(held, "*" + path.substr(slash))) return false;
  }
  return true;
}

bool urls_cover(const std::vector<std::string>& held, const std::vector<std::string>& wanted) {
  return std::ranges::all_of(wanted, [&](const std::string& path) {
    return std::ranges::any_of(held, [&](const std::string& owner) { return url_matches(owner, path); });
  });
}

bool rule_covers(const PolicyRule& owner, const PolicyRule& sub) {
  const bool names = sub.resource_names.empty() ? owner.resource_names.empty()
                                                : owner.resource_names.empty() || has_all(owner.resource_names, sub.resource_names);
  return (has(owner.verbs, "*") || has_all(owner.verbs, sub.verbs)) &&
         (has(owner.api_groups, "*") || has_all(owner.api_groups, sub.api_groups)) &&
         resources_cover(owner.resources, sub.resources) && names && urls_cover(owner.non_resource_urls, sub.non_resource_urls);
}

// One rule per group, resource, verb (and name), and per URL and verb (kube's BreakdownRule).
void break_down(const PolicyRule& rule, std::vector<PolicyRule>& out) {
  for (const auto& group : rule.api_groups)
    for (const auto& resource : rule.resources)
      for (const auto& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back({.verbs = {verb}, .api_groups = {group}, .resources = {resource}, .resource_names = {}, .non_resource_urls = {}});
          continue;
        }
        for (const auto& name : rule.resource_names)
          out.push_back({.verbs = {verb}, .api_groups = {group}, .resources = {resource}, .resource_names = {name}, .non_resource_urls = {}});
      }
  for (const auto& url : rule.non_resource_urls)
    for (const auto& verb : rule.verbs)
      out.push_back({.verbs = {verb}, .api_groups = {}, .resources = {}, .resource_names = {}, .non_resource_urls = {url}});
}

}  // namespace

PolicyRule PolicyRule::from_json(const json& rule) {
  if (!rule.is_object()) return {};
  return {.verbs = strings_of(rule, "verbs"),
          .api_groups = strings_of(rule, "apiGroups"),
          .resources = strings_of(rule, "resources"),
          .resource_names = strings_of(rule, "resourceNames"),
          .non_resource_urls = strings_of(rule, "nonResourceURLs")};
}

json PolicyRule::to_json() const {
  json out = {{"verbs", verbs}};
  if (!api_groups.empty()) out["apiGroups"] = api_groups;
  if (!resources.empty()) out["resources"] = resources;
  if (!resource_names.empty()) out["resourceNames"] = resource_names;
  if (!non_resource_urls.empty()) out["nonResourceURLs"] = non_resource_urls;
  return out;
}

const std::vector<PolicyRule>& all_rules() {
  static const std::vector<PolicyRule> rules = {
      {.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}, .resource_names = {}, .non_resource_urls = {}},
      {.verbs = {"*"}, .api_groups = {}, .resources = {}, .resource_names = {}, .non_resource_urls = {"*"}}};
  return rules;
}

bool rule_allows(const Attributes& a, const PolicyRule& rule) {
  if (!has(rule.verbs, "*") && !has(rule.verbs, a.verb)) return false;
  if (!a.resource_request)
    return std::ranges::any_of(rule.non_resource_urls, [&](const std::string& url) { return url_matches(url, a.path); });
  if (!has(rule.api_groups, "*") && !has(rule.api_groups, a.api_group)) return false;
  const std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  if (!resource_matches(rule, combined, a.subresource)) return false;
  return rule.resource_names.empty() || has(rule.resource_names, a.name);
}

bool rules_allow(const Attributes& attributes, const std::vector<PolicyRule>& rules) {
  return std::ranges::any_of(rules, [&](const PolicyRule& rule) { return rule_allows(attributes, rule); });
}

std::vector<PolicyRule> uncovered_rules(const std::vector<PolicyRule>& held, const std::vector<PolicyRule>& wanted) {
  std::vector<PolicyRule> pieces;
  for (const auto& rule : wanted) break_down(rule, pieces);
  std::vector<PolicyRule> uncovered;
  for (auto& piece : pieces)
    if (std::ranges::none_of(held, [&](const PolicyRule& owner) { return rule_covers(owner, piece); }))
      uncovered.push_back(std::move(piece));
  return uncovered;
}

std::vector<PolicyRule> compact_rules(std::vector<PolicyRule> rules) {
  std::vector<PolicyRule> out;
  // group, resource, whether a name is given, the name -> the merged rule
  std::map<std::tuple<std::string, std::string, bool, std::string>, PolicyRule> simple;
  for (auto& rule : rules) {
    const bool is_simple = rule.resource_names.size() <= 1 && rule.non_resource_urls.empty() &&
                           rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      out.push_back(std::move(rule));
      continue;
    }
    const bool named = !rule.resource_names.empty();
    auto key = std::make_tuple(rule.api_groups[0], rule.resources[0], named, named ? rule.resource_names[0] : "");
    auto [found, inserted] = simple.try_emplace(std::move(key), rule);
    if (!inserted) found->second.verbs.insert(found->second.verbs.end(), rule.verbs.begin(), rule.verbs.end());
  }
  for (auto& [key, rule] : simple) out.push_back(std::move(rule));
  return out;
}

std::string compact_string(const PolicyRule& r) {
  std::vector<std::string> parts;
  if (!r.api_groups.empty()) parts.push_back("APIGroups:" + util::go_quote_list(r.api_groups));
  if (!r.resources.empty()) parts.push_back("Resources:" + util::go_quote_list(r.resources));
  if (!r.non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + util::go_quote_list(r.non_resource_urls));
  if (!r.resource_names.empty()) parts.push_back("ResourceNames:" + util::go_quote_list(r.resource_names));
  if (!r.verbs.empty()) parts.push_back("Verbs:" + util::go_quote_list(r.verbs));
  std::string out = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

std::string aggregate_errors(const std::vector<std::string>& errors) {
  if (errors.empty()) return "";
  if (errors.size() == 1) return errors.front();
  std::vector<std::string> seen;
  for (const auto& error : errors)
    if (!has(seen, error)) seen.push_back(error);
  if (seen.size() == 1) return seen.front();
  std::string out = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) out += (i ? ", " : "") + seen[i];
  return out + "]";
}

}  // namespace kw::auth
