#include "server/apply/fieldpath.hpp"

#include <algorithm>
#include <charconv>

namespace kw::apply {
namespace {

// Values of one type in structured-merge-diff's order, lowest first.
int type_rank(const nlohmann::json& v) {
  if (v.is_number()) return 0;
  if (v.is_string()) return 1;
  if (v.is_boolean()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_numbers(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number_float() || b.is_number_float()) return three_way(a.get<double>(), b.get<double>());
  if (a.is_number_unsigned() && b.is_number_unsigned())
    return three_way(a.get<std::uint64_t>(), b.get<std::uint64_t>());
  return three_way(a.get<std::int64_t>(), b.get<std::int64_t>());
}

// The key's fields as a compact JSON object, in name order (nlohmann's objects are sorted
// too, but the text is built here so that the order is the element's, whatever the map type).
std::string key_json(const std::vector<std::pair<std::string, nlohmann::json>>& key) {
  std::string out = "{";
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (i) out += ',';
    out += nlohmann::json(key[i].first).dump();
    out += ':';
    out += key[i].second.dump();
  }
  return out + "}";
}

// A value as structured-merge-diff prints it inside a path: strings quoted, the rest as JSON.
std::string value_text(const nlohmann::json& v) { return v.dump(); }

const Set& empty_set() {
  static const Set k_empty;
  return k_empty;
}

}  // namespace

PathElement PathElement::field_named(std::string name) {
  PathElement e;
  e.type = Type::field;
  e.name = std::move(name);
  return e;
}

PathElement PathElement::with_key(std::vector<std::pair<std::string, nlohmann::json>> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  PathElement e;
  e.type = Type::key;
  e.key = std::move(fields);
  return e;
}

PathElement PathElement::with_value(nlohmann::json value) {
  PathElement e;
  e.type = Type::value;
  e.value = std::move(value);
  return e;
}

PathElement PathElement::at(std::int64_t index) {
  PathElement e;
  e.type = Type::index;
  e.index = index;
  return e;
}

std::string PathElement::to_string() const {
  switch (type) {
    case Type::field:
      return "." + name;
    case Type::key: {
      std::string out = "[";
      for (std::size_t i = 0; i < key.size(); ++i) {
        if (i) out += ',';
        out += key[i].first + "=" + value_text(key[i].second);
      }
      return out + "]";
    }
    case Type::value:
      return "[=" + value_text(value) + "]";
    case Type::index:
      return "[" + std::to_string(index) + "]";
  }
  return "{{invalid path element}}";
}

std::string PathElement::serialize() const {
  switch (type) {
    case Type::field:
      return "f:" + name;
    case Type::key:
      return "k:" + key_json(key);
    case Type::value:
      return "v:" + value.dump();
    case Type::index:
      return "i:" + std::to_string(index);
  }
  return {};
}

std::expected<PathElement, std::string> PathElement::deserialize(std::string_view text) {
  if (text.size() < 2 || text[1] != ':') return std::unexpected("unknown path element type: " + std::string(text));
  const std::string_view rest = text.substr(2);
  switch (text[0]) {
    case 'f':
      return field_named(std::string(rest));
    case 'k': {
      auto parsed = nlohmann::json::parse(rest, nullptr, false);
      if (parsed.is_discarded() || !parsed.is_object()) return std::unexpected("invalid key: " + std::string(rest));
      std::vector<std::pair<std::string, nlohmann::json>> fields;
      for (auto& [k, v] : parsed.items()) fields.emplace_back(k, v);
      return with_key(std::move(fields));
    }
    case 'v': {
      auto parsed = nlohmann::json::parse(rest, nullptr, false);
      if (parsed.is_discarded()) return std::unexpected("invalid value: " + std::string(rest));
      return with_value(std::move(parsed));
    }
    case 'i': {
      std::int64_t index = 0;
      const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
      if (ec != std::errc() || end != rest.data() + rest.size())
        return std::unexpected("invalid index: " + std::string(rest));
      return at(index);
    }
    default:
      return std::unexpected("unknown path element type: " + std::string(text));
  }
}

int compare_values(const nlohmann::json& a, const nlohmann::json& b) {
  const int ra = type_rank(a), rb = type_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return compare_numbers(a, b);
    case 1:
      return three_way(a.get_ref<const std::string&>(), b.get_ref<const std::string&>());
    case 2:
      return three_way(a.get<bool>(), b.get<bool>());
    case 3: {
      for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (int c = compare_values(a[i], b[i]); c != 0) return c;
      return three_way(a.size(), b.size());
    }
    case 4: {
      // Both are sorted by key (nlohmann's object_t is a std::map).
      auto ia = a.begin();
      auto ib = b.begin();
      for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
        if (int c = three_way(ia.key(), ib.key()); c != 0) return c;
        if (int c = compare_values(ia.value(), ib.value()); c != 0) return c;
      }
      return three_way(a.size(), b.size());
    }
    default:
      return 0;
  }
}

