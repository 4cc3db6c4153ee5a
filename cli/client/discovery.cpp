// Discovery documents -> resources, the on-disk cache, category expansion, and the name
// resolver of the verbs.
#include "cli/client/discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

#include "cli/commands/common.hpp"
#include "core/api/json_access.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> strings_of(const json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& value : list)
      if (value.is_string()) out.push_back(value.get<std::string>());
  return out;
}

// The resources of one APIResourceList (group "" for the core group).
void add_resource_list(const json& list, const std::string& group, const std::string& version,
                       std::vector<api::ResourceInfo>& out) {
  if (!list.contains("resources") || !list["resources"].is_array()) return;
  for (const auto& entry : list["resources"]) {
    const std::string name = entry.value("name", "");
    if (name.empty() || name.find('/') != std::string::npos) continue;
    api::ResourceInfo info;
    info.group = group;
    info.version = version;
    info.plural = name;
    info.kind = entry.value("kind", "");
    info.singular = entry.value("singularName", "");
    if (info.singular.empty()) info.singular = util::to_lower(info.kind);
    info.list_kind = info.kind + "List";
    info.namespaced = entry.value("namespaced", false);
    info.verbs = strings_of(entry.value("verbs", json::array()));
    info.short_names = strings_of(entry.value("shortNames", json::array()));
    info.categories = strings_of(entry.value("categories", json::array()));
    out.push_back(std::move(info));
  }
}

VerbResult<json> get_json(ApiClient& api, const std::string& path) {
  return call_json(api, "GET", path, {}, {});
}

std::string sanitize_host(const std::string& url) {
  std::string out;
  std::string_view rest = url;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) rest.remove_prefix(scheme + 3);
  for (char c : rest) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-';
    out.push_back(keep ? c : '_');
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? std::string("default") : out;
}

}  // namespace

VerbResult<std::vector<api::ResourceInfo>> fetch_discovery(ApiClient& api) {
  std::vector<api::ResourceInfo> out;
  auto core = get_json(api, "/api/v1");
  if (!core) return std::unexpected(core.error());
  add_resource_list(*core, "", "v1", out);
  auto groups = get_json(api, "/apis");
  if (!groups) return std::unexpected(groups.error());
  for (const auto& group : groups->value("groups", json::array())) {
    const std::string name = group.value("name", "");
    json preferred = group.value("preferredVersion", json::object());
    std::string group_version = preferred.is_object() ? preferred.value("groupVersion", "") : std::string();
    std::string version = preferred.is_object() ? preferred.value("version", "") : std::string();
    if (group_version.empty()) {
      const json versions = group.value("versions", json::array());
      if (!versions.is_array() || versions.empty()) continue;
      group_version = versions[0].value("groupVersion", "");
      version = versions[0].value("version", "");
    }
    auto list = get_json(api, "/apis/" + group_version);
    if (!list) return std::unexpected(list.error());
    add_resource_list(*list, name, version, out);
  }
  return out;
}

fs::path default_discovery_cache_root() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return fs::path(xdg) / "kw" / "discovery";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fs::path(home) / ".cache" / "kw" / "discovery";
  return {};
}

fs::path discovery_cache_file(const fs::path& cache_root, const std::string& server_url) {
  return cache_root / sanitize_host(server_url) / "resources.json";
}

json resources_to_json(const std::vector<api::ResourceInfo>& resources) {
  json out = json::array();
  for (const auto& r : resources)
    out.push_back({{"group", r.group},
                   {"version", r.version},
                   {"name", r.plural},
                   {"singularName", r.singular},
                   {"kind", r.kind},
                   {"namespaced", r.namespaced},
                   {"verbs", r.verbs},
                   {"shortNames", r.short_names},
                   {"categories", r.categories}});
  return out;
}

std::vector<api::ResourceInfo> resources_from_json(const json& document) {
  std::vector<api::ResourceInfo> out;
  if (!document.is_array()) return out;
  for (const auto& entry : document) {
    if (!entry.is_object()) continue;
    json list = {{"resources", json::array({entry})}};
    add_resource_list(list, entry.value("group", ""), entry.value("version", ""), out);
  }
  return out;
}

VerbResult<std::vector<api::ResourceInfo>> cached_discovery(ApiClient& api, const fs::path& cache_root, bool refresh) {
  const fs::path file = cache_root.empty() ? fs::path() : discovery_cache_file(cache_root, api.config().server);
  std::error_code ec;
  if (!refresh && !file.empty() && fs::exists(file, ec)) {
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(file, ec);
    if (!ec && age < k_discovery_cache_ttl && age > -k_discovery_cache_ttl) {
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      auto document = json::parse(text.str(), nullptr, false);
      auto resources = resources_from_json(document);
      if (!resources.empty()) return resources;
    }
  }
  auto resources = fetch_discovery(api);
  if (!resources) return resources;
  if (!file.empty()) {
    fs::create_directories(file.parent_path(), ec);
    const fs::path temporary = file.string() + ".tmp";
    {
      std::ofstream out(temporary);
      out << resources_to_json(*resources).dump() << '\n';
    }
    fs::rename(temporary, file, ec);
  }
  return resources;
}

