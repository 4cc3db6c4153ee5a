#include "core/codec/list_order.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace kw::codec {
namespace {

using json = nlohmann::json;

// Appends the text a merge key value is indexed by: numbers by their double value, strings,
// arrays and objects by their contents. Values nlohmann's == finds equal have the same text, so
// a lookup by text and then == finds what a scan with == finds (values that differ can share a
// text, two integers past 2^53 that round to one double). The exception: == converts an
// unsigned integer past 2^63 to a negative signed one and finds them equal; here they differ.
void append_index_text(std::string& out, const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      out += 'z';
      return;
    case json::value_t::boolean:
      out += value.get<bool>() ? 't' : 'f';
      return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: {
      double number = value.get<double>();
      if (number == 0) number = 0;  // -0.0 and 0.0 are one value
      char bytes[sizeof number];
      std::memcpy(bytes, &number, sizeof number);
      out += 'n';
      out.append(bytes, sizeof bytes);
      return;
    }
    case json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      out += 's' + std::to_string(text.size()) + ':' + text;
      return;
    }
    case json::value_t::array:
      out += 'a' + std::to_string(value.size()) + ':';
      for (const auto& item : value) append_index_text(out, item);
      return;
    case json::value_t::object:
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

std::string index_text(const json& value) {
  std::string text;
  append_index_text(text, value);
  return text;
}

// Go's sort.SliceStable (insertion sort of blocks of 20, then symmetric merges), step for step:
// kube's comparator is not a strict weak order when an item is missing from the order, and
// then only the same algorithm puts the items where kube does.
template <class T, class Less>
void go_insertion_sort(std::vector<T>& v, std::size_t a, std::size_t b, Less less) {
  for (std::size_t i = a + 1; i < b; ++i)
    for (std::size_t j = i; j > a && less(v[j], v[j - 1]); --j) std::swap(v[j], v[j - 1]);
}

template <class T, class Less>
void go_sym_merge(std::vector<T>& v, std::size_t a, std::size_t m, std::size_t b, Less less) {
  if (m - a == 1) {
    std::size_t i = m;
    std::size_t j = b;
    while (i < j) {
      const std::size_t h = (i + j) / 2;
      if (less(v[h], v[a]))
        i = h + 1;
      else
        j = h;
    }
    for (std::size_t k = a; k + 1 < i; ++k) std::swap(v[k], v[k + 1]);
    return;
  }
  if (b - m == 1) {
    std::size_t i = a;
    std::size_t j = m;
    while (i < j) {
      const std::size_t h = (i + j) / 2;
      if (!less(v[m], v[h]))
        i = h + 1;
      else
        j = h;
    }
    for (std::size_t k = m; k > i; --k) std::swap(v[k], v[k - 1]);
    return;
  }
  const std::size_t mid = (a + b) / 2;
  const std::size_t n = mid + m;
  std::size_t start = a;
  std::size_t r = m;
  if (m > mid) {
    start = n - b;
    r = mid;
  }
  const std::size_t p = n - 1;
  while (start < r) {
    const std::size_t c = (start + r) / 2;
    if (!less(v[p - c], v[c]))
      start = c + 1;
    else
      r = c;
  }
  const std::size_t end = n - start;
  if (start < m && m < end) std::rotate(v.begin() + start, v.begin() + m, v.begin() + end);
  if (a < start && start < mid) go_sym_merge(v, a, start, mid, less);
  if (mid < end && end < b) go_sym_merge(v, mid, end, b, less);
}

template <class T, class Less>
void go_stable_sort(std::vector<T>& v, Less less) {
  const std::size_t n = v.size();
  std::size_t block = 20;
  std::size_t a = 0;
  std::size_t b = block;
  for (; b <= n; a = b, b += block) go_insertion_sort(v, a, b, less);
  go_insertion_sort(v, a, n, less);
  for (; block < n; block *= 2) {
    a = 0;
    for (b = 2 * block; b <= n; a = b, b += 2 * block) go_sym_merge(v, a, a + block, b, less);
    if (a + block < n) go_sym_merge(v, a, a + block, n, less);
  }
}

// -1 when the item is not in the order (Go's index()).
std::ptrdiff_t rank_in(const ListIndex& order, const json& item, const std::string& key) {
  const auto position = order.find(lookup_value(item, key));
  return position ? static_cast<std::ptrdiff_t>(*position) : -1;
}

}  // namespace

const json& lookup_value(const json& item, const std::string& key) {
  static const json k_nil;
  if (key.empty()) return item;
  if (!item.is_object()) return k_nil;
  const auto found = item.find(key);
  return found == item.end() ? k_nil : *found;
}