int compare(const PathElement& a, const PathElement& b) {
  if (a.type != b.type) return a.type < b.type ? -1 : 1;
  switch (a.type) {
    case PathElement::Type::field:
      return three_way(a.name, b.name);
    case PathElement::Type::key:
      for (std::size_t i = 0; i < a.key.size() && i < b.key.size(); ++i) {
        if (int c = three_way(a.key[i].first, b.key[i].first); c != 0) return c;
        if (int c = compare_values(a.key[i].second, b.key[i].second); c != 0) return c;
      }
      return three_way(a.key.size(), b.key.size());
    case PathElement::Type::value:
      return compare_values(a.value, b.value);
    case PathElement::Type::index:
      return three_way(a.index, b.index);
  }
  return 0;
}

std::string to_string(const Path& path) {
  std::string out;
  for (const auto& e : path) out += e.to_string();
  return out;
}

void Set::insert_member(const PathElement& element) { m_members.insert(element); }

Set& Set::descend(const PathElement& element) { return m_children.try_emplace(element).first->second; }

void Set::insert(const Path& path) {
  if (path.empty()) return;
  Set* level = this;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) level = &level->descend(path[i]);
  level->insert_member(path.back());
}

bool Set::has(const Path& path) const {
  if (path.empty()) return false;
  const Set* level = this;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    const Set& next = level->with_prefix(path[i]);
    if (&next == &empty_set()) return false;
    level = &next;
  }
  return level->m_members.contains(path.back());
}

bool Set::empty() const {
  if (!m_members.empty()) return false;
  return std::all_of(m_children.begin(), m_children.end(), [](const auto& c) { return c.second.empty(); });
}

std::size_t Set::size() const {
  std::size_t n = m_members.size();
  for (const auto& c : m_children) n += c.second.size();
  return n;
}

bool Set::operator==(const Set& other) const { return m_members == other.m_members && m_children == other.m_children; }

const Set& Set::with_prefix(const PathElement& element) const {
  auto at = m_children.find(element);
  return at == m_children.end() ? empty_set() : at->second;
}

// The merges below walk both sides in element order and append to `out` in that order, so
// every insertion is at the end (constant time with the hint).
Set Set::union_with(const Set& other) const {
  Set out;
  std::set_union(m_members.begin(), m_members.end(), other.m_members.begin(), other.m_members.end(),
                 std::inserter(out.m_members, out.m_members.end()));
  auto i = m_children.begin();
  auto j = other.m_children.begin();
  while (i != m_children.end() && j != other.m_children.end()) {
    const int c = compare(i->first, j->first);
    if (c < 0) {
      out.m_children.insert(out.m_children.end(), *i++);
    } else if (c > 0) {
      out.m_children.insert(out.m_children.end(), *j++);
    } else {
      out.m_children.emplace_hint(out.m_children.end(), i->first, i->second.union_with(j->second));
      ++i;
      ++j;
    }
  }
  out.m_children.insert(i, m_children.end());
  out.m_children.insert(j, other.m_children.end());
  return out;
}

