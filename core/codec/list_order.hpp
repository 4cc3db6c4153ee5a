#pragma once
// The list bookkeeping of strategic merge patch: a list being merged by its merge key, an index
// of where values sit in a list, and the ordering kube gives merged lists (strategicpatch's
// normalizeSliceOrder and mergeSortedSlice, with Go's sort.SliceStable so that items the order
// does not name land where kube puts them).
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::codec {

// The value a list item is matched and ordered by: its merge key's value, or the item itself
// when `key` is empty (a list of scalars); null when the item is not an object or lacks the key
// (Go reads a missing key as nil).
const nlohmann::json& lookup_value(const nlohmann::json& item, const std::string& key);

// Where the values of a list sit, found without a scan: Go's index() and
// findMapInSliceBasedOnKeyValue over a fixed list.
class ListIndex {
 public:
  // Indexes lookup_value(item, key) of each item; with `skip_keyless`, objects without the key
  // and non-objects are left out (they match nothing).
  ListIndex(const nlohmann::json::array_t& list, const std::string& key, bool skip_keyless = false);
  // The first position whose value equals `value`.
  std::optional<std::size_t> find(const nlohmann::json& value) const;
  // The position of the first item that is not an object (skipped with `skip_keyless`).
  std::optional<std::size_t> first_non_object() const { return m_first_non_object; }

 private:
  std::vector<nlohmann::json> m_values;
  std::unordered_map<std::string, std::vector<std::size_t>> m_positions;  // by index text
  std::optional<std::size_t> m_first_non_object;
};

// A list being merged by its merge key: the items in their order, removed ones left out until
// the end, and for each key value the positions of the items that carry it, so that a patch
// item finds its match without a scan of the list.
class KeyedList {
 public:
  KeyedList(nlohmann::json::array_t list, std::string key);

  // The first live item, in list order, whose merge key equals `value`.
  std::optional<std::size_t> find(const nlohmann::json& value) const;
  nlohmann::json& at(std::size_t position) { return m_items[position]; }
  // Removes every item whose merge key equals `value`.
  void erase_all(const nlohmann::json& value);
  void push_back(nlohmann::json item);
  // Files the item at `position` under its merge key again, after a merge may have changed it.
  void reindex(std::size_t position);
  // The lookup values of the live items, in order.
  nlohmann::json::array_t live_values() const;
  nlohmann::json::array_t take() &&;

 private:
  using Buckets = std::unordered_map<std::string, std::set<std::size_t>>;

  void index(std::size_t position);
  void unindex(std::size_t position);

  std::string m_key;
  std::vector<nlohmann::json> m_items;
  std::vector<bool> m_removed;
  std::vector<Buckets::value_type*> m_bucket_of;  // where each item is filed; null when it has no key
  Buckets m_buckets;                              // references to its elements stay valid as it grows
};

// `items` sorted by their position in the list `order` indexes, as kube's normalizeSliceOrder
// sorts (items `order` lacks compare as smaller than anything); with `maps`, items marked
// {"$patch": "delete"} go last.
nlohmann::json::array_t sort_by_order(nlohmann::json::array_t items, const ListIndex& order, const std::string& key,
                                      bool maps);

// `left` and `right` (each already sorted) interleaved as kube's mergeSortedSlice does: an
// item of `left` comes first only when `server_order` has both and puts it first.
nlohmann::json::array_t merge_sorted(nlohmann::json::array_t left, nlohmann::json::array_t right,
                                     const ListIndex& server_order, const std::string& key);

}  // namespace kw::codec