ListIndex::ListIndex(const json::array_t& list, const std::string& key, bool skip_keyless) {
  m_values.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    if (!key.empty() && !item.is_object() && !m_first_non_object) m_first_non_object = i;
    const bool keyless = !key.empty() && (!item.is_object() || !item.contains(key));
    m_values.push_back(keyless && skip_keyless ? json() : lookup_value(item, key));
    if (keyless && skip_keyless) continue;
    m_positions[index_text(m_values.back())].push_back(i);
  }
}

std::optional<std::size_t> ListIndex::find(const json& value) const {
  const auto bucket = m_positions.find(index_text(value));
  if (bucket == m_positions.end()) return std::nullopt;
  for (std::size_t position : bucket->second)
    if (m_values[position] == value) return position;
  return std::nullopt;
}

KeyedList::KeyedList(json::array_t list, std::string key) : m_key(std::move(key)) {
  m_items.reserve(list.size());
  for (auto& item : list) push_back(std::move(item));
}

std::optional<std::size_t> KeyedList::find(const json& value) const {
  const auto bucket = m_buckets.find(index_text(value));
  if (bucket == m_buckets.end()) return std::nullopt;
  for (std::size_t position : bucket->second)
    if (m_items[position][m_key] == value) return position;
  return std::nullopt;
}

void KeyedList::erase_all(const json& value) {
  while (const auto position = find(value)) {
    unindex(*position);
    m_removed[*position] = true;
  }
}

void KeyedList::push_back(json item) {
  m_items.push_back(std::move(item));
  m_removed.push_back(false);
  m_bucket_of.push_back(nullptr);
  index(m_items.size() - 1);
}

void KeyedList::reindex(std::size_t position) {
  unindex(position);
  index(position);
}

json::array_t KeyedList::live_values() const {
  json::array_t out;
  for (std::size_t i = 0; i < m_items.size(); ++i)
    if (!m_removed[i]) out.push_back(lookup_value(m_items[i], m_key));
  return out;
}

json::array_t KeyedList::take() && {
  json::array_t out;
  out.reserve(m_items.size());
  for (std::size_t i = 0; i < m_items.size(); ++i)
    if (!m_removed[i]) out.push_back(std::move(m_items[i]));
  return out;
}

void KeyedList::index(std::size_t position) {
  const json& item = m_items[position];
  if (!item.is_object()) return;
  const auto value = item.find(m_key);
  if (value == item.end()) return;
  Buckets::value_type& bucket = *m_buckets.try_emplace(index_text(*value)).first;
  bucket.second.insert(position);
  m_bucket_of[position] = &bucket;
}

void KeyedList::unindex(std::size_t position) {
  if (m_bucket_of[position] == nullptr) return;
  m_bucket_of[position]->second.erase(position);
  m_bucket_of[position] = nullptr;
}

json::array_t sort_by_order(json::array_t items, const ListIndex& order, const std::string& key, bool maps) {
  json::array_t deleted;
  if (maps) {
    const auto kept = std::stable_partition(items.begin(), items.end(), [](const json& item) {
      const auto directive = item.find("$patch");
      return directive == item.end() || *directive != "delete";
    });
    deleted.assign(std::make_move_iterator(kept), std::make_move_iterator(items.end()));
    items.erase(kept, items.end());
  }
  struct Ranked {
    std::ptrdiff_t rank = -1;
    std::size_t position = 0;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) ranked.push_back({rank_in(order, items[i], key), i});
  go_stable_sort(ranked,
                 [](const Ranked& a, const Ranked& b) { return a.rank >= 0 && b.rank >= 0 ? a.rank < b.rank : true; });
  json::array_t out;
  out.reserve(items.size() + deleted.size());
  for (const Ranked& r : ranked) out.push_back(std::move(items[r.position]));
  for (auto& item : deleted) out.push_back(std::move(item));
  return out;
}

json::array_t merge_sorted(json::array_t left, json::array_t right, const ListIndex& server_order,
                           const std::string& key) {
  json::array_t out;
  out.reserve(left.size() + right.size());
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < left.size() || j < right.size()) {
    bool take_left = j >= right.size();
    if (i < left.size() && j < right.size()) {
      const std::ptrdiff_t l = rank_in(server_order, left[i], key);
      const std::ptrdiff_t r = rank_in(server_order, right[j], key);
      take_left = l >= 0 && r >= 0 && l < r;
    }
    out.push_back(std::move(take_left ? left[i++] : right[j++]));
  }
  return out;
}

}  // namespace kw::codec
