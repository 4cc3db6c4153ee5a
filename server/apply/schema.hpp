#pragma once
// The types server-side apply walks objects by, read from kw's one schema source: the .proto
// messages of built-in kinds with their kw.api notes (list, map and struct types, merge keys,
// defaults), and the openAPIV3Schema of a custom resource version. A Type says which forms a
// value may take (scalar, list, map) and, for lists and maps, how their parts are identified
// and whether they merge part by part or are replaced whole (atomic).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace google::protobuf {
class Descriptor;
class FieldDescriptor;
}  // namespace google::protobuf

namespace kw::apply {

class Type {
 public:
  Type() = default;  // knows nothing: treated as "deduced" (any value, maps merged by key)

  // The type of a built-in kind's objects; nullopt when kw has no message for it.
  static std::optional<Type> of_kind(std::string_view api_version, std::string_view kind);
  static Type of_message(const google::protobuf::Descriptor& message);
  // The type of a custom resource's objects from its version's openAPIV3Schema (which must
  // outlive the Type): metadata is ObjectMeta, the rest as the schema says. A null schema
  // gives "deduced" everywhere below metadata.
  static Type of_custom_resource(const nlohmann::json& schema);
  // Anything, maps merged key by key, lists replaced whole (unknown fields kept by a schema).
  static Type deduced();
  // Anything, replaced whole (RawExtension).
  static Type untyped_atomic();

  // What a scalar must be: anything (quantities, times, int-or-string), a string, a number or
  // a boolean.
  enum class Scalar : unsigned char { untyped, string, numeric, boolean };
  Scalar scalar_kind() const { return m_scalar; }

  bool accepts_scalar() const;
  bool accepts_list() const;
  bool accepts_map() const;

  // Lists.
  bool list_atomic() const;
  // For an associative list: the fields identifying an item; empty for a set of scalars.
  std::vector<std::string> list_keys() const;
  Type list_element() const;
  // The default of a key field of the list's items (null when it has none).
  nlohmann::json key_default(std::string_view key) const;

  // Maps (objects of declared fields, or of any keys).
  bool map_atomic() const;
  // The type of a declared field; nullopt when `name` is not declared.
  std::optional<Type> field(std::string_view name) const;
  // The type of keys that are not declared fields; nullopt when there are none.
  std::optional<Type> map_element() const;
  // field(name), else map_element(), else deduced.
  Type child(std::string_view name) const;

 private:
  enum class Source : unsigned char {
    deduced,         // scalar | atomic list of untyped | granular map of deduced
    untyped_atomic,  // scalar | atomic list | atomic map
    scalar,
    message,         // a struct: the message's fields by JSON key
    repeated,        // a list: the repeated field's items
    map_field,       // a map: the map field's values
    json_schema,     // a node of an openAPIV3Schema
  };
  Source m_source = Source::deduced;
  Scalar m_scalar = Scalar::untyped;
  const google::protobuf::Descriptor* m_message = nullptr;
  const google::protobuf::FieldDescriptor* m_field = nullptr;
  const nlohmann::json* m_schema = nullptr;
  bool m_resource_root = false;  // an object's root: apiVersion and kind, metadata is ObjectMeta
  bool m_preserve_unknown = false;  // inside x-kubernetes-preserve-unknown-fields

  static Type of_field(const google::protobuf::FieldDescriptor& field);
  static Type of_field_value(const google::protobuf::FieldDescriptor& field);  // one item / value
  static Type of_schema(const nlohmann::json& node, bool preserve_unknown);
  // The list metadata of a list type.
  struct ListShape {
    bool atomic = true;
    std::vector<std::string> keys;
  };
  ListShape list_shape() const;
};

}  // namespace kw::apply
