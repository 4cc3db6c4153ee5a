#include "core/codec/patch_schema.hpp"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <string>

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"

namespace kw::codec {
namespace {

namespace pb = google::protobuf;

nlohmann::json merge_list(nlohmann::json target, const nlohmann::json& patch, const std::string& key,
                          const SchemaNode& items) {
  if (!target.is_array()) target = nlohmann::json::array();
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(key)) {
      target.push_back(item);
      continue;
    }
    auto found = std::find_if(target.begin(), target.end(), [&](const nlohmann::json& t) {
      return t.is_object() && t.contains(key) && t[key] == item[key];
    });
    if (item.value("$patch", std::string()) == "delete") {
      if (found != target.end()) target.erase(found);
    } else if (found != target.end()) {
      *found = strategic_merge(std::move(*found), item, items);
    } else {
      nlohmann::json added = item;
      added.erase("$patch");
      target.push_back(std::move(added));
    }
  }
  return target;
}

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
  const pb::FieldDescriptor* field = json_field(*m_message, std::string(json_name));
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
  const pb::FieldDescriptor* field = json_field(*m_message, std::string(json_name));
  if (field == nullptr || !field->is_repeated()) return std::nullopt;
  return patch_meta(field->full_name());
}

std::optional<PatchMeta> SchemaNode::field_meta(std::string_view json_name) const {
  if (m_message == nullptr || m_map_values) return std::nullopt;
  const pb::FieldDescriptor* field = json_field(*m_message, std::string(json_name));
  return field == nullptr ? std::nullopt : patch_meta(field->full_name());
}

nlohmann::json strategic_merge(nlohmann::json target, const nlohmann::json& patch, const SchemaNode& schema) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", std::string()) == "replace") {
    nlohmann::json out = patch;
    out.erase("$patch");
    return out;
  }
  if (!target.is_object()) target = nlohmann::json::object();
  for (const auto& [field, value] : patch.items()) {
    if (field.starts_with("$")) continue;  // $patch, $retainKeys, $setElementOrder/..., $deleteFromPrimitiveList/...
    if (value.is_null()) {
      target.erase(field);
    } else if (const auto meta = value.is_object() ? schema.field_meta(field) : std::nullopt;
               meta && meta->strategy == "replace") {
      target[field] = value;
      target[field].erase("$patch");
    } else if (value.is_object()) {
      auto found = target.find(field);
      target[field] = strategic_merge(found == target.end() ? nlohmann::json() : std::move(*found), value,
                                      schema.child(field));
    } else if (const auto meta = value.is_array() ? schema.list_meta(field) : std::nullopt;
               meta && !meta->merge_key.empty()) {
      auto found = target.find(field);
      target[field] = merge_list(found == target.end() ? nlohmann::json() : std::move(*found), value,
                                 std::string(meta->merge_key), schema.child(field));
    } else {
      target[field] = value;
    }
  }
  return target;
}

}  // namespace kw::codec
