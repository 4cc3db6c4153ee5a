#include "server/apply/schema.hpp"

#include <google/protobuf/descriptor.h>

#include "core/api/json_access.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"

namespace kw::apply {
namespace {

namespace pb = google::protobuf;

constexpr std::string_view k_object_meta = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

bool flag(const nlohmann::json& node, const char* name) {
  const auto found = node.find(name);
  return found != node.end() && found->is_boolean() && found->get<bool>();
}

// The kind of value an openAPIV3Schema node describes: "object", "array", a scalar type, or
// "" for any value (no type, or x-kubernetes-preserve-unknown-fields without structure).
std::string schema_form(const nlohmann::json& node) {
  if (!node.is_object()) return {};
  if (flag(node, "x-kubernetes-int-or-string")) return "scalar";
  std::string type = api::text(node, "type");
  if (type.empty()) {
    if (node.contains("properties") || node.contains("additionalProperties")) return "object";
    if (node.contains("items")) return "array";
    return {};
  }
  if (type == "object" || type == "array") return type;
  return "scalar";
}

}  // namespace

std::optional<Type> Type::of_kind(std::string_view api_version, std::string_view kind) {
  const auto message = codec::builtin_message_for(api_version, kind);
  if (!message) return std::nullopt;
  const pb::Descriptor* descriptor = proto::find_message(*message);
  if (descriptor == nullptr) return std::nullopt;
  Type t = of_message(*descriptor);
  t.m_resource_root = true;  // apiVersion and kind are fields of every object
  return t;
}

Type Type::of_message(const pb::Descriptor& message) {
  Type t;
  switch (codec::special_message(message)) {
    case codec::SpecialMessage::None:
      t.m_source = Source::message;
      t.m_message = &message;
      return t;
    case codec::SpecialMessage::Time:
    case codec::SpecialMessage::MicroTime:
    case codec::SpecialMessage::Duration:
    case codec::SpecialMessage::Quantity:
    case codec::SpecialMessage::IntOrString:
      t.m_source = Source::scalar;
      return t;
    case codec::SpecialMessage::RawExtension:
    case codec::SpecialMessage::FieldsV1:
    case codec::SpecialMessage::Verbs:
      return untyped_atomic();
    default:  // JSON values and schema unions of apiextensions
      return deduced();
  }
}

Type Type::of_custom_resource(const nlohmann::json& schema) {
  Type t = of_schema(schema, false);
  if (t.m_source == Source::json_schema || t.m_source == Source::deduced) {
    // A resource is an object whatever its schema says at the root.
    if (t.m_source == Source::deduced) t.m_preserve_unknown = true;
    t.m_resource_root = true;
  }
  return t;
}

Type Type::deduced() { return Type(); }

Type Type::untyped_atomic() {
  Type t;
  t.m_source = Source::untyped_atomic;
  return t;
}

Type Type::of_field(const pb::FieldDescriptor& field) {
  Type t;
  if (field.is_map()) {
    t.m_source = Source::map_field;
    t.m_field = &field;
  } else if (field.is_repeated()) {
    t.m_source = Source::repeated;
    t.m_field = &field;
  } else {
    t = of_field_value(field);
  }
  return t;
}

Type Type::of_field_value(const pb::FieldDescriptor& field) {
  if (field.message_type() != nullptr && !field.is_map()) return of_message(*field.message_type());
  Type t;
  t.m_source = Source::scalar;
  switch (field.cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_STRING:
      t.m_scalar = Scalar::string;
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      t.m_scalar = Scalar::boolean;
      break;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      break;
    default:
      t.m_scalar = Scalar::numeric;
      break;
  }
  return t;
}

Type Type::of_schema(const nlohmann::json& node, bool preserve_unknown) {
  Type t;
  preserve_unknown = preserve_unknown || flag(node, "x-kubernetes-preserve-unknown-fields");
  const std::string form = schema_form(node);
  if (form.empty()) {
    t.m_preserve_unknown = preserve_unknown;
    return t;  // deduced
  }
  if (form == "scalar") {
    t.m_source = Source::scalar;
    const std::string type = api::text(node, "type");
    if (flag(node, "x-kubernetes-int-or-string")) t.m_scalar = Scalar::untyped;
    else if (type == "string") t.m_scalar = Scalar::string;
    else if (type == "integer" || type == "number") t.m_scalar = Scalar::numeric;
    else if (type == "boolean") t.m_scalar = Scalar::boolean;
    return t;
  }
  t.m_source = Source::json_schema;
  t.m_schema = &node;
  t.m_preserve_unknown = preserve_unknown;
  return t;
}

bool Type::accepts_scalar() const {
  switch (m_source) {
    case Source::deduced:
    case Source::untyped_atomic:
    case Source::scalar:
      return true;
    default:
      return false;
  }
}

bool Type::accepts_list() const {
  switch (m_source) {
    case Source::deduced:
    case Source::untyped_atomic:
    case Source::repeated:
      return true;
    case Source::json_schema:
      return !m_resource_root && schema_form(*m_schema) == "array";
    default:
      return false;
  }
}

bool Type::accepts_map() const {
  switch (m_source) {
    case Source::deduced:
    case Source::untyped_atomic:
    case Source::message:
    case Source::map_field:
      return true;
    case Source::json_schema:
      return m_resource_root || schema_form(*m_schema) == "object";
    default:
      return false;
  }
}

Type::ListShape Type::list_shape() const {
  ListShape shape;
  if (m_source == Source::repeated) {
    const proto::FieldNotes* notes = proto::field_notes(*m_field);
    if (notes == nullptr) return shape;
    if (!notes->list_type.empty()) {
      shape.atomic = notes->list_type == "atomic";
      if (notes->list_type == "map") shape.keys = notes->list_map_keys;
    } else if (notes->patch_strategy == "merge" || notes->patch_strategy == "merge,retainKeys") {
      shape.atomic = false;
      if (!notes->merge_key.empty()) shape.keys = {notes->merge_key};
    }
  } else if (m_source == Source::json_schema) {
    const std::string type = api::text(*m_schema, "x-kubernetes-list-type");
    if (type == "set" || type == "map") {
      shape.atomic = false;
      if (type == "map")
        if (const auto keys = m_schema->find("x-kubernetes-list-map-keys");
            keys != m_schema->end() && keys->is_array())
          for (const auto& key : *keys)
            if (key.is_string()) shape.keys.push_back(key.get<std::string>());
    }
  }
  return shape;
}

bool Type::list_atomic() const { return list_shape().atomic; }

std::vector<std::string> Type::list_keys() const { return list_shape().keys; }

Type Type::list_element() const {
  switch (m_source) {
    case Source::repeated:
      return of_field_value(*m_field);
    case Source::json_schema:
      if (const auto items = m_schema->find("items"); items != m_schema->end() && items->is_object())
        return of_schema(*items, m_preserve_unknown);
      return deduced();
    default:
      return untyped_atomic();
  }
}

nlohmann::json Type::key_default(std::string_view key) const {
  if (m_source == Source::repeated && m_field->message_type() != nullptr) {
    const pb::FieldDescriptor* field = codec::json_field(*m_field->message_type(), key);
    const proto::FieldNotes* notes = field ? proto::field_notes(*field) : nullptr;
    if (notes != nullptr && !notes->default_json.empty()) {
      auto parsed = nlohmann::json::parse(notes->default_json, nullptr, false);
      if (!parsed.is_discarded()) return parsed;
    }
  } else if (m_source == Source::json_schema) {
    const auto items = m_schema->find("items");
    if (items != m_schema->end() && items->is_object())
      if (const auto props = items->find("properties"); props != items->end() && props->is_object())
        if (const auto prop = props->find(std::string(key)); prop != props->end() && prop->is_object())
          if (const auto value = prop->find("default"); value != prop->end()) return *value;
  }
  return nullptr;
}

bool Type::map_atomic() const {
  switch (m_source) {
    case Source::untyped_atomic:
      return true;
    case Source::message:
      return proto::struct_type_of(*m_message) == "atomic";
    case Source::map_field: {
      const proto::FieldNotes* notes = proto::field_notes(*m_field);
      return notes != nullptr && notes->map_type == "atomic";
    }
    case Source::json_schema:
      return api::text(*m_schema, "x-kubernetes-map-type") == "atomic";
    default:
      return false;
  }
}

std::optional<Type> Type::field(std::string_view name) const {
  if (m_resource_root) {
    if (name == "metadata")
      if (const pb::Descriptor* meta = proto::find_message(k_object_meta)) return of_message(*meta);
    if (name == "apiVersion" || name == "kind") {
      Type t;
      t.m_source = Source::scalar;
      return t;
    }
  }
  switch (m_source) {
    case Source::message: {
      const pb::FieldDescriptor* field = codec::json_field(*m_message, name);
      if (field == nullptr) return std::nullopt;
      return of_field(*field);
    }
    case Source::json_schema: {
      const auto props = m_schema->find("properties");
      if (props == m_schema->end() || !props->is_object()) return std::nullopt;
      const auto prop = props->find(std::string(name));
      if (prop == props->end() || !prop->is_object()) return std::nullopt;
      return of_schema(*prop, m_preserve_unknown);
    }
    default:
      return std::nullopt;
  }
}

std::optional<Type> Type::map_element() const {
  switch (m_source) {
    case Source::deduced:
      return deduced();
    case Source::untyped_atomic:
      return untyped_atomic();
    case Source::map_field:
      return of_field_value(*m_field->message_type()->map_value());
    case Source::json_schema: {
      if (m_resource_root && m_schema == nullptr) return deduced();
      const auto extra = m_schema->find("additionalProperties");
      if (extra != m_schema->end()) {
        if (extra->is_object()) return of_schema(*extra, m_preserve_unknown);
        if (extra->is_boolean() && extra->get<bool>()) return deduced();
      }
      if (m_preserve_unknown) return deduced();
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

Type Type::child(std::string_view name) const {
  if (auto declared = field(name)) return *declared;
  if (auto element = map_element()) return *element;
  return deduced();
}

}  // namespace kw::apply
