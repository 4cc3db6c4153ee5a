#include "server/registry/stored_value.hpp"

#include "core/codec/protobuf.hpp"

namespace kw::registry {

namespace {

bool stored_as_protobuf(const api::ResourceInfo& info) { return !info.custom && !info.proto_message.empty(); }

}  // namespace

kw::Result<std::string> encode_stored(const api::ResourceInfo& info, const nlohmann::json& object) {
  if (!stored_as_protobuf(info)) return object.dump();
  auto message = codec::json_to_protobuf(object, info.proto_message);
  if (!message) return kw::fail("cannot encode the " + info.kind + " for storage: " + message.error().message);
  return codec::encode_envelope(info.api_version(), info.kind, *message);
}

kw::Result<nlohmann::json> decode_stored(const api::ResourceInfo& info, std::string_view value) {
  if (value.starts_with(codec::k_protobuf_magic)) {
    auto envelope = codec::decode_envelope(value);
    if (!envelope) return kw::fail("stored protobuf: " + envelope.error().message);
    std::optional<std::string> message;
    if (envelope->kind == info.kind && envelope->api_version == info.api_version() && !info.proto_message.empty())
      message = info.proto_message;
    else
      message = codec::builtin_message_for(envelope->api_version, envelope->kind);
    if (!message) return kw::fail("stored protobuf of unknown type " + envelope->api_version + " " + envelope->kind);
    auto object = codec::protobuf_to_json(envelope->raw, *message);
    if (!object) return kw::fail("stored protobuf: " + object.error().message);
    if (!object->is_object()) return kw::fail("stored protobuf is not an object");
    (*object)["apiVersion"] = envelope->api_version;
    (*object)["kind"] = envelope->kind;
    return object;
  }
  auto object = nlohmann::json::parse(value, nullptr, false);
  if (!object.is_object()) return kw::fail("stored value is neither an enveloped protobuf nor a JSON object");
  return object;
}

}  // namespace kw::registry
