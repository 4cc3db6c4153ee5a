#include "server/registry/stored_value.hpp"

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/codec/protobuf_wire.hpp"
#include "core/proto/registry.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::registry {

namespace {

// Built-in kinds with a message, except the rows kube-apiserver keeps as JSON (CRDs).
bool stored_as_protobuf(const api::ResourceInfo& info) {
  if (info.custom || info.proto_message.empty()) return false;
  const auto* spec = kinds::find_kind(info);
  return spec == nullptr || !spec->stored_as_json;
}

// Set when the row's objects are stored as another version of the kind.
const kinds::StoredAs* stored_as_of(const api::ResourceInfo& info) {
  const auto* spec = kinds::find_kind(info);
  return spec && spec->stored_as ? &*spec->stored_as : nullptr;
}

}  // namespace

kw::Result<std::string> encode_stored(const api::ResourceInfo& info, const nlohmann::json& object) {
  if (!stored_as_protobuf(info)) return object.dump();
  const kinds::StoredAs* stored_as = stored_as_of(info);
  if (stored_as == nullptr) {
    auto message = codec::json_to_protobuf(object, info.proto_message);
    if (!message) return kw::fail("cannot encode the " + info.kind + " for storage: " + message.error().message);
    return codec::encode_envelope(info.api_version(), info.kind, *message);
  }
  nlohmann::json converted = object;
  if (stored_as->to_stored) stored_as->to_stored(converted);
  converted["apiVersion"] = stored_as->api_version;
  const auto name = codec::builtin_message_for(stored_as->api_version, info.kind);
  if (!name) return kw::fail("no protobuf message for the stored version " + stored_as->api_version + " " + info.kind);
  auto message = codec::json_to_protobuf(converted, *name);
  if (!message) return kw::fail("cannot encode the " + info.kind + " for storage: " + message.error().message);
  return codec::encode_envelope(stored_as->api_version, info.kind, *message);
}

namespace {

void drop_nulls(nlohmann::json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        drop_nulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (auto& item : value) drop_nulls(item);
  }
}

}  // namespace

void fill_go_shape(const api::ResourceInfo& info, nlohmann::json& object) {
  if (info.custom || info.proto_message.empty()) return;
  // Nulls go by the kind's message, which keeps those in embedded JSON (a ControllerRevision's
  // data is compared byte for byte by its controllers).
  if (const auto* message = proto::find_message(info.proto_message)) codec::fill_go_values(object, *message);
  else drop_nulls(object);
}

std::string served_protobuf(const api::ResourceInfo& info, std::string_view value, std::int64_t revision) {
  if (!stored_as_protobuf(info) || !value.starts_with(codec::k_protobuf_magic)) return {};
  auto envelope = codec::decode_envelope(value);
  if (!envelope || envelope->kind != info.kind || envelope->api_version != info.api_version()) return {};
  auto served = codec::with_resource_version(envelope->raw, std::to_string(revision));
  return served ? std::move(*served) : std::string();
}

void convert_builtin(const api::ResourceInfo& from, const api::ResourceInfo& to, nlohmann::json& object) {
  if (const kinds::StoredAs* stored_as = stored_as_of(from); stored_as != nullptr && stored_as->to_stored)
    stored_as->to_stored(object);
  if (const kinds::StoredAs* stored_as = stored_as_of(to); stored_as != nullptr && stored_as->from_stored)
    stored_as->from_stored(object);
  object["apiVersion"] = to.api_version();
  object["kind"] = to.kind;
  fill_go_shape(to, object);
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
    if (const kinds::StoredAs* stored_as = stored_as_of(info);
        stored_as != nullptr && envelope->api_version == stored_as->api_version) {
      if (stored_as->from_stored) stored_as->from_stored(*object);
      (*object)["apiVersion"] = info.api_version();
    }
    fill_go_shape(info, *object);
    return object;
  }
  auto object = nlohmann::json::parse(value, nullptr, false);
  if (!object.is_object()) return kw::fail("stored value is neither an enveloped protobuf nor a JSON object");
  fill_go_shape(info, object);
  return object;
}

}  // namespace kw::registry
