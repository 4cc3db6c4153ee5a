#pragma once
// LIST answers built from the cache without re-encoding: each item's compact JSON is made
// once per stored object (StoredObject::json), its protobuf message comes from the stored
// bytes (StoredObject::protobuf), and the list is their concatenation.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/codec/protobuf_wire.hpp"
#include "core/util/error.hpp"
#include "server/cache/watcher.hpp"

namespace kw::cache {

// {"kind":kind,"apiVersion":api_version,"metadata":metadata,"items":[...]} as compact JSON,
// byte for byte what dumping the equivalent nlohmann::json would give.
std::string list_json(std::string_view kind, std::string_view api_version, const nlohmann::json& metadata,
                      const std::vector<ObjectPtr>& items);

// The object's stored message in its envelope ("k8s\0" + runtime.Unknown with its apiVersion
// and kind), as a GET or a watch event carries it; `object.protobuf` must be set.
std::string enveloped_protobuf(const StoredObject& object);

// The same list as enveloped protobuf. An item without a stored message is encoded from its
// object as `message` (an error when that fails).
kw::Result<std::string> list_protobuf(std::string_view kind, std::string_view api_version,
                                      const codec::ListMetaFields& metadata, const std::vector<ObjectPtr>& items,
                                      std::string_view message);

}  // namespace kw::cache
