#pragma once
// What the admission plugins read (the watch caches, registry/lookup.hpp) and how they word
// what they find.
//
//   auto classes = admission::cached(registry, "storage.k8s.io", "v1", "storageclasses");
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/lookup.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

// The watch-cache reads (registry/lookup.hpp), under the names the plugins use.
using registry::cached;
using registry::cached_object;

// Whether a request writes an object of `group`/`plural` itself (not a subresource) and carries it.
bool writes_object(const registry::AdmissionRequest& request, std::string_view group, std::string_view plural);

// kube's admission plugins' wrapping of an unexpected failure: 403 naming the object, with
// "Internal error occurred: WHY" (admission.NewForbidden of an InternalError).
registry::ApiError internal_forbidden(const registry::AdmissionRequest& request, const std::string& why);

// The objects of a cluster-scoped resource by name, followed through its watch cache: `changed`
// gets the whole set once at start (before this returns) and again after every change, one
// call at a time on the cache's dispatch thread. Fails when the resource is not served.
using ObjectsByName = std::map<std::string, nlohmann::json>;
Result<std::unique_ptr<registry::Informer>> follow_by_name(registry::Registry& registry, const std::string& group,
                                                           const std::string& version, const std::string& plural,
                                                           std::function<void(const ObjectsByName&)> changed);

}  // namespace kw::admission
