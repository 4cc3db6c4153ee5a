#pragma once
// Discovery for the client verbs: the resources a server serves (/api/v1 and every group's
// preferred version under /apis), cached per server under ~/.cache/kw/discovery for ten
// minutes, and a resolver that maps a typed name ("po", "deployments.apps") or an
// apiVersion+kind to a resource, trying the built-in table before the server, and that
// expands a category ("all") into its resources as kubectl does.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/client/api.hpp"
#include "cli/client/list.hpp"
#include "cli/commands/common.hpp"
#include "core/api/resource.hpp"

namespace kw::cli {

inline constexpr std::chrono::minutes k_discovery_cache_ttl{10};

// Every top-level resource (no subresources) the server lists in discovery, core group first.
VerbResult<std::vector<api::ResourceInfo>> fetch_discovery(ApiClient& api);

// The cache file of one server: <cache_root>/<host_port>/resources.json.
std::filesystem::path discovery_cache_file(const std::filesystem::path& cache_root, const std::string& server_url);
// $XDG_CACHE_HOME/kw/discovery or ~/.cache/kw/discovery ("" when neither is set).
std::filesystem::path default_discovery_cache_root();

// JSON form of the resource list, as the cache stores it.
nlohmann::json resources_to_json(const std::vector<api::ResourceInfo>& resources);
std::vector<api::ResourceInfo> resources_from_json(const nlohmann::json& document);

// Discovery through the cache: a fresh cached copy is used as is; otherwise (or with
// refresh) the server is asked and the cache rewritten. A cache that cannot be written is
// not an error.
VerbResult<std::vector<api::ResourceInfo>> cached_discovery(ApiClient& api, const std::filesystem::path& cache_root,
                                                           bool refresh);

// The resources whose discovery categories include `category` ("all", "api-extensions"), in
// the table's order, each group+resource once (the first version listed).
std::vector<const api::ResourceInfo*> category_members(const api::ResourceTable& table, std::string_view category);

// One TYPE argument of kw get against the built-in table and a server's discovered one: the
// resource of that name (plural, singular, short name or kind, built-in first), else the
// members of the category of that name in discovery order, each as its built-in row where
// the client has one. A resource name wins over a category of the same name, as in kubectl.
// Empty when neither table knows the name.
std::vector<api::ResourceInfo> resolve_type(const api::ResourceTable& builtin, const api::ResourceTable& discovered,
                                            std::string_view name);

// Name -> resource for the verbs: the built-in table first, then the server's discovery
// (cached; refreshed once on a miss so a just-created CRD is found).
class Resolver {
 public:
  explicit Resolver(ApiClient& api, std::filesystem::path cache_root = default_discovery_cache_root());

  // "pods", "po", "pod", "Pod", "deployments.apps"...
  VerbResult<api::ResourceInfo> resolve(const std::string& name);
  // A TYPE argument that may name a category: resolve_type() against the cached discovery,
  // then once more against a refreshed one.
  VerbResult<std::vector<api::ResourceInfo>> resolve_types(const std::string& name);
  // The resource of an object's apiVersion + kind.
  VerbResult<api::ResourceInfo> resolve_kind(const std::string& api_version, const std::string& kind);
  // The resource of a manifest's object, from the file `source`; when the server serves none,
  // kubectl's error naming the object and the file.
  VerbResult<api::ResourceInfo> resolve_manifest(const nlohmann::json& object, const std::string& source);
  // Whether the kind is one the client knows the patch strategy of (strategic merge patch);
  // other kinds (CRDs) get JSON merge patches, as kubectl does for unstructured objects.
  bool is_builtin(const api::ResourceInfo& info) const;

 private:
  // The resource of apiVersion + kind, nullptr when the server serves none.
  VerbResult<const api::ResourceInfo*> lookup_kind(const std::string& api_version, const std::string& kind);
  VerbResult<const api::ResourceTable*> discovered(bool refresh);

  ApiClient& m_api;
  std::filesystem::path m_cache_root;
  const api::ResourceTable& m_builtin;
  std::optional<api::ResourceTable> m_discovered;
  bool m_refreshed = false;
};

// "pod" / "deployment.apps": the resource part kubectl prints before "/name".
std::string kind_prefix(const api::ResourceInfo& info);
// "pods" / "deployments.apps": the group-qualified resource kubectl names in messages and in
// `api-resources -o name`.
std::string qualified_resource(const api::ResourceInfo& info);
// The KindInfo printers and the list helpers take.
KindInfo kind_info(const api::ResourceInfo& info);

}  // namespace kw::cli
