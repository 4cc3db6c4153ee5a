#include "core/codec/json_limits.hpp"

#include <utility>
#include <vector>

namespace kw::codec {

bool json_nesting_exceeds(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '{':
      case '[':
        if (++depth > max_depth) return true;
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return false;
}

namespace {

using json = nlohmann::json;

// nlohmann's SAX events built into a value as its own DOM parser builds one, with the nesting
// limit kept as the containers open and, when asked, the members an object repeats named.
// The parser itself keeps no recursion, and neither does this.
class Builder {
 public:
  Builder(std::size_t max_depth, std::vector<std::string>* duplicates) : m_max_depth(max_depth), m_duplicates(duplicates) {}

  bool null() { return put(nullptr); }
  bool boolean(bool value) { return put(value); }
  bool number_integer(json::number_integer_t value) { return put(value); }
  bool number_unsigned(json::number_unsigned_t value) { return put(value); }
  bool number_float(json::number_float_t value, const json::string_t&) { return put(value); }
  bool string(json::string_t& value) { return put(std::move(value)); }
  bool binary(json::binary_t& value) { return put(json::binary(std::move(value))); }
  bool start_object(std::size_t) { return open(json::value_t::object); }
  bool start_array(std::size_t) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& name) {
    auto& object = m_open.back().value->get_ref<json::object_t&>();
    auto [member, added] = object.try_emplace(std::move(name));
    if (!added) {
      // The last one wins, as with Go's decoder; the repeat is named by its path.
      if (m_duplicates) m_duplicates->push_back(path_to(member->first));
      member->second = nullptr;
    }
    m_member = &member->second;
    m_member_key = &member->first;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    std::string_view message = error.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (message.starts_with('[') && message.find("] ") != std::string_view::npos)
      message.remove_prefix(message.find("] ") + 2);
    m_error = message;
    return false;
  }

  json& root() { return m_root; }
  const std::string& error() const { return m_error; }

 private:
  struct Open {
    json* value = nullptr;
    const std::string* key = nullptr;  // its name in the object holding it (none in an array)
  };

  // Where the next value goes: the root, the end of the open array, or the member just keyed.
  json* place(json value) {
    if (m_open.empty()) {
      m_root = std::move(value);
      return &m_root;
    }
    json& parent = *m_open.back().value;
    if (parent.is_array()) {
      auto& items = parent.get_ref<json::array_t&>();
      items.push_back(std::move(value));
      return &items.back();
    }
    *m_member = std::move(value);
    return m_member;
  }
  bool put(json value) {
    place(std::move(value));
    return true;
  }
  bool open(json::value_t type) {
    if (m_open.size() >= m_max_depth) {
      m_error = "exceeded max depth";
      return false;
    }
    const bool in_object = !m_open.empty() && m_open.back().value->is_object();
    json* value = place(json(type));
    m_open.push_back({value, in_object ? m_member_key : nullptr});
    return true;
  }
  bool close() {
    m_open.pop_back();
    return true;
  }

  // "spec.containers[0].name": the open containers' names or indexes, then `last`.
  std::string path_to(const std::string& last) const {
    std::string path;
    auto name = [&](const std::string& key) {
      if (!path.empty()) path += '.';
      path += key;
    };
    for (std::size_t i = 1; i < m_open.size(); ++i) {
      if (m_open[i].key != nullptr) name(*m_open[i].key);
      else path += "[" + std::to_string(m_open[i - 1].value->size() - 1) + "]";
    }
    name(last);
    return path;
  }

  std::size_t m_max_depth;
  std::vector<std::string>* m_duplicates;
  json m_root;
  std::vector<Open> m_open;
  json* m_member = nullptr;
  const std::string* m_member_key = nullptr;
  std::string m_error;
};

// SAX events reduced to the path of each member, as a decoder meets them.
class PathWalker {
 public:
  explicit PathWalker(std::size_t max_depth) : m_max_depth(max_depth) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    m_open.back().key = std::move(name);
    std::string path;
    for (std::size_t i = 0; i < m_open.size(); ++i) {
      const auto& level = m_open[i];
      if (level.array) {
        path += '[' + std::to_string(level.items - 1) + ']';
        continue;
      }
      if (!path.empty()) path += '.';
      path += level.key;
    }
    m_paths.push_back(std::move(path));
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  std::vector<std::string>& paths() { return m_paths; }

 private:
  struct Level {
    bool array = false;
    std::size_t items = 0;  // an array's values so far
    std::string key;        // an object's member being read
  };
  bool value() {
    if (!m_open.empty() && m_open.back().array) ++m_open.back().items;
    return true;
  }
  bool open(bool array) {
    if (m_open.size() >= m_max_depth) return false;
    value();
    m_open.push_back({array, 0, {}});
    return true;
  }
  bool close() {
    m_open.pop_back();
    return true;
  }

  std::size_t m_max_depth;
  std::vector<Level> m_open;
  std::vector<std::string> m_paths;
};

}  // namespace

std::vector<std::string> member_paths(std::string_view text, std::size_t max_depth) {
  PathWalker walker(max_depth);
  if (!json::sax_parse(text, &walker)) return {};
  return std::move(walker.paths());
}

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth, std::vector<std::string>* duplicates) {
  Builder builder(max_depth, duplicates);
  if (!json::sax_parse(text, &builder)) return fail(builder.error().empty() ? "not JSON" : builder.error());
  return std::move(builder.root());
}

}  // namespace kw::codec
