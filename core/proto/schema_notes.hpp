#pragma once
// What kw's .proto files say beyond the wire format (thread-safe):
//   - the comment above a message or field: its help text (the OpenAPI description that
//     `kubectl explain` prints), read once, on first use, from the descriptor set with source
//     info that the build compiles in;
//   - the kw.api options (kw/annotations.proto): the merge key and patch strategy of a list,
//     whether a field is required, and the list, map and struct types server-side apply and
//     the OpenAPI x-kubernetes-* markers go by, read from the compiled descriptors' options.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

namespace kw::proto {

// The comment above the message or field `full_name` ("k8s.io.api.core.v1.Pod",
// "k8s.io.api.core.v1.Pod.spec") as one line of text; empty when it has none.
std::string_view comment_of(std::string_view full_name);

// Every commented message and field with its comment, by full name.
std::vector<std::pair<std::string_view, std::string_view>> all_comments();

// kw.api.go_zero: how a scalar's zero value appears in JSON (see kw/annotations.proto).
enum class GoZero { pointer, omit, keep };

struct FieldNotes {
  std::string merge_key;       // kw.api.merge_key: "" when the list has none
  std::string patch_strategy;  // kw.api.patch_strategy: "", "merge", "merge,retainKeys",
                               // "retainKeys" or "replace"
  bool required = false;       // kw.api.required
  std::string list_type;       // kw.api.list_type: "", "atomic", "set" or "map"
  std::vector<std::string> list_map_keys;  // kw.api.list_map_keys, in order
  std::string map_type;        // kw.api.map_type: "", "atomic" or "granular"
  std::string default_json;    // kw.api.default: the default as JSON text; "" when none
  bool go_value = false;       // kw.api.go_value: always present in JSON ({} or null)
  GoZero go_zero = GoZero::pointer;  // kw.api.go_zero
};

// The kw.api options of the field `full_name`; null when it has none (or is no field).
const FieldNotes* field_notes(std::string_view full_name);
// The same for a field at hand (no lookup by name).
const FieldNotes* field_notes(const google::protobuf::FieldDescriptor& field);

// The kw.api.struct_type of the message `full_name` ("atomic"); empty when it has none.
std::string_view struct_type_of(std::string_view full_name);
std::string_view struct_type_of(const google::protobuf::Descriptor& message);

}  // namespace kw::proto
