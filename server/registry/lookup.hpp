#pragma once
// What the server's own consumers (admission plugins, the webhook and aggregator clients) read,
// as kube-apiserver's plugins read their informers: the watch cache first, storage when the
// cache does not have it yet.
//
//   auto classes = registry::cached(registry, "storage.k8s.io", "v1", "storageclasses");
//   auto runtime_class = registry::cached_object(registry, "node.k8s.io", "v1", "runtimeclasses", "", name);
#include <optional>
#include <string>
#include <vector>

#include "server/registry/registry.hpp"

namespace kw::registry {

// Every object of a resource (in `namespace_`, or all of them), from the watch cache; none when
// the resource is not served.
ApiResult<std::vector<cache::ObjectPtr>> cached(Registry& registry, const std::string& group, const std::string& version,
                                                const std::string& plural, const std::string& namespace_ = "");
// One object: the watch cache's, else storage's (an object created a moment ago); nullopt when
// it does not exist.
ApiResult<std::optional<nlohmann::json>> cached_object(Registry& registry, const std::string& group,
                                                       const std::string& version, const std::string& plural,
                                                       const std::string& namespace_, const std::string& name);

}  // namespace kw::registry
