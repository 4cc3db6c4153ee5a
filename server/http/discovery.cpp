#include "server/http/discovery.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "core/codec/media_type.hpp"
#include "server/http/handlers/handlers.hpp"

namespace kw::http {
namespace {

// The kind a subresource answers with when it is not the resource's own: {group, version, kind}.
struct SubresourceKind {
  std::string group, version, kind;
};
std::optional<SubresourceKind> foreign_kind(const std::string& sub) {
  if (sub == "scale") return SubresourceKind{"autoscaling", "v1", "Scale"};
  if (sub == "eviction") return SubresourceKind{"policy", "v1", "Eviction"};
  if (sub == "binding") return SubresourceKind{"", "v1", "Binding"};
  if (sub == "token") return SubresourceKind{"authentication.k8s.io", "v1", "TokenRequest"};
  return std::nullopt;
}

nlohmann::json group_entry(const api::ResourceTable& table, const std::string& group) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : table.versions(group)) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions.empty() ? nlohmann::json() : versions[0]}};
}

nlohmann::json remote_group_entry(const aggregator::RemoteGroup& group) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& [version, resources] : group.versions)
    versions.push_back({{"groupVersion", group.name + "/" + version}, {"version", version}});
  return {{"name", group.name}, {"versions", versions}, {"preferredVersion", versions.empty() ? nlohmann::json() : versions[0]}};
}

}  // namespace

nlohmann::json api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json api_group_list(const api::ResourceTable& table, const std::vector<aggregator::RemoteGroup>& remote) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : table.groups())
    if (!g.empty()) groups.push_back(group_entry(table, g));
  for (const auto& g : remote)
    if (table.versions(g.name).empty()) groups.push_back(remote_group_entry(g));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

nlohmann::json api_group(const api::ResourceTable& table, const std::string& group,
                         const std::vector<aggregator::RemoteGroup>& remote) {
  nlohmann::json out;
  if (!table.versions(group).empty()) {
    out = group_entry(table, group);
  } else {
    auto it = std::ranges::find_if(remote, [&](const aggregator::RemoteGroup& g) { return g.name == group; });
    if (it == remote.end()) return nullptr;
    out = remote_group_entry(*it);
  }
  out["kind"] = "APIGroup";
  out["apiVersion"] = "v1";
  return out;
}

