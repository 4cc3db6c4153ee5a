#pragma once
// Where Kubernetes' JSON form of a wire message departs from "an object of its
// fields": the few meta/v1, resource, intstr, runtime and apiextensions messages
// with a JSON form of their own, the Go structs embedded with `json:",inline"`
// whose fields sit directly in the enclosing JSON object, and the fields whose
// JSON key is not their proto name (the json_name option). The transcoder
// (protobuf.hpp) and the OpenAPI schemas (server/http/openapi.hpp) both follow
// these rules, so they are stated once, here.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

namespace kw::codec {

enum class SpecialMessage {
  None,          // an object of its fields
  Time,          // RFC 3339 string, second precision
  MicroTime,     // RFC 3339 string, microsecond precision
  Duration,      // Go duration string ("1h2m3s")
  Quantity,      // string ("500m", "1Gi"); numbers are accepted on input
  IntOrString,   // JSON integer or string
  RawExtension,  // any embedded JSON value
  FieldsV1,      // embedded JSON object (managedFields)
  Verbs,         // JSON array of strings
  // apiextensions.k8s.io/v1, as its Go types marshal them:
  Json,                 // any JSON value; on the wire its text in `raw`
  SchemaOrArray,        // a schema object, or an array of schemas
  SchemaOrBool,         // a schema object, or a boolean
  SchemaOrStringArray,  // a schema object, or an array of strings
};

SpecialMessage special_message(const google::protobuf::Descriptor& descriptor);

// The JSON key of `field`: its proto name, or the json_name option where the .proto sets one
// (JSONSchemaProps' "$ref" and "x-kubernetes-preserve-unknown-fields", for instance). Only an
// explicit json_name counts: protobuf's own camel-case default is not Kubernetes' mapping.
const std::string& json_key(const google::protobuf::FieldDescriptor& field);

// True for a field whose message's fields appear inline in the parent's JSON object.
bool is_inline_field(const google::protobuf::FieldDescriptor& field);

// The chain of fields the JSON key `key` of `message` maps to: one field, or inline fields
// followed by the field inside them. Empty when the message has no such key. Worked out once
// per thread and kept for the thread's life, which the reference is valid for.
const std::vector<const google::protobuf::FieldDescriptor*>& json_key_chain(const google::protobuf::Descriptor& message,
                                                                            std::string_view key);
// The field the JSON key `key` of `message` names (the last of its chain); null when none.
const google::protobuf::FieldDescriptor* json_field(const google::protobuf::Descriptor& message,
                                                    std::string_view key);

// Fills in what Go's encoding of an object of `message` always has: every field that is a
// struct value in Kubernetes' Go types (kw.api.go_value) and is missing becomes {} (null for a
// time), at every depth, in list items and map values too ("status": {}, a pod template's
// "creationTimestamp": null, a condition's "lastProbeTime": null). Plain Go scalars follow their
// JSON tags (kw.api.go_zero): a zero value with omitempty is dropped ("workingDir": "" or
// "generation": 0 from a Go client's protobuf), one without is filled in. Quantities are written as Go
// writes them back ("0.5" -> "500m"), core/v1's ResourceLists first rounded up to milli units.
// Null members are dropped first (Go reads them as zero values), except in embedded JSON (a
// RawExtension, a schema's default), which stays as it was sent.
void fill_go_values(nlohmann::json& object, const google::protobuf::Descriptor& message);

}  // namespace kw::codec
