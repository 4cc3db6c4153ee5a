#include "server/http/discovery.hpp"

namespace kw::http {
namespace {

nlohmann::json group_entry(const api::ResourceTable& table, const std::string& group) {
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : table.versions(group)) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions.empty() ? nlohmann::json() : versions[0]}};
}

}  // namespace

nlohmann::json api_versions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs", {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

nlohmann::json api_group_list(const api::ResourceTable& table) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : table.groups())
    if (!g.empty()) groups.push_back(group_entry(table, g));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

nlohmann::json api_group(const api::ResourceTable& table, const std::string& group) {
  if (table.versions(group).empty()) return nullptr;
  nlohmann::json out = group_entry(table, group);
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
      nlohmann::json verbs = sub == "finalize" ? nlohmann::json{"update"} : nlohmann::json{"get", "patch", "update"};
      resources.push_back({{"name", r.plural + "/" + sub},
                           {"singularName", ""},
                           {"namespaced", r.namespaced},
                           {"kind", sub == "scale" ? "Scale" : r.kind},
                           {"verbs", verbs}});
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
          {"minor", "30"},
          {"gitVersion", "v1.30.0-kw"},
          {"gitCommit", KW_GIT_COMMIT_STRING},
          {"gitTreeState", "clean"},
          {"buildDate", "1970-01-01T00:00:00Z"},
          {"goVersion", "n/a"},
          {"compiler", "gcc"},
          {"platform", "linux/amd64"}};
}

}  // namespace kw::http
