#pragma once
// One watch event as kube-apiserver streams it, one encoder per format, each built on the
// framer of its format (frame.hpp): the bytes returned are ready for the transport.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::codec {

// {"type":"ADDED","object":{...}} and '\n', from the object's compact JSON (type first, as
// kube-apiserver writes it).
std::string watch_event_json_encoded(std::string_view type, std::string_view object_json);
std::string watch_event_json(std::string_view type, const nlohmann::json& object);

// A YAML document "object: ..." / "type: ADDED" (sorted keys, as Kubernetes writes YAML),
// opened by "---".
std::string watch_event_yaml(std::string_view type, const nlohmann::json& object);

// A meta/v1 WatchEvent holding the object's protobuf envelope, length-prefixed unless the
// transport delimits messages itself (WebSocket). An object with no protobuf form becomes an
// ERROR event carrying a 500 Status that says why.
std::string watch_event_protobuf(std::string_view type, const nlohmann::json& object, bool message_framed);
// The same around an object already enveloped ("k8s\0" + runtime.Unknown).
std::string watch_event_protobuf_encoded(std::string_view type, std::string_view enveloped_object,
                                         bool message_framed);

}  // namespace kw::codec
