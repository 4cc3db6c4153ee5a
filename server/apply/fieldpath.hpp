#pragma once
// Field paths and sets of them, as server-side apply tracks ownership: a path is a chain of
// elements (a field name, the key of a list-map item, the value of a set item, a list index),
// and a set is a tree of them. A set is written in an object's managedFields as FieldsV1:
// {"f:spec":{"f:replicas":{}}, "f:containers":{"k:{\"name\":\"c\"}":{".":{}, ...}}}.
#include <compare>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::apply {

// One step of a path. Elements order by type (field names, keys, values, indexes), then by
// content, as structured-merge-diff orders them: FieldsV1 is written in this order.
struct PathElement {
  enum class Type : std::uint8_t { field, key, value, index };
  Type type = Type::field;
  std::string name;                                         // field
  std::vector<std::pair<std::string, nlohmann::json>> key;  // key: sorted by field name
  nlohmann::json value;                                     // value
  std::int64_t index = 0;                                   // index

  static PathElement field_named(std::string name);
  static PathElement with_key(std::vector<std::pair<std::string, nlohmann::json>> fields);  // sorts
  static PathElement with_value(nlohmann::json value);
  static PathElement at(std::int64_t index);

  // ".name", "[name=\"c\",port=80]", "[=value]", "[3]": how conflicts print a path.
  std::string to_string() const;
  // "f:name", "k:{...}", "v:...", "i:3": the FieldsV1 key.
  std::string serialize() const;
  static std::expected<PathElement, std::string> deserialize(std::string_view text);
};

// structured-merge-diff's order of JSON values: numbers < strings < booleans < lists < maps
// < null, numbers by value, lists and maps element by element.
int compare_values(const nlohmann::json& a, const nlohmann::json& b);
int compare(const PathElement& a, const PathElement& b);
inline bool operator==(const PathElement& a, const PathElement& b) { return compare(a, b) == 0; }
inline bool operator<(const PathElement& a, const PathElement& b) { return compare(a, b) < 0; }

using Path = std::vector<PathElement>;
// ".spec.containers[name=\"c\"].image"
std::string to_string(const Path& path);

// A set of paths, as a tree: the elements that are members at this level, and the subsets
// under each element. An element can be both (a list item owned as a whole and field by field).
// Both are kept in element order whatever order paths come in (a list's items are walked in
// list order), each insertion in logarithmic time.
class Set {
 public:
  Set() = default;

  void insert(const Path& path);
  bool has(const Path& path) const;
  bool empty() const;
  std::size_t size() const;
  bool operator==(const Set& other) const;

  Set union_with(const Set& other) const;
  Set intersection(const Set& other) const;
  // Members of this set not members of `other`; children compared the same way, level by level.
  Set difference(const Set& other) const;
  // Like difference, and a member of `other` also removes everything under it here.
  Set recursive_difference(const Set& other) const;
  // The subset under `element` (empty when none).
  const Set& with_prefix(const PathElement& element) const;
  // Every path, members first at each level, then the children's in order.
  void iterate(const std::function<void(const Path&)>& visit) const;
  std::vector<Path> paths() const;

  // FieldsV1 JSON (an object) and back.
  nlohmann::json to_json() const;
  static std::expected<Set, std::string> from_json(const nlohmann::json& fields);

  // Direct access for the walkers that need a level at a time.
  const std::set<PathElement>& members() const { return m_members; }
  const std::map<PathElement, Set>& children() const { return m_children; }
  void insert_member(const PathElement& element);
  Set& descend(const PathElement& element);

 private:
  void emit(nlohmann::json& out, bool include_self) const;
  // difference, and recursive_difference when `members_take_subtrees`.
  Set subtract(const Set& other, bool members_take_subtrees) const;
  void iterate_prefix(Path& prefix, const std::function<void(const Path&)>& visit) const;

  std::set<PathElement> m_members;
  std::map<PathElement, Set> m_children;
};

}  // namespace kw::apply
