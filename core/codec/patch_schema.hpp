#pragma once
// How lists and maps of the built-in kinds merge, for the server's strategic merge patch, the
// client's apply and the OpenAPI schemas: the kw.api.merge_key and kw.api.patch_strategy
// options of the .proto fields (core/proto/schema_notes.hpp; what Kubernetes' patchMergeKey
// and patchStrategy tags say), and a cursor that walks an object's schema by JSON field name,
// through inlined messages and maps.
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace google::protobuf {
class Descriptor;
}  // namespace google::protobuf

namespace kw::codec {

struct PatchMeta {
  std::string_view merge_key;  // "" for a set of scalars (finalizers)
  std::string_view strategy;   // "merge" or "merge,retainKeys"; for an object "replace" (replaced
                               // whole: a PodDisruptionBudget's selector) or "retainKeys"
};

// How strategic merge patch merges the list field `full_field_name`; nullopt when the list
// is replaced whole.
std::optional<PatchMeta> patch_meta(std::string_view full_field_name);

// A place in a message's schema. An unknown node (custom resources, fields kw has no
// message for) knows nothing: every list under it is replaced whole.
class SchemaNode {
 public:
  SchemaNode() = default;
  explicit SchemaNode(const google::protobuf::Descriptor* message) : m_message(message) {}
  // The schema of a whole object, from its apiVersion and kind.
  static SchemaNode of_object(const nlohmann::json& object);

  bool known() const { return m_message != nullptr; }
  // The node under `json_name`: the field's message, the element message of a list, the
  // value message of a map.
  SchemaNode child(std::string_view json_name) const;
  // The merge metadata of the list field `json_name`; nullopt when it is replaced whole.
  std::optional<PatchMeta> list_meta(std::string_view json_name) const;
  // The patch strategy of any field (objects too); nullopt when it has none.
  std::optional<PatchMeta> field_meta(std::string_view json_name) const;

 private:
  const google::protobuf::Descriptor* m_message = nullptr;
  bool m_map_values = false;  // m_message is the value type of a map: any key leads to it
};

}  // namespace kw::codec
