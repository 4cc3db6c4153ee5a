#include "core/codec/strategic_merge.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/api/jsonpath.hpp"
#include "core/codec/list_order.hpp"

namespace kw::codec {
namespace {

using json = nlohmann::json;
using Array = json::array_t;

constexpr std::string_view k_directive = "$patch";
constexpr std::string_view k_retain_keys = "$retainKeys";
constexpr std::string_view k_delete_from_primitive_list = "$deleteFromPrimitiveList";
constexpr std::string_view k_set_element_order = "$setElementOrder";
constexpr std::string_view k_go_map = "map[string]interface {}";
constexpr std::string_view k_go_slice = "[]interface {}";

// ---- Go's view of decoded JSON, for kube's error messages and type comparisons -------------

// The Go type a value decodes to in kube-apiserver (integers that fit stay int64).
enum class GoType { nil, map, slice, string, boolean, int64, float64 };

GoType go_type(const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      return GoType::map;
    case json::value_t::array:
      return GoType::slice;
    case json::value_t::string:
      return GoType::string;
    case json::value_t::boolean:
      return GoType::boolean;
    case json::value_t::number_integer:
      return GoType::int64;
    case json::value_t::number_unsigned:
      return value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max()) ? GoType::int64
                                                                                                   : GoType::float64;
    case json::value_t::number_float:
      return GoType::float64;
    default:
      return GoType::nil;
  }
}

// The value's type as Go's %s prints reflect.TypeOf(value).
std::string go_type_name(const json& value) {
  switch (go_type(value)) {
    case GoType::map:
      return std::string(k_go_map);
    case GoType::slice:
      return std::string(k_go_slice);
    case GoType::string:
      return "string";
    case GoType::boolean:
      return "bool";
    case GoType::int64:
      return "int64";
    case GoType::float64:
      return "float64";
    case GoType::nil:
      break;
  }
  return "%!s(<nil>)";
}

// The value as Go's %s prints it: strings as they are, other scalars as %!s(type=value).
std::string go_s_text(const json& value) {
  switch (go_type(value)) {
    case GoType::string:
      return value.get<std::string>();
    case GoType::nil:
      return "%!s(<nil>)";
    case GoType::map: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [key, member] : value.items()) {
        out += (first ? "" : " ") + key + ":" + go_s_text(member);
        first = false;
      }
      return out + "]";
    }
    case GoType::slice: {
      std::string out = "[";
      for (std::size_t i = 0; i < value.size(); ++i) out += (i ? " " : "") + go_s_text(value[i]);
      return out + "]";
    }
    default:
      return "%!s(" + go_type_name(value) + "=" + api::go_value_text(value) + ")";
  }
}

// ---- kube's errors (apimachinery's mergepatch errors and strategicpatch's own) -----------------

std::unexpected<PatchError> refuse(PatchErrorKind kind, std::string message) {
  return std::unexpected(PatchError{kind, std::move(message)});
}

std::unexpected<PatchError> bad_primitive_list_format() {
  return refuse(PatchErrorKind::bad_request, "invalid patch format of primitive list");
}

std::unexpected<PatchError> bad_retain_keys_format() {
  return refuse(PatchErrorKind::bad_request, "invalid patch format of retainKeys");
}

std::unexpected<PatchError> bad_element_order_format() {
  return refuse(PatchErrorKind::bad_request, "invalid patch format of setElementOrder list");
}

std::unexpected<PatchError> no_list_of_lists() {
  return refuse(PatchErrorKind::unprocessable, "lists of lists are not supported");
}

std::unexpected<PatchError> no_merge_key(const json& map, const std::string& key) {
  return refuse(PatchErrorKind::internal,
                "map: " + api::go_value_text(map) + " does not contain declared merge key: " + key);
}

std::unexpected<PatchError> bad_arg_type(std::string_view expected, const json& actual) {
  return refuse(PatchErrorKind::internal,
                "expected a " + std::string(expected) + ", but received a " + go_type_name(actual));
}

std::unexpected<PatchError> bad_patch_type(const json& type, const json& map) {
  return refuse(PatchErrorKind::internal,
                "unknown patch type: " + go_s_text(type) + " in map: " + api::go_value_text(map));
}

// ---- Helpers ------------------------------------------------------------------------------------

