#pragma once
// The registry: per-resource storage strategy between the REST handlers and the backend —
// keys, validation, defaulting, server-set metadata, optimistic concurrency, namespaces —
// and one watch cache per resource serving reads and watches.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/codec/protobuf.hpp"
#include "server/cache/watch_cache.hpp"
#include "server/registry/api_error.hpp"
#include "server/storage/backend.hpp"

namespace kw::registry {

using SystemClock = std::function<std::chrono::system_clock::time_point()>;

struct RegistryOptions {
  std::string prefix = "/registry";
  std::chrono::seconds event_ttl{3600};
  SystemClock clock;  // defaults to system_clock::now
};

struct ListRequest {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;        // "", "0" or a revision
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  std::int64_t limit = 0;
  std::string continue_token;
};

struct ListResult {
  std::vector<cache::ObjectPtr> items;
  std::string resource_version;
  std::string continue_token;
  std::optional<std::int64_t> remaining;
};

struct WriteOptions {
  bool dry_run = false;
  std::string subresource;  // "" or "status"
  // Unknown fields of typed kinds: dropped silently, dropped with a warning, or refused.
  codec::FieldValidation field_validation = codec::FieldValidation::Warn;
  std::vector<std::string>* warnings = nullptr;  // where Warn's messages go (may be null)
};

class Registry {
 public:
  Registry(storage::Backend& backend, api::ResourceTable resources, RegistryOptions options);
  ~Registry();

  // Starts a watch cache per resource and creates the default namespaces.
  storage::Result<void> start();
  bool ready() const;
  const api::ResourceTable& resources() const { return m_resources; }

  ApiResult<nlohmann::json> create(const api::ResourceInfo& info, const std::string& ns, nlohmann::json object,
                                   const WriteOptions& options);
  ApiResult<nlohmann::json> update(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                   nlohmann::json object, const WriteOptions& options);
  // `mutate` turns the current object into the new one (patch); retried on conflicts.
  ApiResult<nlohmann::json> update_with(const api::ResourceInfo& info, const std::string& ns,
                                        const std::string& name,
                                        const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& mutate,
                                        const WriteOptions& options);
  // `delete_options` is a meta/v1 DeleteOptions (preconditions, dryRun...) or null.
  ApiResult<nlohmann::json> remove(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                   const nlohmann::json& delete_options, const WriteOptions& options);
  ApiResult<nlohmann::json> get(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                const std::string& resource_version);
  ApiResult<ListResult> list(const api::ResourceInfo& info, const ListRequest& request);

  // A watch filter for the selectors (400 on a bad selector or an unsupported field).
  ApiResult<cache::WatchFilter> make_filter(const api::ResourceInfo& info, const std::string& ns,
                                            const std::string& label_selector,
                                            const std::string& field_selector) const;
  cache::WatchCache* cache_for(const api::ResourceInfo& info);
  std::vector<std::pair<std::string, cache::CacheMetrics>> cache_metrics() const;

  std::string key_prefix(const api::ResourceInfo& info, const std::string& ns) const;

 private:
  std::string key(const api::ResourceInfo& info, const std::string& ns, const std::string& name) const;
  storage::Result<cache::ObjectPtr> decode(const api::ResourceInfo& info, const storage::KeyValue& kv) const;
  ApiResult<void> check_namespace(const api::ResourceInfo& info, const std::string& ns);
  ApiResult<nlohmann::json> remove_namespace(const api::ResourceInfo& info, const std::string& name,
                                             const nlohmann::json& delete_options, const WriteOptions& options);
  std::string now_rfc3339() const;
  // A typed object as its kind defines it: unknown fields dropped (with warnings) or
  // refused per options.field_validation; known fields kept exactly.
  ApiResult<nlohmann::json> normalize(const api::ResourceInfo& info, const nlohmann::json& object,
                                      const WriteOptions& options) const;

  storage::Backend& m_backend;
  api::ResourceTable m_resources;
  RegistryOptions m_options;
  mutable std::mutex m_caches_mutex;  // guards m_caches (the caches themselves are thread-safe)
  std::map<std::string, std::unique_ptr<cache::WatchCache>> m_caches;  // by key_prefix(info, "")
};

}  // namespace kw::registry
