#include "core/codec/watch_event.hpp"

#include "core/codec/frame.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/yaml.hpp"

namespace kw::codec {

std::string watch_event_json_encoded(std::string_view type, std::string_view object_json) {
  std::string event;
  event.reserve(object_json.size() + type.size() + 24);  // with the framer's newline
  event += "{\"type\":\"";
  event += type;
  event += "\",\"object\":";
  event += object_json;
  event += '}';
  return frame_json(std::move(event));
}

std::string watch_event_json(std::string_view type, const nlohmann::json& object) {
  return watch_event_json_encoded(type, object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string watch_event_yaml(std::string_view type, const nlohmann::json& object) {
  // Keys in sorted order, as Kubernetes' YAML writer puts them: `type` last, so a reader knows
  // the event is complete when that line arrives.
  std::string doc = "object:\n";
  const std::string body = json_to_yaml(object);
  for (std::size_t start = 0; start < body.size();) {
    const auto end = body.find('\n', start);
    doc += "  ";
    doc.append(body, start, end == std::string::npos ? std::string::npos : end - start + 1);
    start = end == std::string::npos ? body.size() : end + 1;
  }
  if (!doc.ends_with('\n')) doc += '\n';
  doc += "type: ";
  doc += type;
  doc += '\n';
  return frame_yaml(doc, false);
}

std::string watch_event_protobuf_encoded(std::string_view type, std::string_view enveloped_object,
                                         bool message_framed) {
  std::string event = encode_watch_event_protobuf(type, enveloped_object);
  return message_framed ? event : frame_length_prefixed(event);
}

std::string watch_event_protobuf(std::string_view type, const nlohmann::json& object, bool message_framed) {
  auto frame = [message_framed](std::string event) {
    return message_framed ? event : frame_length_prefixed(event);
  };
  auto enveloped = encode_object_protobuf(object, builtin_message_for);
  if (enveloped) return watch_event_protobuf_encoded(type, *enveloped, message_framed);
  const nlohmann::json status = {{"kind", "Status"},
                                 {"apiVersion", "v1"},
                                 {"metadata", nlohmann::json::object()},
                                 {"status", "Failure"},
                                 {"reason", "InternalError"},
                                 {"code", 500},
                                 {"message", "cannot encode the event as protobuf: " + enveloped.error().message}};
  auto error = encode_object_protobuf(status, builtin_message_for);
  return frame(encode_watch_event_protobuf("ERROR", error ? *error : std::string()));
}

}  // namespace kw::codec
