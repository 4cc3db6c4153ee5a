#pragma once
// What the admission plugins read, as kube-apiserver's plugins read their informers: the watch
// cache first, storage when the cache does not have it yet.
//
//   auto classes = admission::cached(registry, "storage.k8s.io", "v1", "storageclasses");
//   auto runtime_class = admission::cached_object(registry, "node.k8s.io", "v1", "runtimeclasses", "", name);
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/registry/registry.hpp"

namespace kw::admission {

// Every object of a resource (in `namespace_`, or all of them), from the watch cache; none when
// the resource is not served.
registry::ApiResult<std::vector<cache::ObjectPtr>> cached(registry::Registry& registry, const std::string& group,
                                                          const std::string& version, const std::string& plural,
                                                          const std::string& namespace_ = "");
// One object: the watch cache's, else storage's (an object created a moment ago); nullopt when
// it does not exist.
registry::ApiResult<std::optional<nlohmann::json>> cached_object(registry::Registry& registry, const std::string& group,
                                                                 const std::string& version, const std::string& plural,
                                                                 const std::string& namespace_, const std::string& name);

// Whether a request writes an object of `group`/`plural` itself (not a subresource) and carries it.
bool writes_object(const registry::AdmissionRequest& request, std::string_view group, std::string_view plural);

// kube's admission plugins' wrapping of an unexpected failure: 403 naming the object, with
// "Internal error occurred: WHY" (admission.NewForbidden of an InternalError).
registry::ApiError internal_forbidden(const registry::AdmissionRequest& request, const std::string& why);

}  // namespace kw::admission
