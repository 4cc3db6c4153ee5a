#include "cli/client/merge.hpp"

#include <algorithm>
#include "core/codec/patch_schema.hpp"
#include "core/codec/strategic_merge.hpp"
#include "core/codec/text.hpp"

namespace kw::cli {

using nlohmann::json;

namespace {

enum class Shape { object, array, scalar };

Shape shape_of(const json& value) {
  if (value.is_object()) return Shape::object;
  if (value.is_array()) return Shape::array;
  return Shape::scalar;
}

struct DiffOptions {
  bool ignore_deletions = false;
  bool ignore_changes_and_additions = false;
  PatchStrategy strategy = PatchStrategy::strategic;
};

// Whether every item is an object carrying the key, so the list can be merged by it.
bool keyed(const json& list, const std::string& key) {
  return std::all_of(list.begin(), list.end(), [&](const json& item) { return item.is_object() && item.contains(key); });
}

json::const_iterator find_by_key(const json& list, const std::string& key, const json& value) {
  return std::find_if(list.begin(), list.end(),
                      [&](const json& item) { return item.is_object() && item.contains(key) && item[key] == value; });
}

json diff_maps(const json& original, const json& modified, const DiffOptions& options, const codec::SchemaNode& schema);

// The merge key of a list field under a strategic patch; "" when the list is replaced.
std::string list_key(const std::string& field, const DiffOptions& options, const codec::SchemaNode& schema) {
  if (options.strategy != PatchStrategy::strategic) return {};
  const auto meta = schema.list_meta(field);
  return meta ? std::string(meta->merge_key) : std::string();
}

// A list of scalars merged as a set (finalizers): the new items, "$deleteFromPrimitiveList/F"
// for the removed ones (sorted, each once) and "$setElementOrder/F" for the order, as
// kubectl's diffListsOfScalars writes them.
void diff_scalar_sets(const std::string& field, const json& original, const json& modified,
                      const DiffOptions& options, json& patch) {
  const auto in = [](const json& list, const json& item) { return std::find(list.begin(), list.end(), item) != list.end(); };
  json added = json::array();
  json removed = json::array();
  if (!options.ignore_changes_and_additions)
    for (const auto& item : modified)
      if (!in(original, item)) added.push_back(item);
  if (!options.ignore_deletions)
    for (const auto& item : original)
      if (!in(modified, item) && !in(removed, item)) removed.push_back(item);
  std::sort(removed.begin(), removed.end(), [](const json& a, const json& b) {
    return (a.is_string() ? a.get<std::string>() : a.dump()) < (b.is_string() ? b.get<std::string>() : b.dump());
  });
  if (!added.empty()) patch[field] = std::move(added);
  if (!removed.empty()) patch["$deleteFromPrimitiveList/" + field] = removed;
  if ((!options.ignore_deletions && !removed.empty()) || (!options.ignore_changes_and_additions && original != modified))
    patch["$setElementOrder/" + field] = modified;
}

// Whether both lists hold the same merge keys in the same order.
bool same_order(const json& original, const json& modified, const std::string& key) {
  if (original.size() != modified.size()) return false;
  for (std::size_t i = 0; i < original.size(); ++i)
    if (original[i][key] != modified[i][key]) return false;
  return true;
}

void diff_lists(const std::string& field, const json& original, const json& modified, const DiffOptions& options,
                const codec::SchemaNode& schema, json& patch) {
  if (options.strategy == PatchStrategy::strategic)
    if (const auto meta = schema.list_meta(field); meta && meta->merge_key.empty()) {
      diff_scalar_sets(field, original, modified, options, patch);
      return;
    }
  std::string key = list_key(field, options, schema);
  if (!key.empty() && !(keyed(original, key) && keyed(modified, key))) key.clear();
  if (key.empty()) {
    if (original != modified && !options.ignore_changes_and_additions) patch[field] = modified;
    return;
  }
  json items = json::array();
  for (const auto& item : modified) {
    auto match = find_by_key(original, key, item[key]);
    if (match == original.end()) {
      if (!options.ignore_changes_and_additions) items.push_back(item);
      continue;
    }
    json sub = diff_maps(*match, item, options, schema.child(field));
    if (!sub.empty()) {
      sub[key] = item[key];
      items.push_back(std::move(sub));
    }
  }
  if (!options.ignore_deletions)
    for (const auto& item : original)
      if (find_by_key(modified, key, item[key]) == modified.end())
        items.push_back(json{{key, item[key]}, {"$patch", "delete"}});
  // kubectl's diffLists: the order of the whole list goes with any change to it, or alone when
  // only the order changed.
  if ((!options.ignore_changes_and_additions && (!items.empty() || !same_order(original, modified, key))) ||
      (!options.ignore_deletions && !items.empty())) {
    json order = json::array();
    for (const auto& item : modified) order.push_back(json{{key, item[key]}});
    patch["$setElementOrder/" + field] = std::move(order);
  }
  if (!items.empty()) patch[field] = std::move(items);
}

json diff_maps(const json& original, const json& modified, const DiffOptions& options, const codec::SchemaNode& schema) {
  json patch = json::object();
  const json empty = json::object();
  const json& from = original.is_object() ? original : empty;
  if (!modified.is_object()) return patch;
  for (const auto& [field, value] : modified.items()) {
    auto found = from.find(field);
    if (found == from.end() || shape_of(*found) != shape_of(value)) {
      if (!options.ignore_changes_and_additions) patch[field] = value;
      continue;
    }
    switch (shape_of(value)) {
      case Shape::object: {
        json sub = diff_maps(*found, value, options, schema.child(field));
        if (!sub.empty()) patch[field] = std::move(sub);
        break;
      }
      case Shape::array:
        diff_lists(field, *found, value, options, schema, patch);
        break;
      case Shape::scalar:
        if (*found != value && !options.ignore_changes_and_additions) patch[field] = value;
        break;
    }
  }
  if (!options.ignore_deletions)
    for (const auto& [field, value] : from.items())
      if (!modified.contains(field)) patch[field] = nullptr;
  return patch;
}

// Combines two patches computed against the same object (the deletions and the changes).
json merge_patches(json into, const json& next, const DiffOptions& options, const codec::SchemaNode& schema) {
  for (const auto& [field, value] : next.items()) {
    auto found = into.find(field);
    if (found == into.end()) {
      into[field] = value;
    } else if (found->is_object() && value.is_object()) {
      *found = merge_patches(*found, value, options, schema.child(field));
    } else if (found->is_array() && value.is_array() && !list_key(field, options, schema).empty()) {
      const std::string key = list_key(field, options, schema);
      if (!keyed(*found, key) || !keyed(value, key)) {
        *found = value;
        continue;
      }
      for (const auto& item : value) {
        auto match = std::find_if(found->begin(), found->end(), [&](const json& existing) {
          return existing[key] == item[key] && !existing.contains("$patch") && !item.contains("$patch");
        });
        if (match == found->end()) found->push_back(item);
        else *match = merge_patches(*match, item, options, schema.child(field));
      }
    } else {
      *found = value;
    }
  }
  return into;
}

}  // namespace

std::string go_json(const json& value) { return codec::go_json_escape(value.dump()) + '\n'; }

json with_last_applied(const json& manifest) {
  json object = manifest;
  json& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  json& annotations = metadata["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  annotations.erase(std::string(k_last_applied_annotation));
  const std::string text = go_json(object);
  annotations[std::string(k_last_applied_annotation)] = text;
  return object;
}

json last_applied_of(const json& live) {
  const json* annotations = nullptr;
  if (live.is_object() && live.contains("metadata") && live["metadata"].is_object() &&
      live["metadata"].contains("annotations"))
    annotations = &live["metadata"]["annotations"];
  if (annotations == nullptr || !annotations->is_object()) return nullptr;
  auto found = annotations->find(std::string(k_last_applied_annotation));
  if (found == annotations->end() || !found->is_string()) return nullptr;
  auto parsed = json::parse(found->get<std::string>(), nullptr, false);
  return parsed.is_object() ? parsed : json();
}

json three_way_patch(const json& original, const json& modified, const json& current, PatchStrategy strategy) {
  const codec::SchemaNode schema = codec::SchemaNode::of_object(modified);
  const json delta = diff_maps(current, modified, DiffOptions{true, false, strategy}, schema);
  const json deletions = diff_maps(original, modified, DiffOptions{false, true, strategy}, schema);
  return merge_patches(deletions, delta, DiffOptions{false, false, strategy}, schema);
}

json two_way_patch(const json& original, const json& modified, PatchStrategy strategy) {
  return diff_maps(original, modified, DiffOptions{false, false, strategy}, codec::SchemaNode::of_object(modified));
}

codec::PatchResult<json> apply_strategic_patch(json target, const json& patch) {
  const codec::SchemaNode schema = codec::SchemaNode::of_object(target);
  return codec::strategic_merge(std::move(target), patch, schema);
}

}  // namespace kw::cli