// The field a "<prefix>/<field>" directive key names; nullopt when the key is not of that form.
std::optional<std::string> directive_field(std::string_view key, std::string_view prefix) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) return std::nullopt;
  return std::string(key.substr(slash + 1));
}

// The strategy of a field other than retainKeys ("merge", "replace" or "").
std::string_view base_strategy(const std::optional<PatchMeta>& meta) {
  if (!meta) return {};
  std::string_view rest = meta->strategy;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    if (part != "retainKeys") return part;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return {};
}

// Removes null members from the objects in `value`, however deep (discardNullValuesFromPatch).
void discard_nulls(json& value) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end();) {
      if (it->is_null()) {
        it = value.erase(it);
      } else {
        discard_nulls(*it);
        ++it;
      }
    }
  } else if (value.is_array()) {
    for (auto& item : value) discard_nulls(item);
  }
}

// Drops the objects that carry $patch from `value`, however deep; false when `value` is one.
bool remove_directives(json& value) {
  if (value.is_object()) {
    if (value.contains(k_directive)) return false;
    for (auto it = value.begin(); it != value.end();) {
      if (remove_directives(*it))
        ++it;
      else
        it = value.erase(it);
    }
  } else if (value.is_array()) {
    Array& items = value.get_ref<Array&>();
    std::erase_if(items, [](json& item) { return !remove_directives(item); });
  }
  return true;
}

// Sets original[field] to a patch value that is not merged: nulls and directives dropped.
void put_plain(json& original, const std::string& field, json value) {
  discard_nulls(value);
  if (remove_directives(value))
    original[field] = std::move(value);
  else
    original.erase(field);
}

// Go's sliceElementType over two lists: the one type of all their items.
PatchResult<GoType> element_type(const Array& first, const Array& second) {
  std::optional<GoType> type;
  for (const Array* list : {&first, &second}) {
    for (const json& item : *list) {
      const GoType current = go_type(item);
      if (!type) {
        type = current;
        if (current == GoType::slice) return no_list_of_lists();
      } else if (*type != current) {
        return refuse(PatchErrorKind::internal,
                      "list element types are not identical: " + api::go_value_text(json::array({first, second})));
      }
    }
  }
  if (!type) return refuse(PatchErrorKind::internal, "no elements in any of the given slices");
  return *type;
}

// Every item of `list` is an object with `key` (validateMergeKeyInLists).
PatchResult<void> check_merge_keys(const Array& list, const std::string& key) {
  for (const json& item : list) {
    if (!item.is_object()) return bad_arg_type(k_go_map, item);
    if (!item.contains(key)) return no_merge_key(item, key);
  }
  return {};
}

// The items of `merged` whose lookup value `present` has, and the others, each in list order.
struct Partition {
  Array present = {};
  Array absent = {};
};

// partitionMapsByPresentInList: `by` is searched as findMapInSliceBasedOnKeyValue searches,
// which fails on an item that is not an object before it finds a match.
PatchResult<Partition> partition_maps(Array merged, const ListIndex& by, const std::string& key) {
  Partition out;
  for (json& item : merged) {
    if (!item.is_object()) return bad_arg_type(k_go_map, item);
    const auto value = item.find(key);
    if (value == item.end()) return no_merge_key(item, key);
    const auto found = by.find(*value);
    const auto broken = by.first_non_object();
    if (broken && (!found || *found > *broken))
      return refuse(PatchErrorKind::internal, "value for key " + std::to_string(*broken) + " is not a map");
    (found ? out.present : out.absent).push_back(std::move(item));
  }
  return out;
}

// partitionPrimitivesByPresentInList. Go keys a map by the items, which fails for objects and
// lists.
PatchResult<Partition> partition_scalars(Array merged, const Array& by) {
  for (const Array* list : {static_cast<const Array*>(&merged), &by})
    for (const json& item : *list)
      if (item.is_structured())
        return refuse(PatchErrorKind::internal, "runtime error: hash of unhashable type " + go_type_name(item));
  const ListIndex index(by, "");
  Partition out;
  for (json& item : merged) (index.find(item) ? out.present : out.absent).push_back(std::move(item));
  return out;
}

