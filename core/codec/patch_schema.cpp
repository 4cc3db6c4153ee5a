#include "core/codec/patch_schema.hpp"

#include <google/protobuf/descriptor.h>

#include <cstring>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"

namespace kw::codec {
namespace {

namespace pb = google::protobuf;

// Appends the text a merge key value is indexed by: numbers by their double value (Kubernetes
// reads them as float64), strings, arrays and objects by their contents. Values nlohmann's ==
// finds equal have the same text, so a lookup by text and then == finds what a scan with ==
// finds (values that differ can share a text, two integers past 2^53 that round to one
// double). The exception: == converts an unsigned integer past 2^63 to a negative signed one
// and finds them equal; here, as in Kubernetes, they differ.
void append_index_text(std::string& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      out += 'z';
      return;
    case nlohmann::json::value_t::boolean:
      out += value.get<bool>() ? 't' : 'f';
      return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: {
      double number = value.get<double>();
      if (number == 0) number = 0;  // -0.0 and 0.0 are one value
      char bytes[sizeof number];
      std::memcpy(bytes, &number, sizeof number);
      out += 'n';
      out.append(bytes, sizeof bytes);
      return;
    }
    case nlohmann::json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      out += 's' + std::to_string(text.size()) + ':' + text;
      return;
    }
    case nlohmann::json::value_t::array:
      out += 'a' + std::to_string(value.size()) + ':';
      for (const auto& item : value) append_index_text(out, item);
      return;
    case nlohmann::json::value_t::object:
      out += 'o' + std::to_string(value.size()) + ':';
      for (const auto& [field, item] : value.items()) {
        out += std::to_string(field.size()) + ':' + field;
        append_index_text(out, item);
      }
      return;
    default:
      out += 'x';
      return;
  }
}

// A list being merged by its merge key: the items in their order, removed ones left out until
// the end, and for each key value the positions of the items that carry it, so that a patch
// item finds its match without a scan of the list.
class KeyedList {
 public:
  KeyedList(nlohmann::json list, std::string key) : m_key(std::move(key)) {
    if (!list.is_array()) return;
    m_items.reserve(list.size());
    for (auto& item : list) push_back(std::move(item));
  }

  // The first item, in list order, whose merge key equals `value`.
  std::optional<std::size_t> find(const nlohmann::json& value) const {
    const auto bucket = m_buckets.find(index_text(value));
    if (bucket == m_buckets.end()) return std::nullopt;
    for (std::size_t position : bucket->second)
      if (m_items[position][m_key] == value) return position;
    return std::nullopt;
  }

  nlohmann::json& at(std::size_t position) { return m_items[position]; }

  void erase(std::size_t position) {
    unindex(position);
    m_removed[position] = true;
  }

  void push_back(nlohmann::json item) {
    m_items.push_back(std::move(item));
    m_removed.push_back(false);
    m_bucket_of.push_back(nullptr);
    index(m_items.size() - 1);
  }

  // Files the item at `position` under its merge key again, after a merge may have changed it.
  void reindex(std::size_t position) {
    unindex(position);
    index(position);
  }

  nlohmann::json take() && {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < m_items.size(); ++i)
      if (!m_removed[i]) out.push_back(std::move(m_items[i]));
    return out;
  }

 private:
  using Buckets = std::unordered_map<std::string, std::set<std::size_t>>;

  static std::string index_text(const nlohmann::json& value) {
    std::string text;
    append_index_text(text, value);
    return text;
  }

  void index(std::size_t position) {
    const nlohmann::json& item = m_items[position];
    if (!item.is_object()) return;
    const auto value = item.find(m_key);
    if (value == item.end()) return;
    Buckets::value_type& bucket = *m_buckets.try_emplace(index_text(*value)).first;
    bucket.second.insert(position);
    m_bucket_of[position] = &bucket;
  }

  void unindex(std::size_t position) {
    if (m_bucket_of[position] == nullptr) return;
    m_bucket_of[position]->second.erase(position);
    m_bucket_of[position] = nullptr;
  }

  std::string m_key;
  std::vector<nlohmann::json> m_items;
  std::vector<bool> m_removed;
  std::vector<Buckets::value_type*> m_bucket_of;  // where each item is filed; null when it has no key
  Buckets m_buckets;                              // references to its elements stay valid as it grows
};

// Merges the patch items one after another: an item with the key merges into the first item
// that has the same key (or removes it, with $patch: delete) or is appended; an item without it
// is appended as it is. Appended items are matched by the patch items after them.
nlohmann::json merge_list(nlohmann::json target, const nlohmann::json& patch, const std::string& key,
                          const SchemaNode& items) {
  KeyedList list(std::move(target), key);
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(key)) {
      list.push_back(item);
      continue;
    }
    const std::optional<std::size_t> found = list.find(item[key]);
    if (item.value("$patch", std::string()) == "delete") {
      if (found) list.erase(*found);
    } else if (found) {
      list.at(*found) = strategic_merge(std::move(list.at(*found)), item, items);
      list.reindex(*found);
    } else {
      nlohmann::json added = item;
      added.erase("$patch");
      list.push_back(std::move(added));
    }
  }
  return std::move(list).take();
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
