#pragma once
// Kubernetes protobuf wire format (application/vnd.kubernetes.protobuf).
//
// Objects travel as the 4-byte magic "k8s\0" followed by a runtime.Unknown
// envelope {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType}
// whose raw bytes are the object's own message (Pod, Deployment, ...). Watch
// streams carry metav1.WatchEvent{type, object{raw}} with no magic around the
// event itself; object.raw holds the enveloped object. Length framing lives in
// frame.hpp, not here.
//
// JSON <-> protobuf transcoding is driven by the descriptors compiled into
// kw_proto (core/proto/registry.hpp), with Kubernetes' JSON mapping: JSON keys
// are the proto field names, or the json_name option where a .proto sets one
// ("$ref", "x-kubernetes-preserve-unknown-fields"); meta/v1 Time and MicroTime
// are RFC 3339 strings; Duration is a Go duration string; Quantity is its
// string; IntOrString is a JSON number or string; RawExtension and FieldsV1
// hold embedded JSON; apiextensions' JSON is any JSON value and its
// JSONSchemaPropsOr{Array,Bool,StringArray} a schema or an array or boolean;
// bytes fields are base64; 64-bit integers are JSON numbers, and integral
// doubles are written without a fraction, as Go writes a float64.
// Presence follows proto2: an absent field is omitted, a present empty string
// stays. Empty JSON arrays and maps cannot be told apart from absent ones on
// the wire and come back omitted, exactly as with kube-apiserver.
//
// Every function reports malformed input as an error value naming the field
// path (e.g. "spec.containers[0].ports[0].containerPort"); none throws.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::codec {

// The four bytes that open every enveloped protobuf object.
inline constexpr std::string_view k_protobuf_magic{"k8s\0", 4};

// What to do with JSON keys the target message does not have
// (the fieldValidation query parameter of kube-apiserver).
enum class FieldValidation { Ignore, Warn, Strict };

struct ProtobufEncoding {
  std::string bytes;
  // With FieldValidation::Warn: one message per dropped field, naming its path.
  std::vector<std::string> warnings;
};

// Encodes `object` as the message `message_full_name` (e.g. "k8s.io.api.core.v1.Pod").
// Top-level "apiVersion" and "kind" are skipped unless the message has such fields.
kw::Result<std::string> json_to_protobuf(const nlohmann::json& object, std::string_view message_full_name);
kw::Result<ProtobufEncoding> json_to_protobuf(const nlohmann::json& object, std::string_view message_full_name,
                                              FieldValidation validation);

// Decodes `bytes` (the bare message, no envelope) into Kubernetes JSON.
kw::Result<nlohmann::json> protobuf_to_json(std::string_view bytes, std::string_view message_full_name);

struct Envelope {
  std::string api_version;
  std::string kind;
  std::string raw;
};

// "k8s\0" + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}.
std::string encode_envelope(std::string_view api_version, std::string_view kind, std::string_view raw);
// Rejects data without the magic, unparsable envelopes and encoded (e.g. gzip) payloads.
kw::Result<Envelope> decode_envelope(std::string_view bytes);

// Maps (apiVersion, kind) to a proto message full name, or nullopt when unknown.
using ResourceLookup = std::function<std::optional<std::string>(std::string_view api_version, std::string_view kind)>;

// The protobuf package Kubernetes gives an API group version: "k8s.io.api.core.v1" for
// ("", "v1"), "k8s.io.api.rbac.v1" for ("rbac.authorization.k8s.io", "v1")...
std::string proto_package(std::string_view group, std::string_view version);
// The message of a kind (or its list) in its group version's package, when kw_proto
// carries it; Status is meta/v1's whatever the apiVersion. The compiled descriptors are
// the list: a kind whose .proto is compiled in needs no other entry.
std::optional<std::string> builtin_message_for(std::string_view api_version, std::string_view kind);

// JSON object with apiVersion/kind -> enveloped protobuf bytes.
kw::Result<std::string> encode_object_protobuf(const nlohmann::json& object, const ResourceLookup& lookup);
kw::Result<ProtobufEncoding> encode_object_protobuf(const nlohmann::json& object, const ResourceLookup& lookup,
                                                    FieldValidation validation);
// Enveloped protobuf bytes -> JSON object with apiVersion/kind restored.
kw::Result<nlohmann::json> decode_object_protobuf(std::string_view bytes, const ResourceLookup& lookup);
// The same, in the shape Go's JSON of the typed object has (fill_go_values of the message
// the envelope names): what a JSON answer from kube-apiserver would have held.
kw::Result<nlohmann::json> decode_object_protobuf_go_shaped(std::string_view bytes, const ResourceLookup& lookup);

struct WatchEventBytes {
  std::string type;
  std::string object;  // the enveloped object ("k8s\0" + Unknown)
};

// metav1.WatchEvent{type=1, object=2 RawExtension{raw=1}}, with no magic of its own.
std::string encode_watch_event_protobuf(std::string_view type, std::string_view enveloped_object);
kw::Result<WatchEventBytes> decode_watch_event_protobuf(std::string_view bytes);

}  // namespace kw::codec