// normalizeElementOrder: the patch's items in `patch_order`, the object's own in
// `server_order`, then the two interleaved.
Array order_merged(Partition parts, const ListIndex& patch_order, const ListIndex& server_order, const std::string& key,
                   bool maps) {
  Array patch_items = sort_by_order(std::move(parts.present), patch_order, key, maps);
  Array server_only = sort_by_order(std::move(parts.absent), server_order, key, maps);
  return merge_sorted(std::move(server_only), std::move(patch_items), server_order, key);
}

// ---- Merging ------------------------------------------------------------------------------------

PatchResult<json> merge_map(json original, json patch, const SchemaNode& schema);

// A list of scalars: the union, or with `delete_list` the items `patch` does not name.
PatchResult<Array> merge_scalars(Array original, const Array& patch, bool delete_list) {
  const ListIndex in_patch(patch, "");
  if (delete_list) {
    std::erase_if(original, [&](const json& item) { return in_patch.find(item).has_value(); });
    return original;
  }
  // The union, each value once (deduplicateScalars; the order is set below).
  Array both = original;
  both.insert(both.end(), patch.begin(), patch.end());
  const ListIndex first_of(both, "");
  Array merged;
  for (std::size_t i = 0; i < both.size(); ++i)
    if (first_of.find(both[i]) == i) merged.push_back(std::move(both[i]));
  auto parts = partition_scalars(std::move(merged), patch);
  if (!parts) return std::unexpected(parts.error());
  return order_merged(std::move(*parts), in_patch, ListIndex(original, ""), "", false);
}

// A list of objects merged by `key`: deletions and $patch: replace first, then each patch item
// merged into the first item with its key or appended (mergeSliceWithSpecialElements and
// mergeSliceWithoutSpecialElements), then ordered.
PatchResult<Array> merge_keyed(Array original, Array patch, const std::string& key, const SchemaNode& items) {
  KeyedList list(std::move(original), key);
  Array plain;
  bool replace = false;
  for (json& item : patch) {
    const auto directive = item.find(k_directive);
    if (directive == item.end()) {
      plain.push_back(std::move(item));
    } else if (*directive == "delete") {
      const auto value = item.find(key);
      if (value == item.end()) return no_merge_key(item, key);
      list.erase_all(*value);
    } else if (*directive == "replace") {
      replace = true;
    } else if (*directive == "merge") {
      return refuse(PatchErrorKind::internal, "merging lists cannot yet be specified in the patch");
    } else {
      return bad_patch_type(*directive, item);
    }
  }
  if (replace) {
    if (auto checked = check_merge_keys(plain, key); !checked) return std::unexpected(checked.error());
    return plain;
  }
  const Array server_values = list.live_values();
  Array patch_values;
  for (json& item : plain) {
    const auto value = item.find(key);
    if (value == item.end()) return no_merge_key(item, key);
    patch_values.push_back(*value);
    if (const auto found = list.find(*value)) {
      auto merged = merge_map(std::move(list.at(*found)), std::move(item), items);
      if (!merged) return std::unexpected(merged.error());
      list.at(*found) = std::move(*merged);
      list.reindex(*found);
    } else {
      list.push_back(std::move(item));
    }
  }
  const ListIndex patch_order(patch_values, "");
  auto parts = partition_maps(std::move(list).take(), patch_order, key);
  if (!parts) return std::unexpected(parts.error());
  // The orders hold key values: items are looked up by their key's value in them.
  return order_merged(std::move(*parts), patch_order, ListIndex(server_values, ""), key, true);
}

// mergeSlice: lists of scalars and lists of objects, checked to hold one type of item.
PatchResult<Array> merge_slice(Array original, Array patch, const SchemaNode& items, const std::string& key,
                               bool delete_list) {
  if (original.empty() && patch.empty()) return original;
  const auto type = element_type(original, patch);
  if (!type) return std::unexpected(type.error());
  if (*type != GoType::map) return merge_scalars(std::move(original), patch, delete_list);
  if (key.empty()) return refuse(PatchErrorKind::internal, "cannot merge lists without merge key");
  return merge_keyed(std::move(original), std::move(patch), key, items);
}

