// The describers of RBAC's roles and bindings. A role's rules are shown as kubectl shows them:
// broken down to one resource (and resource name) each, the verbs of rules that then name the
// same resource merged, sorted by the rule's text.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

using Strings = std::vector<std::string>;

struct Rule {
  Strings verbs, groups, resources, names, urls;

  // The generated String() of rbacv1.PolicyRule, which kubectl sorts the rules by.
  std::string text() const {
    return "&PolicyRule{Verbs:" + list(verbs) + ",APIGroups:" + list(groups) + ",Resources:" + list(resources) +
           ",ResourceNames:" + list(names) + ",NonResourceURLs:" + list(urls) + ",}";
  }
  static std::string list(const Strings& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
    return "[" + out + "]";
  }
};

Strings strings_of(const json& rule, std::string_view key) { return api::strings(rule, key); }

// kubectl's BreakdownRule: one rule per group, resource and resource name, and one per
// non-resource URL.
std::vector<Rule> broken_down(const json& rule) {
  std::vector<Rule> out;
  const Strings verbs = strings_of(rule, "verbs"), names = strings_of(rule, "resourceNames");
  for (const auto& group : strings_of(rule, "apiGroups"))
    for (const auto& resource : strings_of(rule, "resources")) {
      if (names.empty()) out.push_back(Rule{verbs, {group}, {resource}, {}, {}});
      for (const auto& name : names) out.push_back(Rule{verbs, {group}, {resource}, {name}, {}});
    }
  for (const auto& url : strings_of(rule, "nonResourceURLs")) out.push_back(Rule{verbs, {}, {}, {}, {url}});
  return out;
}

// kubectl's CompactRules and sort: rules on one group, resource and at most one name merge their
// verbs; the others stay as they are.
std::vector<Rule> compacted(const json& rules) {
  std::vector<Rule> out;
  std::map<std::tuple<std::string, std::string, bool, std::string>, Rule> simple;
  std::vector<std::tuple<std::string, std::string, bool, std::string>> order;
  for (const auto& rule : arr(rules))
    for (auto& part : broken_down(rule)) {
      if (!part.urls.empty() || part.groups.size() != 1 || part.resources.size() != 1) {
        out.push_back(std::move(part));
        continue;
      }
      const auto key = std::make_tuple(part.groups[0], part.resources[0], !part.names.empty(),
                                       part.names.empty() ? "" : part.names[0]);
      auto [it, inserted] = simple.try_emplace(key, part);
      if (!inserted)
        it->second.verbs.insert(it->second.verbs.end(), part.verbs.begin(), part.verbs.end());
      else
        order.push_back(key);
    }
  for (const auto& key : order) out.push_back(simple.at(key));
  std::ranges::stable_sort(out, {}, &Rule::text);
  return out;
}

// "pods.apps/log": the resource, its group and its subresource, as kubectl combines them.
std::string resource_with_group(const Rule& rule) {
  if (rule.resources.empty()) return "";
  const std::string& resource = rule.resources[0];
  const auto slash = resource.find('/');
  std::string out = resource.substr(0, slash);
  if (!rule.groups.empty() && !rule.groups[0].empty()) out += "." + rule.groups[0];
  if (slash != std::string::npos) out += resource.substr(slash);
  return out;
}

void describe_role(Writer& w, const json& role, const Related&, TimePoint) {
  write_name(w, role, false);
  write_metadata(w, role);
  w.write(0, "PolicyRule:\n");
  w.write(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n");
  w.write(1, "---------\t-----------------\t--------------\t-----\n");
  for (const auto& rule : compacted(at(role, {"rules"})))
    w.write(1, resource_with_group(rule) + "\t" + Rule::list(rule.urls) + "\t" + Rule::list(rule.names) + "\t" +
                   Rule::list(rule.verbs) + "\n");
}

void describe_binding(Writer& w, const json& binding, const Related&, TimePoint) {
  write_name(w, binding, false);
  write_metadata(w, binding);
  w.write(0, "Role:\n");
  w.write(1, "Kind:\t" + str(at(binding, {"roleRef", "kind"})) + "\n");
  w.write(1, "Name:\t" + str(at(binding, {"roleRef", "name"})) + "\n");
  w.write(0, "Subjects:\n");
  w.write(1, "Kind\tName\tNamespace\n");
  w.write(1, "----\t----\t---------\n");
  for (const auto& subject : arr(at(binding, {"subjects"})))
    w.write(1, str(at(subject, {"kind"})) + "\t" + str(at(subject, {"name"})) + "\t" + str(at(subject, {"namespace"})) +
                   "\n");
}

}  // namespace

Describer rbac_describer(std::string_view group, std::string_view kind) {
  if (group == "rbac.authorization.k8s.io") {
    if (kind == "Role" || kind == "ClusterRole") return describe_role;
    if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return describe_binding;
  }
  return nullptr;
}

}  // namespace kw::cli::describe
