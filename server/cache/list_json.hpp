#pragma once
// A LIST answer built from the cache without re-encoding: each item's compact JSON is made
// once per stored object (StoredObject::json) and the list is their concatenation.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/cache/watcher.hpp"

namespace kw::cache {

// {"kind":kind,"apiVersion":api_version,"metadata":metadata,"items":[...]} as compact JSON,
// byte for byte what dumping the equivalent nlohmann::json would give.
std::string list_json(std::string_view kind, std::string_view api_version, const nlohmann::json& metadata,
                      const std::vector<ObjectPtr>& items);

}  // namespace kw::cache
