// The Kubernetes protobuf codec (core/codec/protobuf.hpp) on arbitrary bytes: the envelope,
// watch events and the descriptor-driven transcoding of a few built-in kinds. Nothing may
// crash; a message that decodes to JSON must encode back, and decoding that encoding gives the
// same JSON (the JSON a message decodes to is the codec's fixed point).
//
// Input: byte 0 picks the kind (low 4 bits) and the mode (high bits): the rest is the kind's
// bare message, an enveloped object, a watch event, or JSON to encode as the kind.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/codec/json_limits.hpp"
#include "core/codec/protobuf.hpp"

namespace {

using nlohmann::json;
namespace codec = kw::codec;

struct Kind {
  std::string_view api_version;
  std::string_view kind;
};

// Kinds chosen for the shapes of their messages: maps, bytes, IntOrString, Quantity, times,
// embedded JSON (RawExtension, apiextensions' JSON schemas), lists and meta/v1's Status.
constexpr Kind k_kinds[] = {
    {"v1", "Pod"},
    {"apps/v1", "Deployment"},
    {"v1", "ConfigMap"},
    {"v1", "Secret"},
    {"v1", "Service"},
    {"v1", "Node"},
    {"v1", "Event"},
    {"events.k8s.io/v1", "Event"},
    {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
    {"rbac.authorization.k8s.io/v1", "ClusterRole"},
    {"batch/v1", "CronJob"},
    {"apps/v1", "ControllerRevision"},
    {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"},
    {"v1", "PodList"},
    {"v1", "Status"},
    {"v1", "APIResourceList"},
};

const codec::ResourceLookup k_lookup = [](std::string_view api_version, std::string_view kind) {
  return codec::builtin_message_for(api_version, kind);
};

void check(bool ok) {
  if (!ok) std::abort();
}

// `value` without its null members, at any depth. A member set to null is absent to the
// encoder, while a message present on the wire but empty (a RawExtension without raw) decodes
// to null, as Go prints it; the two are the same object.
json without_null_members(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const auto& item : value) out.push_back(without_null_members(item));
    return out;
  }
  if (!value.is_object()) return value;
  json out = json::object();
  for (const auto& [key, member] : value.items())
    if (!member.is_null()) out[key] = without_null_members(member);
  return out;
}

// A time past year 9999 or before year 0 decodes as Go's metav1.Time prints it
// ("72743-02-03T04:56:31Z"): no RFC 3339 time, and neither Go nor kw reads it back.
bool unreadable_time(const kw::Error& error) { return error.message.find("invalid RFC 3339 time") != std::string::npos; }

// `decoded` came out of the codec as `message`: it encodes (unless it holds an unreadable
// time), and the encoding decodes to it.
void check_fixed_point(const json& decoded, const std::string& message) {
  auto encoded = codec::json_to_protobuf(decoded, message, codec::FieldValidation::Strict);
  if (!encoded && unreadable_time(encoded.error())) return;
  check(encoded.has_value() && encoded->warnings.empty());
  auto again = codec::protobuf_to_json(encoded->bytes, message);
  check(again.has_value() && without_null_members(*again) == without_null_members(decoded));
}

void fuzz_message(std::string_view bytes, const std::string& message) {
  auto decoded = codec::protobuf_to_json(bytes, message);
  if (!decoded) return check(!decoded.error().message.empty());
  check_fixed_point(*decoded, message);
}

void fuzz_enveloped(std::string_view bytes) {
  auto decoded = codec::decode_object_protobuf(bytes, k_lookup);
  if (!decoded) return check(!decoded.error().message.empty());
  auto encoded = codec::encode_object_protobuf(*decoded, k_lookup);
  if (!encoded && unreadable_time(encoded.error())) return;
  check(encoded.has_value());
  auto again = codec::decode_object_protobuf(*encoded, k_lookup);
  check(again.has_value() && without_null_members(*again) == without_null_members(*decoded));
}

void fuzz_watch_event(std::string_view bytes) {
  auto event = codec::decode_watch_event_protobuf(bytes);
  if (!event) return check(!event.error().message.empty());
  check(!event->type.empty());
  auto again = codec::decode_watch_event_protobuf(codec::encode_watch_event_protobuf(event->type, event->object));
  check(again && again->type == event->type && again->object == event->object);
  fuzz_enveloped(event->object);
}

void fuzz_json(std::string_view text, const std::string& message) {
  auto parsed = codec::parse_json(text);
  if (!parsed) return;
  auto encoded = codec::json_to_protobuf(*parsed, message, codec::FieldValidation::Warn);
  if (!encoded) return check(!encoded.error().message.empty());
  auto decoded = codec::protobuf_to_json(encoded->bytes, message);
  check(decoded.has_value());
  check_fixed_point(*decoded, message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Kind& kind = k_kinds[data[0] % std::size(k_kinds)];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto message = codec::builtin_message_for(kind.api_version, kind.kind);
  check(message.has_value());
  switch (data[0] >> 6) {
    case 0: fuzz_message(input, *message); break;
    case 1: fuzz_enveloped(input); break;
    case 2: fuzz_watch_event(input); break;
    default: fuzz_json(input, *message); break;
  }
  return 0;
}
