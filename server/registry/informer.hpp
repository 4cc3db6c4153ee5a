#pragma once
// An in-process watch of one resource: the server's own consumers (the RBAC policy, the
// ClusterRole aggregator) follow the objects of a kind through its watch cache, as client-go's
// informers follow them through the API, without a storage read per use.
//
//   auto informer = Informer::start(registry, *info, {
//       .replace = [&](const std::vector<cache::ObjectPtr>& all) { ... },   // the full state
//       .change = [&](cache::EventType type, const cache::ObjectPtr& o) { ... }});
//
// `replace` gets the whole state at start (before start() returns) and again after the cache
// relisted (a compacted or lost backend watch); `change` gets each later ADDED, MODIFIED and
// DELETED. Both run on the cache's dispatch thread, one at a time, and must be quick: take a
// lock, update a map, signal a worker.
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/api/resource.hpp"
#include "server/cache/watcher.hpp"
#include "server/registry/api_error.hpp"

namespace kw::registry {

class Registry;

struct InformerHandlers {
  std::function<void(const std::vector<cache::ObjectPtr>&)> replace;
  std::function<void(cache::EventType, const cache::ObjectPtr&)> change;
};

class Informer {
 public:
  // Watches `info` from its cache's current state; waits up to a minute for a cache that is
  // relisting or behind storage, and fails when the resource has no cache.
  static ApiResult<std::unique_ptr<Informer>> start(Registry& registry, const api::ResourceInfo& info,
                                                    InformerHandlers handlers);
  // Stops the watch; no handler runs once this returns.
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

 private:
  struct Feed;  // shared with the cache's sinks, which may outlive the informer
  Informer(Registry& registry, api::ResourceInfo info, std::shared_ptr<Feed> feed);
  ApiResult<void> watch_once();
  void restart_loop();

  Registry& m_registry;
  api::ResourceInfo m_info;
  std::shared_ptr<Feed> m_feed;
  std::thread m_restarter;  // re-watches after the cache closed the watch
};

}  // namespace kw::registry