nlohmann::json api_resource_list(const api::ResourceTable& table, const std::string& group,
                                 const std::string& version) {
  nlohmann::json resources = nlohmann::json::array();
  bool any = false;
  for (const auto& r : table.all()) {
    if (r.group != group || r.version != version) continue;
    any = true;
    nlohmann::json entry = {{"name", r.plural},     {"singularName", r.singular}, {"namespaced", r.namespaced},
                            {"kind", r.kind},       {"verbs", r.verbs}};
    if (!r.short_names.empty()) entry["shortNames"] = r.short_names;
    if (!r.categories.empty()) entry["categories"] = r.categories;
    resources.push_back(entry);
    for (const auto& sub : r.subresources) {
      nlohmann::json entry = {{"name", r.plural + "/" + sub}, {"singularName", ""}, {"namespaced", r.namespaced}};
      if (const auto other = foreign_kind(sub)) {
        if (!other->group.empty()) entry["group"] = other->group;
        entry["version"] = other->version;
        entry["kind"] = other->kind;
      } else {
        entry["kind"] = r.kind;
      }
      entry["verbs"] = handlers::subresource_verbs(sub);
      resources.push_back(std::move(entry));
    }
  }
  if (!any) return nullptr;
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

nlohmann::json version_info() {
  return {{"major", "1"},
          {"minor", "33"},
          {"gitVersion", "v1.33.0-kw"},
          {"gitCommit", KW_GIT_COMMIT_STRING},
          {"gitTreeState", "clean"},
          {"buildDate", "1970-01-01T00:00:00Z"},
          {"goVersion", "n/a"},
          {"compiler", "gcc"},
          {"platform", "linux/amd64"}};
}

namespace {

nlohmann::json group_version_kind(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

nlohmann::json resource_discovery(const api::ResourceInfo& r) {
  nlohmann::json entry = {{"resource", r.plural},
                          {"responseKind", group_version_kind(r.group, r.version, r.kind)},
                          {"scope", r.namespaced ? "Namespaced" : "Cluster"},
                          {"singularResource", r.singular},
                          {"verbs", r.verbs}};
  if (!r.short_names.empty()) entry["shortNames"] = r.short_names;
  if (!r.categories.empty()) entry["categories"] = r.categories;
  nlohmann::json subresources = nlohmann::json::array();
  for (const auto& sub : r.subresources) {
    subresources.push_back(
        {{"subresource", sub},
         {"responseKind", foreign_kind(sub) ? group_version_kind(foreign_kind(sub)->group, foreign_kind(sub)->version,
                                                                 foreign_kind(sub)->kind)
                                            : group_version_kind(r.group, r.version, r.kind)},
         {"verbs", handlers::subresource_verbs(sub)}});
  }
  if (!subresources.empty()) entry["subresources"] = std::move(subresources);
  return entry;
}

nlohmann::json group_discovery(const api::ResourceTable& table, const std::string& group) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& version : table.versions(group)) {
    nlohmann::json resources = nlohmann::json::array();
    for (const auto& r : table.all())
      if (r.group == group && r.version == version) resources.push_back(resource_discovery(r));
    versions.push_back({{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  nlohmann::json meta = {{"creationTimestamp", nullptr}};
  if (!group.empty()) meta["name"] = group;
  return {{"metadata", std::move(meta)}, {"versions", std::move(versions)}};
}

// A remote group version as aggregated discovery lists it, from the APIResourceList its server
// answered: subresources ("nodes/status") folded into their resource. Stale until first listed.
nlohmann::json remote_group_discovery(const aggregator::RemoteGroup& group) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& [version, list] : group.versions) {
    nlohmann::json resources = nlohmann::json::array();
    const auto entries = list.is_object() ? list.value("resources", nlohmann::json::array()) : nlohmann::json::array();
    for (const auto& r : entries) {
      const std::string name = r.value("name", std::string());
      if (name.empty() || name.find('/') != std::string::npos) continue;
      nlohmann::json entry = {{"resource", name},
                              {"responseKind", group_version_kind(r.value("group", group.name),
                                                                  r.value("version", version), r.value("kind", ""))},
                              {"scope", r.value("namespaced", false) ? "Namespaced" : "Cluster"},
                              {"singularResource", r.value("singularName", "")},
                              {"verbs", r.value("verbs", nlohmann::json::array())}};
      for (const char* key : {"shortNames", "categories"})
        if (r.contains(key)) entry[key] = r[key];
      nlohmann::json subresources = nlohmann::json::array();
      for (const auto& sub : entries) {
        const std::string sub_name = sub.value("name", std::string());
        if (!sub_name.starts_with(name + "/")) continue;
        subresources.push_back({{"subresource", sub_name.substr(name.size() + 1)},
                                {"responseKind", group_version_kind(sub.value("group", group.name),
                                                                    sub.value("version", version), sub.value("kind", ""))},
                                {"verbs", sub.value("verbs", nlohmann::json::array())}});
      }
      if (!subresources.empty()) entry["subresources"] = std::move(subresources);
      resources.push_back(std::move(entry));
    }
    versions.push_back({{"version", version},
                        {"resources", std::move(resources)},
                        {"freshness", list.is_object() ? "Current" : "Stale"}});
  }
  return {{"metadata", {{"creationTimestamp", nullptr}, {"name", group.name}}}, {"versions", std::move(versions)}};
}

}  // namespace

nlohmann::json aggregated_discovery(const api::ResourceTable& table, bool core, const std::string& api_version,
                                    const std::vector<aggregator::RemoteGroup>& remote) {
  nlohmann::json items = nlohmann::json::array();
  if (core) {
    items.push_back(group_discovery(table, ""));
  } else {
    for (const auto& group : table.groups())
      if (!group.empty()) items.push_back(group_discovery(table, group));
    for (const auto& group : remote)
      if (table.versions(group.name).empty()) items.push_back(remote_group_discovery(group));
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", api_version},
          {"metadata", nlohmann::json::object()},
          {"items", std::move(items)}};
}

std::string aggregated_discovery_wanted(const std::string* accept) {
  if (!accept) return "";
  auto ranges = codec::parse_accept(*accept);
  if (!ranges) return "";
  for (const auto& range : *ranges) {
    const auto* group = range.param("g");
    const auto* version = range.param("v");
    const auto* as = range.param("as");
    if (range.q <= 0 || !group || !version || !as) continue;
    if (range.essence() != "application/json" || *group != "apidiscovery.k8s.io" || *as != "APIGroupDiscoveryList")
      continue;
    if (*version == "v2" || *version == "v2beta1") return *version;
  }
  return "";
}

}  // namespace kw::http