std::vector<const api::ResourceInfo*> category_members(const api::ResourceTable& table, std::string_view category) {
  std::vector<const api::ResourceInfo*> out;
  for (const auto& r : table.all()) {
    if (std::find(r.categories.begin(), r.categories.end(), category) == r.categories.end()) continue;
    const bool listed = std::any_of(out.begin(), out.end(), [&](const api::ResourceInfo* member) {
      return member->group == r.group && member->plural == r.plural;
    });
    if (!listed) out.push_back(&r);
  }
  return out;
}

std::vector<api::ResourceInfo> resolve_type(const api::ResourceTable& builtin, const api::ResourceTable& discovered,
                                            std::string_view name) {
  if (const auto* info = builtin.resolve(name)) return {*info};
  if (const auto* info = discovered.resolve(name)) return {*info};
  std::vector<api::ResourceInfo> out;
  for (const auto* member : category_members(discovered, name)) {
    const auto* own = builtin.find_plural(member->group, member->version, member->plural);
    out.push_back(own != nullptr ? *own : *member);
  }
  return out;
}

Resolver::Resolver(ApiClient& api, fs::path cache_root)
    : m_api(api), m_cache_root(std::move(cache_root)), m_builtin(kinds::builtin_table()) {}

VerbResult<const api::ResourceTable*> Resolver::discovered(bool refresh) {
  if (m_discovered && !refresh) return &*m_discovered;
  if (refresh) {
    if (m_refreshed) return &*m_discovered;
    m_refreshed = true;
  }
  auto resources = cached_discovery(m_api, m_cache_root, refresh);
  if (!resources) return std::unexpected(resources.error());
  api::ResourceTable table;
  for (auto& r : *resources) table.add(std::move(r));
  m_discovered = std::move(table);
  return &*m_discovered;
}

VerbResult<api::ResourceInfo> Resolver::resolve(const std::string& name) {
  if (const auto* info = m_builtin.resolve(name)) return *info;
  for (bool refresh : {false, true}) {
    auto table = discovered(refresh);
    if (!table) return std::unexpected(table.error());
    if (const auto* info = (*table)->resolve(name)) return *info;
  }
  return std::unexpected(usage_error("the server doesn't have a resource type \"" + name + "\""));
}

VerbResult<std::vector<api::ResourceInfo>> Resolver::resolve_types(const std::string& name) {
  if (const auto* info = m_builtin.resolve(name)) return std::vector<api::ResourceInfo>{*info};
  for (bool refresh : {false, true}) {
    auto table = discovered(refresh);
    if (!table) return std::unexpected(table.error());
    auto resolved = resolve_type(m_builtin, **table, name);
    if (!resolved.empty()) return resolved;
  }
  return std::unexpected(usage_error("the server doesn't have a resource type \"" + name + "\""));
}

VerbResult<const api::ResourceInfo*> Resolver::lookup_kind(const std::string& api_version, const std::string& kind) {
  if (const auto* info = m_builtin.find_kind(api_version, kind)) return info;
  for (bool refresh : {false, true}) {
    auto table = discovered(refresh);
    if (!table) return std::unexpected(table.error());
    if (const auto* info = (*table)->find_kind(api_version, kind)) return info;
  }
  return nullptr;
}

VerbResult<api::ResourceInfo> Resolver::resolve_kind(const std::string& api_version, const std::string& kind) {
  auto found = lookup_kind(api_version, kind);
  if (!found) return std::unexpected(found.error());
  if (*found != nullptr) return **found;
  return std::unexpected(usage_error("resource mapping not found for kind \"" + kind + "\" in version \"" +
                                     api_version + "\"; ensure CRDs are installed first"));
}

VerbResult<api::ResourceInfo> Resolver::resolve_manifest(const nlohmann::json& object, const std::string& source) {
  const std::string api_version = api::str(api::at(object, {"apiVersion"}));
  const std::string kind = api::str(api::at(object, {"kind"}));
  auto found = lookup_kind(api_version, kind);
  if (!found) return std::unexpected(found.error());
  if (*found != nullptr) return **found;
  return std::unexpected(usage_error(
      "resource mapping not found for name: " + util::go_quote(api::str(api::at(object, {"metadata", "name"}))) +
      " namespace: " + util::go_quote(api::str(api::at(object, {"metadata", "namespace"}))) + " from " +
      util::go_quote(source) + ": no matches for kind " + util::go_quote(kind) + " in version " +
      util::go_quote(api_version) + "\nensure CRDs are installed first"));
}

bool Resolver::is_builtin(const api::ResourceInfo& info) const {
  return m_builtin.find_plural(info.group, info.version, info.plural) != nullptr;
}

std::string kind_prefix(const api::ResourceInfo& info) {
  const std::string lower = util::to_lower(info.kind);
  return info.group.empty() ? lower : lower + "." + info.group;
}

std::string qualified_resource(const api::ResourceInfo& info) {
  return info.group.empty() ? info.plural : info.plural + "." + info.group;
}

KindInfo kind_info(const api::ResourceInfo& info) {
  return KindInfo{&info, info.kind, info.group, info.api_version(), info.columns};
}

}  // namespace kw::cli
