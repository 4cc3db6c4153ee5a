#include "server/apply/typed.hpp"

#include <map>
#include <optional>

namespace kw::apply {
namespace {

using json = nlohmann::json;

enum class Form { scalar, list, map };

// The form `type` treats `value` as (structured-merge-diff's deduceAtom): the value's own
// form when the type accepts it, else the type's first form (map, scalar, list).
Form form_of(const Type& type, const json* value) {
  if (value != nullptr) {
    if (value->is_array() && type.accepts_list()) return Form::list;
    if (value->is_object() && type.accepts_map()) return Form::map;
    if (!value->is_null() && !value->is_array() && !value->is_object() && type.accepts_scalar()) return Form::scalar;
  }
  if (type.accepts_map()) return Form::map;
  if (type.accepts_scalar()) return Form::scalar;
  return Form::list;
}

std::string located(const Path& path, const std::string& message) {
  return path.empty() ? message : to_string(path) + ": " + message;
}

// How a list item is identified: by its keys (list-map), its value (set) or its index.
Typed<PathElement> item_element(const Type& list, std::int64_t index, const json& item) {
  if (list.list_atomic()) return PathElement::at(index);
  const auto keys = list.list_keys();
  if (keys.empty()) {
    if (item.is_object()) return std::unexpected(std::string("associative list without keys has an element that's a map type"));
    if (item.is_array()) return std::unexpected(std::string("not supported: associative list with lists as elements"));
    if (item.is_null())
      return std::unexpected(std::string("associative list without keys has an element that's an explicit null"));
    return PathElement::with_value(item);
  }
  if (item.is_null()) return std::unexpected(std::string("associative list with keys may not have a null element"));
  if (!item.is_object())
    return std::unexpected(std::string("associative list with keys may not have non-map elements"));
  std::vector<std::pair<std::string, json>> fields;
  for (const auto& key : keys) {
    if (const auto found = item.find(key); found != item.end()) {
      fields.emplace_back(key, *found);
    } else if (json fallback = list.key_default(key); !fallback.is_null()) {
      fields.emplace_back(key, std::move(fallback));
    } else {
      return std::unexpected("associative list with keys has an element that omits key field \"" + key +
                             "\" (and doesn't have default value)");
    }
  }
  return PathElement::with_key(std::move(fields));
}

// --- to_field_set -------------------------------------------------------------------------

void collect(const json& value, const Type& type, Path& path, Set& out) {
  switch (form_of(type, &value)) {
    case Form::scalar:
      out.insert(path);
      return;
    case Form::list: {
      if (type.list_atomic()) {
        out.insert(path);
        return;
      }
      if (!value.is_array()) return;
      const Type element = type.list_element();
      for (std::size_t i = 0; i < value.size(); ++i) {
        auto pe = item_element(type, static_cast<std::int64_t>(i), value[i]);
        if (!pe) continue;  // reported by validation; the set skips such items
        path.push_back(std::move(*pe));
        collect(value[i], element, path, out);
        out.insert(path);
        path.pop_back();
      }
      return;
    }
    case Form::map: {
      if (type.map_atomic()) {
        out.insert(path);
        return;
      }
      if (!value.is_object()) return;
      for (const auto& [key, child] : value.items()) {
        const auto declared = type.field(key);
        path.push_back(PathElement::field_named(key));
        collect(child, declared ? *declared : type.child(key), path, out);
        if (child.is_null() || (child.is_object() && child.empty()) || !declared) out.insert(path);
        path.pop_back();
      }
      return;
    }
  }
}

// A value as Go prints the ones structured-merge-diff rejects.
std::string go_value(const json& value) {
  return "&value.valueUnstructured{Value:" + (value.is_string() ? value.get<std::string>() : value.dump()) + "}";
}

// structured-merge-diff's validation: the first thing wrong in `value`.
std::optional<std::string> check(const json& value, const Type& type, Path& path) {
  if (value.is_null()) return std::nullopt;
  switch (form_of(type, &value)) {
    case Form::scalar: {
      if (value.is_object() || value.is_array()) return located(path, "expected scalar, got " + go_value(value));
      const char* wanted = nullptr;
      switch (type.scalar_kind()) {
        case Type::Scalar::string:
          if (!value.is_string()) wanted = "string";
          break;
        case Type::Scalar::numeric:
          if (!value.is_number()) wanted = "numeric (int or float)";
          break;
        case Type::Scalar::boolean:
          if (!value.is_boolean()) wanted = "boolean";
          break;
        case Type::Scalar::untyped:
          break;
      }
      if (wanted != nullptr) return located(path, std::string("expected ") + wanted + ", got " + go_value(value));
      return std::nullopt;
    }
    case Form::list: {
      if (!value.is_array()) return located(path, "expected list, got " + go_value(value));
      const bool associative = !type.list_atomic();
      const Type element = type.list_element();
      std::map<PathElement, bool> seen;
      for (std::size_t i = 0; i < value.size(); ++i) {
        PathElement pe = PathElement::at(static_cast<std::int64_t>(i));
        if (associative) {
          auto identified = item_element(type, static_cast<std::int64_t>(i), value[i]);
          if (!identified) return located(path, "element " + std::to_string(i) + ": " + identified.error());
          if (!seen.emplace(*identified, true).second)
            return located(path, "duplicate entries for key " + identified->to_string());
          pe = std::move(*identified);
        }
        path.push_back(std::move(pe));
        auto nested = check(value[i], element, path);
        path.pop_back();
        if (nested) return nested;
      }
      return std::nullopt;
    }
    case Form::map: {
      if (!value.is_object()) return located(path, "expected map, got " + go_value(value));
      for (const auto& [key, child] : value.items()) {
        path.push_back(PathElement::field_named(key));
        std::optional<std::string> nested;
        if (const auto declared = type.field(key)) nested = check(child, *declared, path);
        else if (const auto element = type.map_element()) nested = check(child, *element, path);
        else nested = to_string(path) + ": field not declared in schema";
        path.pop_back();
        if (nested) return nested;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// --- merge and compare --------------------------------------------------------------------

class MergeWalker {
 public:
  explicit MergeWalker(Comparison* comparison) : m_comparison(comparison) {}

  // The merged value; nullopt when neither side has one (or a list/map came out empty).
  std::optional<json> merge(const json* lhs, const json* rhs, const Type& type) {
    const Form left = form_of(type, lhs);
    const Form right = form_of(type, rhs);
    bool leaf = false;
    std::optional<json> out;
    if (left != right && lhs != nullptr && rhs != nullptr) {
      // The value changed form (a scalar became a map...): one changed field, then the new
      // value's parts as new.
      out = leaf_rule(lhs, rhs);
      leaf = true;
      handle(right, nullptr, rhs, type, leaf);
    } else {
      out = handle(right, lhs, rhs, type, leaf);
    }
    if (!leaf && m_comparison != nullptr) {
      if (lhs == nullptr) m_comparison->added.insert(m_path);
      else if (rhs == nullptr) m_comparison->removed.insert(m_path);
    }
    return out;
  }

  const std::optional<std::string>& error() const { return m_error; }

 private:
  std::optional<json> leaf_rule(const json* lhs, const json* rhs) {
    if (m_comparison != nullptr) {
      if (lhs == nullptr) m_comparison->added.insert(m_path);
      else if (rhs == nullptr) m_comparison->removed.insert(m_path);
      else if (*lhs != *rhs) m_comparison->modified.insert(m_path);
      return std::nullopt;
    }
    if (rhs != nullptr) return *rhs;
    if (lhs != nullptr) return *lhs;
    return std::nullopt;
  }

  std::optional<json> handle(Form form, const json* lhs, const json* rhs, const Type& type, bool& leaf) {
    switch (form) {
      case Form::scalar:
        leaf = true;
        return leaf_rule(lhs, rhs);
      case Form::list: {
        const json* l = lhs && lhs->is_array() ? lhs : nullptr;
        const json* r = rhs && rhs->is_array() ? rhs : nullptr;
        const bool empty = (!l || l->empty()) && (!r || r->empty());
        if (type.list_atomic() || empty) {
          leaf = true;
          return leaf_rule(lhs, rhs);
        }
        return merge_list(l, r, type);
      }
      case Form::map: {
        const json* l = lhs && lhs->is_object() ? lhs : nullptr;
        const json* r = rhs && rhs->is_object() ? rhs : nullptr;
        const bool empty = (!l || l->empty()) && (!r || r->empty());
        if (type.map_atomic() || empty) {
          leaf = true;
          return leaf_rule(lhs, rhs);
        }
        return merge_map(l, r, type);
      }
    }
    return std::nullopt;
  }

  struct Indexed {
    std::vector<PathElement> order;
    std::map<PathElement, const json*> items;
  };

  Indexed index(const json* list, const Type& type) {
    Indexed out;
    if (list == nullptr) return out;
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto pe = item_element(type, static_cast<std::int64_t>(i), (*list)[i]);
      if (!pe) {
        fail("element " + std::to_string(i) + ": " + pe.error());
        continue;
      }
      if (out.items.contains(*pe)) {
        fail("duplicate entries for key " + pe->to_string());
        continue;
      }
      out.items.emplace(*pe, &(*list)[i]);
      out.order.push_back(std::move(*pe));
    }
    return out;
  }

  void fail(const std::string& message) {
    if (!m_error) m_error = located(m_path, message);
  }

  std::optional<json> merge_item(const PathElement& pe, const json* l, const json* r, const Type& element) {
    m_path.push_back(pe);
    auto out = merge(l, r, element);
    m_path.pop_back();
    return out;
  }

  // structured-merge-diff's list merge: rhs's order, with lhs's items that rhs lacks kept in
  // place relative to the items both have.
  std::optional<json> merge_list(const json* lhs, const json* rhs, const Type& type) {
    if (lhs == nullptr && rhs == nullptr) return std::nullopt;
    const Indexed right = index(rhs, type);
    const Indexed left = index(lhs, type);
    const Type element = type.list_element();
    auto find = [](const Indexed& in, const PathElement& pe) -> const json* {
      const auto at = in.items.find(pe);
      return at == in.items.end() ? nullptr : at->second;
    };
    std::vector<const PathElement*> shared;
    for (const auto& pe : right.order)
      if (left.items.contains(pe)) shared.push_back(&pe);
    std::size_t next_shared_at = 0;
    const PathElement* next_shared = nullptr;
    auto advance_shared = [&] {
      next_shared = next_shared_at < shared.size() ? shared[next_shared_at++] : nullptr;
    };
    advance_shared();

    json out = json::array();
    auto push = [&](std::optional<json> item) {
      if (item) out.push_back(std::move(*item));
    };
    std::size_t li = 0, ri = 0;
    const std::size_t ln = left.order.size(), rn = right.order.size();
    while (li < ln || ri < rn) {
      if (li < ln && ri < rn) {
        const PathElement& pe = left.order[li];
        if (pe == right.order[ri]) {
          push(merge_item(pe, find(left, pe), find(right, pe), element));
          ++li;
          ++ri;
          advance_shared();
          continue;
        }
        if (right.items.contains(pe) && next_shared != nullptr && !(*next_shared == pe)) {
          ++li;  // rhs places this item later: it is merged there
          continue;
        }
      }
      if (li < ln) {
        const PathElement& pe = left.order[li];
        if (!right.items.contains(pe)) {
          push(merge_item(pe, find(left, pe), nullptr, element));
          ++li;
          continue;
        }
      }
      if (ri < rn) {
        const PathElement& pe = right.order[ri];
        push(merge_item(pe, find(left, pe), find(right, pe), element));
        ++ri;
        if (next_shared != nullptr && *next_shared == pe) advance_shared();
      }
    }
    if (out.empty()) return std::nullopt;
    return out;
  }

  std::optional<json> merge_map(const json* lhs, const json* rhs, const Type& type) {
    if (lhs == nullptr && rhs == nullptr) return std::nullopt;
    json out = json::object();
    auto visit = [&](const std::string& key, const json* l, const json* r) {
      m_path.push_back(PathElement::field_named(key));
      auto child = merge(l, r, type.child(key));
      m_path.pop_back();
      if (child) out[key] = std::move(*child);
    };
    if (lhs != nullptr)
      for (const auto& [key, value] : lhs->items()) {
        const json* r = nullptr;
        if (rhs != nullptr)
          if (const auto found = rhs->find(key); found != rhs->end()) r = &*found;
        visit(key, &value, r);
      }
    if (rhs != nullptr)
      for (const auto& [key, value] : rhs->items())
        if (lhs == nullptr || !lhs->contains(key)) visit(key, nullptr, &value);
    if (out.empty()) return std::nullopt;
    return out;
  }

  Comparison* m_comparison;
  Path m_path;
  std::optional<std::string> m_error;
};

// --- merges that change nothing -------------------------------------------------------------

// MergeWalker::merge's cases, each answering whether the merged value is lhs as it was: a part
// rhs does not set is copied from lhs unchanged, a leaf rhs sets is rhs's value.
bool keeps(const json* lhs, const json* rhs, const Type& type);

// An associative list: rhs's items all in lhs, in lhs's order, each merged without change.
bool keeps_items(const json& lhs, const json& rhs, const Type& type) {
  std::map<PathElement, std::size_t> right_at;
  for (std::size_t i = 0; i < rhs.size(); ++i) {
    auto pe = item_element(type, static_cast<std::int64_t>(i), rhs[i]);
    if (!pe || !right_at.emplace(std::move(*pe), i).second) return false;
  }
  const Type element = type.list_element();
  std::set<PathElement> left_seen;
  std::size_t next = 0;  // the rhs item lhs must come to next
  for (std::size_t i = 0; i < lhs.size(); ++i) {
    auto pe = item_element(type, static_cast<std::int64_t>(i), lhs[i]);
    if (!pe || !left_seen.insert(*pe).second) return false;
    const auto found = right_at.find(*pe);
    if (found == right_at.end()) continue;  // lhs's own item, kept in place
    if (found->second != next || !keeps(&lhs[i], &rhs[next], element)) return false;
    ++next;
  }
  return next == rhs.size();  // else rhs adds items
}

bool keeps(const json* lhs, const json* rhs, const Type& type) {
  if (rhs == nullptr) return true;
  if (lhs == nullptr) return false;
  const Form right = form_of(type, rhs);
  if (form_of(type, lhs) != right) return *lhs == *rhs;
  switch (right) {
    case Form::scalar:
      return *lhs == *rhs;
    case Form::list: {
      const json* l = lhs->is_array() ? lhs : nullptr;
      const json* r = rhs->is_array() ? rhs : nullptr;
      if (type.list_atomic() || ((!l || l->empty()) && (!r || r->empty()))) return *lhs == *rhs;
      if (r == nullptr) return true;
      return l != nullptr && keeps_items(*l, *r, type);
    }
    case Form::map: {
      const json* l = lhs->is_object() ? lhs : nullptr;
      const json* r = rhs->is_object() ? rhs : nullptr;
      if (type.map_atomic() || ((!l || l->empty()) && (!r || r->empty()))) return *lhs == *rhs;
      if (r == nullptr) return true;
      if (l == nullptr) return false;
      for (const auto& [key, value] : r->items()) {
        const auto found = l->find(key);
        if (!keeps(found == l->end() ? nullptr : &*found, &value, type.child(key))) return false;
      }
      return true;
    }
  }
  return false;
}

// --- removal ------------------------------------------------------------------------------

std::optional<json> remove_from(const json& value, const Set& items, const Type& type) {
  switch (form_of(type, &value)) {
    case Form::scalar:
      return value;
    case Form::list: {
      if (!value.is_array() || value.empty() || type.list_atomic()) return std::nullopt;
      json out = json::array();
      const Type element = type.list_element();
      const auto keys = type.list_keys();
      for (std::size_t i = 0; i < value.size(); ++i) {
        const json& item = value[i];
        auto pe = item_element(type, static_cast<std::int64_t>(i), item);
        if (!pe) {
          out.push_back(item);
          continue;
        }
        if (items.has({*pe})) continue;
        const Set& below = items.with_prefix(*pe);
        if (below.empty()) {
          out.push_back(item);
          continue;
        }
        auto kept = remove_from(item, below, element);
        if (kept) {
          out.push_back(std::move(*kept));
        } else if (item.is_object()) {
          // An item whose every field went stays identified by its keys.
          json identity = json::object();
          for (const auto& key : keys)
            if (item.contains(key)) identity[key] = item[key];
          out.push_back(std::move(identity));
        }
      }
      if (out.empty()) return std::nullopt;
      return out;
    }
    case Form::map: {
      if (!value.is_object() || value.empty() || type.map_atomic()) return std::nullopt;
      json out = json::object();
      for (const auto& [key, child] : value.items()) {
        const PathElement pe = PathElement::field_named(key);
        if (items.has({pe})) continue;
        const Set& below = items.with_prefix(pe);
        if (below.empty()) {
          out[key] = child;
          continue;
        }
        if (auto kept = remove_from(child, below, type.child(key))) out[key] = std::move(*kept);
      }
      if (out.empty()) return std::nullopt;
      return out;
    }
  }
  return std::nullopt;
}

Set ensure_named(const Set& set, const std::optional<Type>& type) {
  Set out;
  for (const auto& m : set.members()) out.insert_member(m);
  for (const auto& [element, child] : set.children()) {
    std::optional<Type> child_type;
    if (type && element.type == PathElement::Type::field && type->accepts_map()) {
      if (type->field(element.name)) out.insert_member(element);
      child_type = type->child(element.name);
    } else if (type && element.type == PathElement::Type::key && type->accepts_list()) {
      child_type = type->list_element();
    }
    out.descend(element) = ensure_named(child, child_type);
  }
  return out;
}

}  // namespace

void Comparison::exclude(const Set& fields) {
  if (fields.empty()) return;
  removed = removed.recursive_difference(fields);
  modified = modified.recursive_difference(fields);
  added = added.recursive_difference(fields);
}

std::optional<std::string> validate(const nlohmann::json& value, const Type& type) {
  Path path;
  return check(value, type, path);
}

Set to_field_set(const nlohmann::json& value, const Type& type) {
  Path path;
  Set out;
  collect(value, type, path, out);
  return out;
}

Typed<nlohmann::json> merge(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type) {
  MergeWalker walker(nullptr);
  auto out = walker.merge(&lhs, &rhs, type);
  if (walker.error()) return std::unexpected(*walker.error());
  return out ? std::move(*out) : json::object();
}

bool merge_keeps(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type) {
  return keeps(&lhs, &rhs, type);
}

Typed<Comparison> compare(const nlohmann::json& lhs, const nlohmann::json& rhs, const Type& type) {
  Comparison comparison;
  MergeWalker walker(&comparison);
  walker.merge(&lhs, &rhs, type);
  if (walker.error()) return std::unexpected(*walker.error());
  return comparison;
}

nlohmann::json remove_items(const nlohmann::json& value, const Set& items, const Type& type) {
  auto out = remove_from(value, items, type);
  return out ? std::move(*out) : json();
}

Set ensure_named_fields_are_members(const Set& set, const Type& type) { return ensure_named(set, type); }

}  // namespace kw::apply
