#pragma once
// The CEL type of an OpenAPI v3 structural schema, as Kubernetes derives it (SchemaDeclType):
// x-kubernetes-int-or-string is dyn, string formats byte/duration/date/date-time are bytes,
// duration and timestamp, additionalProperties make a map, properties an object whose field
// names are escaped, and resource roots always have apiVersion, kind and metadata.name and
// metadata.generateName.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::cel {

struct SchemaType {
  enum class Kind { dyn, boolean, integer, number, string, bytes, duration, timestamp, list, map,
                    object };
  struct Field {
    std::string json_name = {};
    std::shared_ptr<const SchemaType> type = {};
  };

  Kind kind = Kind::dyn;
  // Object fields by escaped (CEL) name, and the same types by JSON name.
  std::map<std::string, Field, std::less<>> fields = {};
  std::map<std::string, const SchemaType*, std::less<>> by_json_name = {};
  // x-kubernetes-preserve-unknown-fields: fields outside `fields` may be read too.
  bool open = false;
  // List items or map values.
  std::shared_ptr<const SchemaType> element = {};
  // maxLength, maxItems or maxProperties, when the schema bounds the size.
  std::optional<std::uint64_t> max_size = {};

  // The type of a JSON member of an object or map, or nullptr when unknown (dyn).
  const SchemaType* member(std::string_view json_name) const;
  // Whether the compiler can check field names: an object with a closed set of properties.
  bool closed_object() const { return kind == Kind::object && !open; }
};

// nullptr when the schema exposes nothing to CEL (an array whose items are not exposed).
std::shared_ptr<const SchemaType> schema_type(const nlohmann::json& schema, bool resource_root);

// The CEL type name of a schema type ("int", "list", "object", ...).
std::string_view schema_type_name(const SchemaType& type);

}  // namespace kw::cel
