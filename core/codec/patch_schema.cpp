#include "core/codec/patch_schema.hpp"

#include <google/protobuf/descriptor.h>

#include <string>

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"

namespace kw::codec {
namespace {
namespace pb = google::protobuf;
}  // namespace

std::optional<PatchMeta> patch_meta(std::string_view full_field_name) {
  const proto::FieldNotes* notes = proto::field_notes(full_field_name);
  if (notes == nullptr || notes->patch_strategy.empty()) return std::nullopt;
  return PatchMeta{notes->merge_key, notes->patch_strategy};
}

SchemaNode SchemaNode::of_object(const nlohmann::json& object) {
  if (!object.is_object()) return {};
  const auto api_version = object.find("apiVersion");
  const auto kind = object.find("kind");
  if (api_version == object.end() || kind == object.end() || !api_version->is_string() || !kind->is_string())
    return {};
  const auto message = builtin_message_for(api_version->get<std::string>(), kind->get<std::string>());
  return message ? SchemaNode(proto::find_message(*message)) : SchemaNode();
}

SchemaNode SchemaNode::child(std::string_view json_name) const {
  if (m_message == nullptr) return {};
  if (m_map_values) return SchemaNode(m_message);
  const pb::FieldDescriptor* field = json_field(*m_message, json_name);
  if (field == nullptr || field->message_type() == nullptr) return {};
  if (field->is_map()) {
    const pb::FieldDescriptor* value = field->message_type()->map_value();
    SchemaNode out(value->message_type());
    out.m_map_values = out.m_message != nullptr;
    return out;
  }
  return SchemaNode(field->message_type());
}

std::optional<PatchMeta> SchemaNode::list_meta(std::string_view json_name) const {
  if (m_message == nullptr || m_map_values) return std::nullopt;
  const pb::FieldDescriptor* field = json_field(*m_message, json_name);
  if (field == nullptr || !field->is_repeated()) return std::nullopt;
  return patch_meta(field->full_name());
}

std::optional<PatchMeta> SchemaNode::field_meta(std::string_view json_name) const {
  if (m_message == nullptr || m_map_values) return std::nullopt;
  const pb::FieldDescriptor* field = json_field(*m_message, json_name);
  return field == nullptr ? std::nullopt : patch_meta(field->full_name());
}

}  // namespace kw::codec