// mergeSliceHandler: a list field is merged when its strategy is merge (or for a deletion
// list), else replaced by the patch's list.
PatchResult<Array> merge_list_field(Array original, Array patch, const SchemaNode& schema, const std::string& field,
                                    bool delete_list) {
  const auto meta = schema.list_meta(field);
  if (!delete_list && base_strategy(meta) != "merge") return patch;
  return merge_slice(std::move(original), std::move(patch), schema.child(field),
                     meta ? std::string(meta->merge_key) : std::string(), delete_list);
}

// applyRetainKeysDirective: with $retainKeys, the original keeps only the keys it names, and
// the patch may set no others.
PatchResult<void> apply_retain_keys(json& original, json& patch) {
  const auto found = patch.find(k_retain_keys);
  if (found == patch.end()) return {};
  const json names = std::move(*found);
  patch.erase(found);
  if (!names.is_array()) return bad_retain_keys_format();
  std::set<std::string, std::less<>> kept;
  for (const json& name : names)
    if (name.is_string()) kept.insert(name.get<std::string>());
  for (const auto& [field, value] : patch.items()) {
    if (value.is_null() || field.starts_with(k_delete_from_primitive_list) || field.starts_with(k_set_element_order))
      continue;
    if (!kept.contains(field)) return bad_retain_keys_format();
  }
  for (auto it = original.begin(); it != original.end();) {
    if (kept.contains(it.key()))
      ++it;
    else
      it = original.erase(it);
  }
  return {};
}

// Whether two items of a list name the same element: by merge key, or the same scalar
// (mergeKeyValueEqual).
PatchResult<bool> same_element(const json& left, const json& right, const std::string& key) {
  if (key.empty()) return left == right;
  if (!left.is_object()) return bad_arg_type(k_go_map, left);
  if (!right.is_object()) return bad_arg_type(k_go_map, right);
  const auto l = left.find(key);
  if (l == left.end()) return no_merge_key(left, key);
  const auto r = right.find(key);
  if (r == right.end()) return no_merge_key(right, key);
  return *l == *r;
}

// validatePatchWithSetOrderList: the patch's items (deletions aside) come in the order
// $setElementOrder gives them, and it names every one.
PatchResult<void> check_element_order(const Array& patch_list, const Array& order, const std::string& key) {
  if (order.empty() || patch_list.empty()) return {};
  std::vector<const json*> items;
  for (const json& item : patch_list) {
    if (!key.empty()) {
      if (!item.is_object()) return bad_arg_type(k_go_map, item);
      const auto directive = item.find(k_directive);
      if (directive != item.end() && *directive == "delete") continue;
    }
    items.push_back(&item);
  }
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < items.size() && j < order.size()) {
    if (items[i]->is_object() && items[i]->contains(k_directive)) {
      ++i;
      continue;
    }
    const auto same = same_element(*items[i], order[j], key);
    if (!same) return std::unexpected(same.error());
    if (*same) ++i;
    ++j;
  }
  if (i < items.size() && j >= order.size())
    return refuse(PatchErrorKind::internal, "The order in patch list:\n" + api::go_value_text(patch_list) +
                                                "\n doesn't match " + std::string(k_set_element_order) + " list:\n" +
                                                api::go_value_text(order) + "\n");
  return {};
}

