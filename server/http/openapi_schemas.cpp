// OpenAPI schemas from the protobuf descriptors, with Kubernetes' JSON mapping
// (core/codec/protobuf_mapping.hpp) and the patch and required-field markers
// Kubernetes puts on its types.
#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"
#include "server/http/openapi_build.hpp"

namespace kw::http::openapi {
namespace {

namespace pb = google::protobuf;
using nlohmann::json;

constexpr std::string_view k_meta = "k8s.io.apimachinery.pkg.apis.meta.v1.";

json gvk_extension(std::string_view group, std::string_view version, std::string_view kind) {
  return json::array({{{"group", group}, {"kind", kind}, {"version", version}}});
}

json string_property(std::string_view description) { return {{"type", "string"}, {"description", description}}; }

json type_meta_properties() {
  return {
      {"apiVersion", string_property("APIVersion defines the versioned schema of this representation of an object.")},
      {"kind", string_property("Kind is a string value representing the REST resource this object represents.")},
  };
}

// `schema` with its help text. A bare reference keeps its "$ref": Swagger 2.0 lets a
// description sit beside it; OpenAPI 3.0 ignores siblings of "$ref", so the reference is
// wrapped in a one-element allOf, as Kubernetes does (kubectl explain follows allOf).
json described(json schema, std::string_view description, Dialect dialect) {
  if (description.empty()) return schema;
  if (dialect == Dialect::openapi_v3 && schema.size() == 1 && schema.contains("$ref"))
    return {{"allOf", json::array({std::move(schema)})}, {"description", description}};
  schema["description"] = description;
  return schema;
}

bool has_meta_field(const pb::Descriptor& descriptor) {
  const pb::FieldDescriptor* metadata = descriptor.FindFieldByName("metadata");
  if (metadata == nullptr || metadata->message_type() == nullptr) return false;
  const std::string& type = metadata->message_type()->full_name();
  return type == std::string(k_meta) + "ObjectMeta" || type == std::string(k_meta) + "ListMeta";
}

// Objects that travel with apiVersion/kind in JSON: those carrying object or list
// metadata (except templates, which Kubernetes embeds without TypeMeta), and the
// meta/v1 option and status kinds.
bool carries_type_meta(const pb::Descriptor& descriptor) {
  const std::string& name = descriptor.full_name();
  if (name.ends_with("TemplateSpec")) return false;
  if (name.starts_with(k_meta)) {
    return name.ends_with("Options") || name.ends_with(".Status") || name.ends_with(".List") ||
           name.ends_with("PartialObjectMetadata") || name.ends_with("PartialObjectMetadataList");
  }
  return has_meta_field(descriptor);
}

class SchemaBuilder {
 public:
  SchemaBuilder(Dialect dialect, json& schemas) : m_dialect(dialect), m_schemas(schemas) {}

  // A reference to the schema of `descriptor`, adding it (and what it reaches) first.
  json reference_to(const pb::Descriptor& descriptor) {
    const std::string name = definition_name(descriptor.full_name());
    if (!m_schemas.contains(name)) {
      m_schemas[name] = json::object();  // placeholder: recursive types stop here
      m_schemas[name] = message_schema(descriptor);
    }
    return reference(name, m_dialect);
  }

 private:
  json message_schema(const pb::Descriptor& descriptor) {
    const std::string_view description = proto::comment_of(descriptor.full_name());
    if (const auto special = codec::special_message(descriptor); special != codec::SpecialMessage::None)
      return described(special_schema(special), description, m_dialect);
    json properties = json::object();
    if (carries_type_meta(descriptor)) properties = type_meta_properties();
    add_properties(descriptor, properties);
    json schema = {{"type", "object"}, {"properties", std::move(properties)}};
    if (!description.empty()) schema["description"] = description;
    if (const auto type = proto::struct_type_of(descriptor.full_name()); !type.empty())
      schema["x-kubernetes-map-type"] = type;
    json required = json::array();
    add_required(descriptor, required);
    if (!required.empty()) schema["required"] = std::move(required);
    return schema;
  }

  // The fields marked kw.api.required, inlined messages' included, in field order.
  static void add_required(const pb::Descriptor& descriptor, json& required) {
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const pb::FieldDescriptor& field = *descriptor.field(i);
      if (codec::is_inline_field(field)) {
        add_required(*field.message_type(), required);
      } else if (const proto::FieldNotes* notes = proto::field_notes(field.full_name()); notes && notes->required) {
        required.push_back(codec::json_key(field));
      }
    }
  }

  void add_properties(const pb::Descriptor& descriptor, json& properties) {
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const pb::FieldDescriptor& field = *descriptor.field(i);
      if (codec::is_inline_field(field)) {
        add_properties(*field.message_type(), properties);
        continue;
      }
      properties[codec::json_key(field)] =
          described(field_schema(field), proto::comment_of(field.full_name()), m_dialect);
    }
  }