Set Set::intersection(const Set& other) const {
  Set out;
  std::set_intersection(m_members.begin(), m_members.end(), other.m_members.begin(), other.m_members.end(),
                        std::inserter(out.m_members, out.m_members.end()));
  auto i = m_children.begin();
  auto j = other.m_children.begin();
  while (i != m_children.end() && j != other.m_children.end()) {
    const int c = compare(i->first, j->first);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      Set both = i->second.intersection(j->second);
      if (!both.empty()) out.m_children.emplace_hint(out.m_children.end(), i->first, std::move(both));
      ++i;
      ++j;
    }
  }
  return out;
}

Set Set::subtract(const Set& other, bool members_take_subtrees) const {
  Set out;
  std::set_difference(m_members.begin(), m_members.end(), other.m_members.begin(), other.m_members.end(),
                      std::inserter(out.m_members, out.m_members.end()));
  // A member of `other` takes what is under it too (recursive difference only).
  auto removed_whole = [&](const PathElement& e) { return members_take_subtrees && other.m_members.contains(e); };
  auto j = other.m_children.begin();
  for (const auto& [element, child] : m_children) {
    if (removed_whole(element)) continue;
    while (j != other.m_children.end() && j->first < element) ++j;
    if (j == other.m_children.end() || !(j->first == element)) {
      out.m_children.emplace_hint(out.m_children.end(), element, child);
      continue;
    }
    Set rest = child.subtract(j->second, members_take_subtrees);
    if (!rest.empty()) out.m_children.emplace_hint(out.m_children.end(), element, std::move(rest));
  }
  return out;
}

Set Set::difference(const Set& other) const { return subtract(other, false); }

Set Set::recursive_difference(const Set& other) const { return subtract(other, true); }

void Set::iterate_prefix(Path& prefix, const std::function<void(const Path&)>& visit) const {
  for (const auto& m : m_members) {
    prefix.push_back(m);
    visit(prefix);
    prefix.pop_back();
  }
  for (const auto& [element, child] : m_children) {
    prefix.push_back(element);
    child.iterate_prefix(prefix, visit);
    prefix.pop_back();
  }
}

void Set::iterate(const std::function<void(const Path&)>& visit) const {
  Path prefix;
  iterate_prefix(prefix, visit);
}

std::vector<Path> Set::paths() const {
  std::vector<Path> out;
  iterate([&](const Path& p) { out.push_back(p); });
  return out;
}

void Set::emit(nlohmann::json& out, bool include_self) const {
  if (include_self && !(m_members.empty() && m_children.empty())) out["."] = nlohmann::json::object();
  for (const auto& m : m_members) {
    auto& slot = out[m.serialize()];
    if (slot.is_null()) slot = nlohmann::json::object();
  }
  for (const auto& [element, child] : m_children) {
    const bool member = m_members.contains(element);
    nlohmann::json inner = nlohmann::json::object();
    child.emit(inner, member);
    out[element.serialize()] = std::move(inner);
  }
}

nlohmann::json Set::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  emit(out, false);
  return out;
}

namespace {

struct ReadLevel {
  std::optional<Set> children;
  bool member = false;
};

ReadLevel read_level(const nlohmann::json& object, std::string& error) {
  ReadLevel level;
  if (object.is_object()) {
    for (const auto& [key, value] : object.items()) {
      if (key == ".") {
        level.member = true;
        continue;
      }
      auto element = PathElement::deserialize(key);
      if (!element) {
        if (key.size() >= 2 && key[1] == ':' && std::string_view("fkvi").find(key[0]) != std::string_view::npos)
          error = element.error();
        continue;  // an element type this version does not know is skipped
      }
      ReadLevel below = read_level(value, error);
      if (below.member) {
        if (!level.children) level.children.emplace();
        level.children->insert_member(*element);
      }
      if (below.children) {
        if (!level.children) level.children.emplace();
        level.children->descend(*element) = std::move(*below.children);
      }
    }
  }
  if (!level.children) level.member = true;
  return level;
}

}  // namespace

std::expected<Set, std::string> Set::from_json(const nlohmann::json& fields) {
  if (!fields.is_object()) return std::unexpected(std::string("FieldsV1 must be a JSON object"));
  std::string error;
  ReadLevel level = read_level(fields, error);
  if (!error.empty()) return std::unexpected(error);
  return level.children ? std::move(*level.children) : Set();
}

}  // namespace kw::apply