// One "$setElementOrder/<field>" directive: the field's list merged (or taken from the object
// or the patch alone), then ordered by the directive's list first, the object's order second.
PatchResult<void> apply_element_order(json& original, json& patch, const SchemaNode& schema,
                                      const std::string& directive_key, const json& order_value) {
  if (!order_value.is_array()) return bad_arg_type(k_go_slice, order_value);
  const Array& order = order_value.get_ref<const Array&>();
  const auto field = directive_field(directive_key, k_set_element_order);
  if (!field) return bad_element_order_format();
  const auto in_original = original.find(*field);
  const auto in_patch = patch.find(*field);
  if (in_original != original.end() && !in_original->is_array()) return bad_arg_type(k_go_slice, *in_original);
  if (in_patch != patch.end() && !in_patch->is_array()) return bad_arg_type(k_go_slice, *in_patch);
  if (in_original == original.end() && in_patch == patch.end()) return {};
  const Array none;
  const Array& original_list = in_original == original.end() ? none : in_original->get_ref<const Array&>();
  const Array& patch_list = in_patch == patch.end() ? none : in_patch->get_ref<const Array&>();
  const auto meta = schema.list_meta(*field);
  const std::string key = meta ? std::string(meta->merge_key) : std::string();
  if (auto checked = check_element_order(patch_list, order, key); !checked) return checked;

  Array merged;
  if (in_patch == patch.end()) {
    merged = original_list;
  } else if (in_original == original.end()) {
    json value = patch_list;
    remove_directives(value);
    merged = std::move(value.get_ref<Array&>());
  } else {
    auto list = merge_list_field(original_list, patch_list, schema, *field, false);
    if (!list) return std::unexpected(list.error());
    merged = std::move(*list);
  }
  auto parts = key.empty() ? partition_scalars(std::move(merged), order)
                           : partition_maps(std::move(merged), ListIndex(order, key, true), key);
  if (!parts) return std::unexpected(parts.error());
  const auto type = element_type(original_list, patch_list);
  if (!type) return std::unexpected(type.error());
  const bool maps = *type == GoType::map;
  if (maps) {
    if (auto checked = check_merge_keys(order, key); !checked) return checked;
    if (auto checked = check_merge_keys(original_list, key); !checked) return checked;
  }
  Array ordered = order_merged(std::move(*parts), ListIndex(order, maps ? key : ""),
                               ListIndex(original_list, maps ? key : ""), maps ? key : "", maps);
  original[*field] = std::move(ordered);
  patch.erase(*field);
  return {};
}

// mergePatchIntoOriginal: every $setElementOrder directive of the patch, taken out of it with
// the list it orders.
PatchResult<void> apply_element_orders(json& original, json& patch, const SchemaNode& schema) {
  std::vector<std::string> keys;
  for (const auto& [field, value] : patch.items())
    if (field.starts_with(k_set_element_order)) keys.push_back(field);
  for (const std::string& key : keys) {
    const json order = std::move(patch[key]);
    patch.erase(key);
    if (auto applied = apply_element_order(original, patch, schema, key, order); !applied) return applied;
  }
  return {};
}

// One field of the patch merged into the original (the loop of mergeMap).
PatchResult<void> merge_field(json& original, std::string field, json value, const SchemaNode& schema) {
  bool delete_list = false;
  if (field.starts_with(k_delete_from_primitive_list)) {
    auto listed = directive_field(field, k_delete_from_primitive_list);
    if (!listed) return bad_primitive_list_format();
    field = std::move(*listed);
    delete_list = true;
  }
  if (value.is_null()) {
    original.erase(field);
    return {};
  }
  const auto found = original.find(field);
  if (found == original.end() || go_type(*found) != go_type(value)) {
    if (!delete_list) put_plain(original, field, std::move(value));
    return {};
  }
  if (value.is_object()) {
    if (base_strategy(schema.field_meta(field)) == "replace") {
      *found = std::move(value);
      return {};
    }
    auto merged = merge_map(std::move(*found), std::move(value), schema.child(field));
    if (!merged) return std::unexpected(merged.error());
    *found = std::move(*merged);
  } else if (value.is_array()) {
    auto merged = merge_list_field(std::move(found->get_ref<Array&>()), std::move(value.get_ref<Array&>()), schema,
                                   field, delete_list);
    if (!merged) return std::unexpected(merged.error());
    *found = std::move(*merged);
  } else {
    *found = std::move(value);
  }
  return {};
}

PatchResult<json> merge_map(json original, json patch, const SchemaNode& schema) {
  if (const auto directive = patch.find(k_directive); directive != patch.end()) {
    if (*directive == "replace") {
      patch.erase(directive);
      return patch;
    }
    if (*directive == "delete") return json::object();
    return bad_patch_type(*directive, patch);
  }
  if (!original.is_object()) original = json::object();
  if (auto retained = apply_retain_keys(original, patch); !retained) return std::unexpected(retained.error());
  if (auto ordered = apply_element_orders(original, patch, schema); !ordered) return std::unexpected(ordered.error());
  for (auto& [field, value] : patch.items())
    if (auto merged = merge_field(original, field, std::move(value), schema); !merged)
      return std::unexpected(merged.error());
  return original;
}

}  // namespace

PatchResult<json> strategic_merge(json target, const json& patch, const SchemaNode& schema) {
  if (!patch.is_object()) return patch;
  return merge_map(std::move(target), patch, schema);
}

}  // namespace kw::codec
