#pragma once
// What the controllers kw runs itself do with an informer when they treat every object alike:
// each object of the state (at start, and again after the cache relisted) is passed on as ADDED,
// then every change as it comes. The informer is kept in `informers`.
//
//   follow(registry, pods, [&](cache::EventType type, const cache::StoredObject& o) { queue.add(o.name); }, informers);
#include <functional>
#include <memory>
#include <vector>

#include "core/util/error.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

using ObjectEvent = std::function<void(cache::EventType, const cache::StoredObject&)>;

Result<void> follow(registry::Registry& registry, const api::ResourceInfo& info, ObjectEvent on,
                    std::vector<std::unique_ptr<registry::Informer>>& informers);

}  // namespace kw::control
