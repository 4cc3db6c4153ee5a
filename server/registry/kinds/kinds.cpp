#include <algorithm>
#include <cctype>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include <utility>

#include "core/codec/protobuf.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/api_priorities.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/kind_spec.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

const std::vector<std::string> k_all_verbs = {"create", "delete", "deletecollection", "get",
                                              "list",   "patch",  "update",           "watch"};

// Fills what a row leaves to convention.
void complete(KindSpec& spec) {
  api::ResourceInfo& info = spec.info;
  if (info.list_kind.empty()) info.list_kind = info.kind + "List";
  if (info.singular.empty()) info.singular = util::to_lower(info.kind);
  if (info.verbs.empty()) info.verbs = k_all_verbs;
  if (info.proto_message.empty())
    info.proto_message = codec::builtin_message_for(info.api_version(), info.kind).value_or("");
  if (info.has_subresource("scale") && !info.scale) {
    info.scale.emplace();
    info.scale->selector_from_spec = true;
  }
  if (spec.storage_resource.empty()) spec.storage_resource = info.plural;
}

std::vector<KindSpec> make_rows() {
  std::vector<KindSpec> rows;
  for (auto group : {core_v1_kinds, apiregistration_v1_kinds, apps_v1_kinds, events_v1_kinds, authentication_v1_kinds, authorization_v1_kinds, autoscaling_v2_kinds, autoscaling_v1_kinds, batch_v1_kinds, certificates_v1_kinds, networking_v1_kinds, policy_v1_kinds, rbac_v1_kinds, storage_v1_kinds, storage_v1beta1_kinds, admissionregistration_v1_kinds, apiextensions_v1_kinds, scheduling_v1_kinds, coordination_v1_kinds, node_v1_kinds, discovery_v1_kinds, flowcontrol_v1_kinds})
    for (auto& spec : group()) {
      complete(spec);
      rows.push_back(std::move(spec));
    }
  // In the order kube-apiserver's discovery lists them: the core group, its aggregator's own
  // group, then by the APIService priorities (api_priorities.hpp), the rows of one group
  // version as the group lists them.
  const auto rank = [](const api::ResourceInfo& info) {
    const auto priority = builtin_api_priority(info.group, info.version).value_or(ApiPriority{});
    return std::make_tuple(info.group.empty() ? 0 : info.group == "apiregistration.k8s.io" ? 1 : 2, -priority.group,
                           std::string_view(info.group), -priority.version, std::string_view(info.version));
  };
  std::ranges::stable_sort(rows, [&](const KindSpec& a, const KindSpec& b) { return rank(a.info) < rank(b.info); });
  return rows;
}

}  // namespace

const std::vector<KindSpec>& builtin_kinds() {
  static const std::vector<KindSpec> k_rows = make_rows();
  return k_rows;
}

const KindSpec* find_kind(std::string_view group, std::string_view version, std::string_view plural) {
  // By plural first: the registry asks for every key it builds and every object it decodes.
  // The views point into the rows, which live as long as the process.
  static const std::unordered_multimap<std::string_view, const KindSpec*> k_by_plural = [] {
    std::unordered_multimap<std::string_view, const KindSpec*> index;
    for (const auto& spec : builtin_kinds()) index.emplace(spec.info.plural, &spec);
    return index;
  }();
  const auto [first, last] = k_by_plural.equal_range(plural);
  for (auto it = first; it != last; ++it)
    if (it->second->info.version == version && it->second->info.group == group) return it->second;
  return nullptr;
}

const KindSpec* find_kind(const api::ResourceInfo& info) {
  return info.custom ? nullptr : find_kind(info.group, info.version, info.plural);
}

const nlohmann::json* pod_template_of(const KindSpec& row, const nlohmann::json& object) {
  if (row.pod_template.empty()) return nullptr;
  const nlohmann::json* at = &object;
  for (const auto& field : row.pod_template) {
    if (!at->is_object()) return nullptr;
    const auto found = at->find(field);
    if (found == at->end()) return nullptr;
    at = &*found;
  }
  return at->is_object() ? at : nullptr;
}

nlohmann::json* pod_template_of(const KindSpec& row, nlohmann::json& object) {
  return const_cast<nlohmann::json*>(pod_template_of(row, std::as_const(object)));
}

void default_object(const KindSpec& row, nlohmann::json& object) {
  if (row.strategy.defaults) row.strategy.defaults(object);
  if (auto* pod_template = pod_template_of(row, object)) default_pod_template(*pod_template);
}

Lifecycle lifecycle_of(const api::ResourceInfo& info) {
  const auto* spec = find_kind(info);
  return spec ? spec->lifecycle : Lifecycle::plain;
}

const KindSpec& kind_with(Lifecycle lifecycle) {
  for (const auto& spec : builtin_kinds())
    if (spec.lifecycle == lifecycle) return spec;
  std::abort();  // a row of core_v1.cpp / apiextensions_v1.cpp has each lifecycle
}

const api::ResourceTable& builtin_table() {
  static const api::ResourceTable k_table = [] {
    api::ResourceTable table;
    for (const auto& spec : builtin_kinds()) table.add(spec.info);
    return table;
  }();
  return k_table;
}

}  // namespace kw::kinds
