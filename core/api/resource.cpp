#include "core/api/resource.hpp"

#include <algorithm>
#include <cctype>

#include "core/util/text.hpp"

namespace kw::api {
namespace {

using util::iequals;

}  // namespace

std::string ResourceInfo::api_version() const { return group.empty() ? version : group + "/" + version; }
std::string ResourceInfo::group_version() const { return api_version(); }

GroupVersion split_api_version(std::string_view api_version) {
  const auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return {"", std::string(api_version)};
  return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
}

std::string go_group_version_kind(std::string_view api_version, std::string_view kind) {
  const auto gv = split_api_version(api_version);
  return gv.group + "/" + gv.version + ", Kind=" + std::string(kind);
}

bool ResourceInfo::has_subresource(std::string_view name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

void ResourceTable::add(ResourceInfo info) {
  remove(info.group, info.version, info.plural);
  m_resources.push_back(std::move(info));
}

bool ResourceTable::remove(std::string_view group, std::string_view version, std::string_view plural) {
  return std::erase_if(m_resources, [&](const ResourceInfo& r) {
           return r.group == group && r.version == version && r.plural == plural;
         }) > 0;
}

const ResourceInfo* ResourceTable::find_plural(std::string_view group, std::string_view version,
                                               std::string_view plural) const {
  for (const auto& r : m_resources)
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  return nullptr;
}

const ResourceInfo* ResourceTable::find_kind(std::string_view api_version, std::string_view kind) const {
  for (const auto& r : m_resources)
    if (r.kind == kind && r.api_version() == api_version) return &r;
  return nullptr;
}

const ResourceInfo* ResourceTable::resolve(std::string_view name) const {
  // "deployments.apps" or "deployments.v1.apps": a resource name qualified by [version.]group.
  std::string_view resource = name;
  std::string_view qualifier;
  if (auto dot = name.find('.'); dot != std::string_view::npos) {
    resource = name.substr(0, dot);
    qualifier = name.substr(dot + 1);
  }
  auto qualifier_matches = [&](const ResourceInfo& r) {
    if (qualifier.empty()) return true;
    return qualifier == r.group || qualifier == r.version + "." + r.group;
  };
  auto matches = [&](const ResourceInfo& r, auto&& pred) { return qualifier_matches(r) && pred(r); };
  const std::vector<std::function<bool(const ResourceInfo&)>> passes = {
      [&](const ResourceInfo& r) { return iequals(r.plural, resource); },
      [&](const ResourceInfo& r) { return iequals(r.singular, resource); },
      [&](const ResourceInfo& r) {
        return std::any_of(r.short_names.begin(), r.short_names.end(),
                           [&](const std::string& s) { return iequals(s, resource); });
      },
      [&](const ResourceInfo& r) { return iequals(r.kind, resource); },
  };
  for (const auto& pass : passes)
    for (const auto& r : m_resources)
      if (matches(r, pass)) return &r;
  return nullptr;
}

std::vector<std::string> ResourceTable::groups() const {
  std::vector<std::string> out;
  for (const auto& r : m_resources)
    if (std::find(out.begin(), out.end(), r.group) == out.end()) out.push_back(r.group);
  std::stable_partition(out.begin(), out.end(), [](const std::string& g) { return g.empty(); });
  return out;
}

std::vector<std::string> ResourceTable::versions(std::string_view group) const {
  std::vector<std::string> out;
  for (const auto& r : m_resources)
    if (r.group == group && std::find(out.begin(), out.end(), r.version) == out.end()) out.push_back(r.version);
  return out;
}

std::optional<std::string> meta_proto_message(std::string_view kind) {
  static constexpr std::pair<std::string_view, std::string_view> k_meta[] = {
      {"Status", "k8s.io.apimachinery.pkg.apis.meta.v1.Status"},
      {"WatchEvent", "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent"},
      {"APIResourceList", "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList"},
      {"APIGroupList", "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList"},
      {"APIGroup", "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroup"},
      {"APIVersions", "k8s.io.apimachinery.pkg.apis.meta.v1.APIVersions"},
      {"PartialObjectMetadata", "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata"},
      {"PartialObjectMetadataList", "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList"},
  };
  for (const auto& [name, message] : k_meta)
    if (name == kind) return std::string(message);
  return std::nullopt;  // Table has no protobuf form (+protobuf=false)
}

}  // namespace kw::api