  json field_schema(const pb::FieldDescriptor& field) {
    const proto::FieldNotes* notes = proto::field_notes(field.full_name());
    if (field.is_map()) {
      json schema = {{"type", "object"}, {"additionalProperties", value_schema(*field.message_type()->map_value())}};
      if (notes && !notes->map_type.empty()) schema["x-kubernetes-map-type"] = notes->map_type;
      return schema;
    }
    if (!field.is_repeated()) {
      json schema = value_schema(field);
      if (notes == nullptr || notes->patch_strategy.empty()) return schema;
      // As kube publishes a strategy on an object field: beside the reference (OpenAPI v2),
      // or beside an allOf that holds it (v3).
      if (m_dialect == Dialect::openapi_v3 && schema.contains("$ref"))
        schema = {{"allOf", json::array({std::move(schema)})}};
      schema["x-kubernetes-patch-strategy"] = notes->patch_strategy;
      return schema;
    }
    json schema = {{"type", "array"}, {"items", value_schema(field)}};
    if (notes == nullptr) return schema;
    if (!notes->patch_strategy.empty()) {
      if (!notes->merge_key.empty()) schema["x-kubernetes-patch-merge-key"] = notes->merge_key;
      schema["x-kubernetes-patch-strategy"] = notes->patch_strategy;
    }
    if (!notes->list_type.empty()) schema["x-kubernetes-list-type"] = notes->list_type;
    if (!notes->list_map_keys.empty()) schema["x-kubernetes-list-map-keys"] = notes->list_map_keys;
    return schema;
  }

  json value_schema(const pb::FieldDescriptor& field) {
    using Type = pb::FieldDescriptor::Type;
    switch (field.type()) {
      case Type::TYPE_MESSAGE:
      case Type::TYPE_GROUP:
        return reference_to(*field.message_type());
      case Type::TYPE_STRING:
        return {{"type", "string"}};
      case Type::TYPE_BYTES:
        return {{"type", "string"}, {"format", "byte"}};
      case Type::TYPE_BOOL:
        return {{"type", "boolean"}};
      case Type::TYPE_DOUBLE:
        return {{"type", "number"}, {"format", "double"}};
      case Type::TYPE_FLOAT:
        return {{"type", "number"}, {"format", "float"}};
      case Type::TYPE_INT64:
      case Type::TYPE_SINT64:
      case Type::TYPE_SFIXED64:
      case Type::TYPE_UINT64:
      case Type::TYPE_FIXED64:
        return {{"type", "integer"}, {"format", "int64"}};
      case Type::TYPE_INT32:
      case Type::TYPE_SINT32:
      case Type::TYPE_SFIXED32:
      case Type::TYPE_UINT32:
      case Type::TYPE_FIXED32:
        return {{"type", "integer"}, {"format", "int32"}};
      case Type::TYPE_ENUM:
        break;
    }
    return {{"type", "string"}};
  }

  json special_schema(codec::SpecialMessage special) const {
    const bool v3 = m_dialect == Dialect::openapi_v3;
    switch (special) {
      case codec::SpecialMessage::Time:
      case codec::SpecialMessage::MicroTime:
        return {{"type", "string"}, {"format", "date-time"}};
      case codec::SpecialMessage::Duration:
        return {{"type", "string"}};
      case codec::SpecialMessage::Quantity:
        if (v3) return {{"oneOf", json::array({{{"type", "string"}}, {{"type", "number"}}})}};
        return {{"type", "string"}};
      case codec::SpecialMessage::IntOrString: {
        json schema = {{"format", "int-or-string"}, {"x-kubernetes-int-or-string", true}};
        if (v3)
          schema["oneOf"] = json::array({{{"type", "integer"}}, {{"type", "string"}}});
        else
          schema["type"] = "string";
        return schema;
      }
      case codec::SpecialMessage::RawExtension:
      case codec::SpecialMessage::FieldsV1:
        return {{"type", "object"}};
      case codec::SpecialMessage::Verbs:
        return {{"type", "array"}, {"items", {{"type", "string"}}}};
      case codec::SpecialMessage::Json:
      case codec::SpecialMessage::SchemaOrArray:
      case codec::SpecialMessage::SchemaOrBool:
      case codec::SpecialMessage::SchemaOrStringArray:
        // Any JSON value, or one of two shapes OpenAPI 2 cannot state: kube-apiserver publishes
        // these with their description only, which clients read as "anything goes".
        return json::object();
      case codec::SpecialMessage::None:
        break;
    }
    return {{"type", "object"}};
  }

  Dialect m_dialect;
  json& m_schemas;
};

