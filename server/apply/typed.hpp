#pragma once
// Server-side apply's operations on typed values (an object and its Type): the set of fields
// a value sets, the merge of an applied configuration into an object, the comparison of two
// versions of an object, and the removal of fields. They follow structured-merge-diff's rules:
// atomic lists, maps and structs are one field; a list-map item is identified by its keys
// (with their defaults), a set item by its value; empty lists and maps are leaves.
#include <expected>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/apply/fieldpath.hpp"
#include "server/apply/schema.hpp"

namespace kw::apply {

// Errors read "<path>: <what is wrong>" (".spec.ports: duplicate entries for key [port=80]").
template <typename T>
using Typed = std::expected<T, std::string>;

// What structured-merge-diff refuses in a value (an applied configuration): a field the type
// does not declare, a scalar of the wrong type, a list item without its keys, two items with
// the same identity. nullopt when it is valid.
std::optional<std::string> validate(const nlohmann::json& value, const Type& type);

// The fields `value` sets: every leaf, every list item, and every map key that is not a
// declared field.
Set to_field_set(const nlohmann::json& value, const Type& type);

// `rhs` merged into `lhs`: rhs wins on every field it sets, list items are merged by identity
// in rhs's order (lhs's other items kept where they were), atomic parts taken whole.
Typed<nlohmann::json> merge(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type);

// Whether merge(lhs, rhs) gives lhs back, found by the same walk without building the merge.
// False also where the merge would fail (an item without its keys, duplicate items) and where
// rhs lists the items of an associative list in another order than lhs: the caller merges
// for real then.
bool merge_keeps(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type);

struct Comparison {
  Set removed, modified, added;
  bool same() const { return removed.empty() && modified.empty() && added.empty(); }
  // Drops `fields` (and everything under its members) from the three sets.
  void exclude(const Set& fields);
};
// What changed from `lhs` to `rhs`: leaves and parts that appeared, went or changed.
Typed<Comparison> compare(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type);

// `value` without the paths of `items` (a member removes its whole subtree). Maps and lists
// left empty go too; the result is null when nothing is left.
nlohmann::json remove_items(const nlohmann::json& value, const Set& items, const Type& type);

// `set` with every declared struct field that has children also made a member, so that
// removing it removes the field itself and not only what was under it.
Set ensure_named_fields_are_members(const Set& set, const Type& type);

}  // namespace kw::apply