// kw_proto always carries the meta/v1 messages (core/proto/registry.hpp).
const pb::Descriptor& meta_message(std::string_view name) {
  return *proto::find_message(std::string(k_meta) + std::string(name));
}

std::string reversed_group(std::string_view group) {
  std::vector<std::string_view> parts;
  while (!group.empty()) {
    const auto dot = group.find('.');
    parts.push_back(group.substr(0, dot));
    group = dot == std::string_view::npos ? std::string_view{} : group.substr(dot + 1);
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += std::string(*it) + ".";
  return out;
}

// Custom resources have no protobuf form: their schema keeps whatever fields they carry.
void add_custom_resource_schemas(const api::ResourceInfo& resource, Dialect dialect, json& schemas) {
  SchemaBuilder builder(dialect, schemas);
  json properties = type_meta_properties();
  properties["metadata"] =
      described(builder.reference_to(meta_message("ObjectMeta")), "Standard object metadata.", dialect);
  schemas[kind_definition(resource)] = {
      {"type", "object"},
      {"properties", properties},
      {"x-kubernetes-preserve-unknown-fields", true},
      {"x-kubernetes-group-version-kind", gvk_extension(resource.group, resource.version, resource.kind)}};
  json list_properties = type_meta_properties();
  list_properties["metadata"] =
      described(builder.reference_to(meta_message("ListMeta")), "Standard list metadata.", dialect);
  list_properties["items"] = {{"type", "array"}, {"items", reference(kind_definition(resource), dialect)}};
  schemas[list_definition(resource)] = {
      {"type", "object"},
      {"properties", list_properties},
      {"required", {"items"}},
      {"x-kubernetes-group-version-kind", gvk_extension(resource.group, resource.version, resource.list_kind)}};
}

}  // namespace

std::string definition_name(std::string_view proto_full_name) {
  constexpr std::string_view k_proto_prefix = "k8s.io.";
  if (!proto_full_name.starts_with(k_proto_prefix)) return std::string(proto_full_name);
  // Go import paths become proto packages with '-' turned into '_'
  // (k8s.io/kube-aggregator -> k8s.io.kube_aggregator); definition names keep the path's '-'.
  std::string name = "io.k8s." + std::string(proto_full_name.substr(k_proto_prefix.size()));
  const auto message = name.rfind('.');
  std::replace(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(message), '_', '-');
  return name;
}

json reference(std::string_view definition, Dialect dialect) {
  const std::string prefix = dialect == Dialect::swagger_v2 ? "#/definitions/" : "#/components/schemas/";
  return {{"$ref", prefix + std::string(definition)}};
}

std::string kind_definition(const api::ResourceInfo& resource) {
  if (!resource.proto_message.empty()) return definition_name(resource.proto_message);
  return reversed_group(resource.group) + resource.version + "." + resource.kind;
}

std::string list_definition(const api::ResourceInfo& resource) {
  if (!resource.proto_message.empty()) {
    const auto dot = resource.proto_message.rfind('.');
    return definition_name(resource.proto_message.substr(0, dot + 1) + resource.list_kind);
  }
  return reversed_group(resource.group) + resource.version + "." + resource.list_kind;
}

void add_resource_schemas(const api::ResourceInfo& resource, Dialect dialect, json& schemas) {
  const pb::Descriptor* kind = proto::find_message(resource.proto_message);
  const auto dot = resource.proto_message.rfind('.');
  const pb::Descriptor* list =
      kind == nullptr ? nullptr : proto::find_message(resource.proto_message.substr(0, dot + 1) + resource.list_kind);
  if (kind == nullptr || list == nullptr) return add_custom_resource_schemas(resource, dialect, schemas);
  SchemaBuilder builder(dialect, schemas);
  builder.reference_to(*kind);
  builder.reference_to(*list);
  schemas[kind_definition(resource)]["x-kubernetes-group-version-kind"] =
      gvk_extension(resource.group, resource.version, resource.kind);
  schemas[list_definition(resource)]["x-kubernetes-group-version-kind"] =
      gvk_extension(resource.group, resource.version, resource.list_kind);
  schemas[list_definition(resource)]["required"] = {"items"};
}

void add_meta_schemas(Dialect dialect, json& schemas) {
  SchemaBuilder builder(dialect, schemas);
  for (std::string_view name : {"Status", "DeleteOptions", "WatchEvent"}) builder.reference_to(meta_message(name));
  schemas[definition_name(std::string(k_meta) + "Status")]["x-kubernetes-group-version-kind"] =
      gvk_extension("", "v1", "Status");
  schemas[definition_name(std::string(k_meta) + "Patch")] = {
      {"type", "object"},
      {"description",
       "The body of a PATCH request: a JSON patch, a JSON merge patch, a strategic merge patch or "
       "an apply configuration, as its Content-Type says."}};
}

}  // namespace kw::http::openapi
