#include "core/codec/yaml.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "core/codec/text.hpp"

namespace kw::codec {
namespace {

constexpr int k_max_depth = 512;

// Aliases repeat values, so a small document can expand without bound ("billion laughs").
// Every copy the builder makes (of a value at each use of its alias, and of each anchored
// value, kept for its aliases) is counted by its size: the text of its scalars plus
// k_node_bytes for each node, about what a node of nlohmann::json takes. The count is checked
// before the copy is made; past k_max_copied_bytes, four times the largest request body kube
// accepts (3 MiB), the stream is refused in go-yaml v2's words.
constexpr std::size_t k_node_bytes = 64;
constexpr std::size_t k_max_copied_bytes = 12u << 20;
constexpr std::string_view k_excessive_aliasing = "yaml: document contains excessive aliasing";

std::string strip_underscores(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

bool all_digits(std::string_view s, int base) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [base](char c) {
    if (base == 2) return c == '0' || c == '1';
    if (base == 8) return c >= '0' && c <= '7';
    if (base == 10) return c >= '0' && c <= '9';
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Integer forms go-yaml v2 accepts (strconv.ParseInt/ParseUint with base 0, '_' removed).
std::optional<nlohmann::json> resolve_integer(std::string_view text) {
  std::string s = strip_underscores(text);
  std::string_view v = s;
  bool negative = false;
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) {
    negative = v.front() == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) { base = 16; v.remove_prefix(2); }
  else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) { base = 8; v.remove_prefix(2); }
  else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) { base = 2; v.remove_prefix(2); }
  else if (v.size() > 1 && v[0] == '0') { base = 8; v.remove_prefix(1); }
  if (!all_digits(v, base)) return std::nullopt;
  errno = 0;
  std::string digits(v);
  unsigned long long magnitude = std::strtoull(digits.c_str(), nullptr, base);
  if (errno == ERANGE) return std::nullopt;
  if (!negative) {
    if (magnitude <= static_cast<unsigned long long>(INT64_MAX)) return nlohmann::json(static_cast<std::int64_t>(magnitude));
    return nlohmann::json(static_cast<std::uint64_t>(magnitude));
  }
  if (magnitude > static_cast<unsigned long long>(INT64_MAX) + 1ULL) return std::nullopt;
  if (magnitude == static_cast<unsigned long long>(INT64_MAX) + 1ULL) return nlohmann::json(INT64_MIN);
  return nlohmann::json(-static_cast<std::int64_t>(magnitude));
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool looks_like_float(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') { ++i; digits(); }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), s) != words.end();
}

enum class Special { none, infinity, nan };

Special special_float(std::string_view s) {
  if (one_of(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"})) return Special::infinity;
  if (one_of(s, {".nan", ".NaN", ".NAN"})) return Special::nan;
  return Special::none;
}

// Timestamps stay strings on read, but the writer quotes them (as kubectl does).
bool looks_like_timestamp(std::string_view s) {
  if (s.size() < 10) return false;
  for (std::size_t i = 0; i < 10; ++i) {
    bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : !(s[i] >= '0' && s[i] <= '9')) return false;
  }
  return s.size() == 10 || s[10] == 'T' || s[10] == 't' || s[10] == ' ' || s[10] == '\t';
}

// The JSON value of a plain scalar, or nullopt when it stays a string.
Result<std::optional<nlohmann::json>> resolve_plain(std::string_view s) {
  if (s.empty() || one_of(s, {"~", "null", "Null", "NULL"})) return nlohmann::json(nullptr);
  if (one_of(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "y", "Y", "on", "On", "ON"})) return nlohmann::json(true);
  if (one_of(s, {"false", "False", "FALSE", "no", "No", "NO", "n", "N", "off", "Off", "OFF"})) return nlohmann::json(false);
  char c = s.front();
  if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')) return std::optional<nlohmann::json>();
  if (auto i = resolve_integer(s)) return i;
  std::string plain = strip_underscores(s);
  if (looks_like_float(plain)) {
    double d = std::strtod(plain.c_str(), nullptr);
    if (!std::isfinite(d)) return fail("YAML number " + std::string(s) + " is out of range for JSON");
    return nlohmann::json(d);
  }
  if (special_float(s) != Special::none)
    return fail("YAML value " + std::string(s) + " (infinity or NaN) cannot be represented in JSON");
  return std::optional<nlohmann::json>();
}

// Builds JSON straight from yaml-cpp's parse events. Driving the parser directly (rather
// than YAML::LoadAll) lets us stop when a document makes no progress: yaml-cpp 0.7 loops
// forever on a ',' at the top level of a document.
class JsonBuilder final : public YAML::EventHandler {
 public:
  // An anchored value, and its size as k_max_copied_bytes counts it.
  struct Anchored {
    nlohmann::json value;
    std::size_t weight;
  };

  void OnDocumentStart(const YAML::Mark& mark) override {
    m_document_mark = mark;
    m_have_root = false;
    m_root = nullptr;
    m_anchors.clear();  // yaml-cpp numbers anchors from 1 in each document
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override {
    add(nlohmann::json(nullptr), true, anchor, k_node_bytes);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (m_error) return;
    auto it = m_anchors.find(anchor);
    if (it == m_anchors.end()) return set_error("unknown alias", mark);
    if (!charge_copy(it->second.weight)) return;
    add(it->second.value, false, 0, it->second.weight);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    if (m_error) return;
    if (!is_valid_utf8(value)) return set_error("text is not valid UTF-8 (UTF-16/32 input is not supported)", mark);
    const std::size_t weight = value.size() + k_node_bytes;
    if (tag == "!" || tag == "tag:yaml.org,2002:str") return add(nlohmann::json(value), false, anchor, weight);
    auto resolved = resolve_plain(value);
    if (!resolved) return set_error(resolved.error().message, mark);
    if (*resolved) return add(std::move(**resolved), false, anchor, weight);
    add(nlohmann::json(value), false, anchor, weight);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(nlohmann::json::array(), anchor, mark);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(nlohmann::json::object(), anchor, mark);
  }
  void OnMapEnd() override { close(); }

  const std::optional<Error>& error() const { return m_error; }
  const YAML::Mark& document_mark() const { return m_document_mark; }
  bool has_root() const { return m_have_root; }
  nlohmann::json take_root() { return std::move(m_root); }

 private:
  struct Frame {
    nlohmann::json value;
    YAML::anchor_t anchor;
    std::size_t weight;  // the size of the collection so far, as k_max_copied_bytes counts it
    std::optional<std::string> key;  // maps: the key waiting for its value
  };

  void set_error(std::string message, const YAML::Mark& mark) {
    if (m_error) return;
    if (mark.is_null()) m_error = Error{"invalid YAML: " + message};
    else m_error = Error{"invalid YAML at line " + std::to_string(mark.line + 1) + ", column " +
                         std::to_string(mark.column + 1) + ": " + message};
  }

  void open(nlohmann::json value, YAML::anchor_t anchor, const YAML::Mark& mark) {
    if (m_error) return;
    if (!m_stack.empty() && m_stack.back().value.is_object() && !m_stack.back().key)
      return set_error("mapping keys must be scalars to convert to JSON", mark);
    if (m_stack.size() >= static_cast<std::size_t>(k_max_depth))
      return set_error("nesting is deeper than " + std::to_string(k_max_depth) + " levels", mark);
    m_stack.push_back(Frame{std::move(value), anchor, k_node_bytes, std::nullopt});
  }

  void close() {
    if (m_error || m_stack.empty()) return;
    Frame frame = std::move(m_stack.back());
    m_stack.pop_back();
    add(std::move(frame.value), false, frame.anchor, frame.weight);
  }

  static std::string key_text(const nlohmann::json& key, bool was_null) {
    if (was_null || key.is_null()) return "null";
    if (key.is_string()) return key.get<std::string>();
    return key.dump();
  }

  // Counts a copy of `weight` bytes; false, with the error set, when it would pass the bound.
  bool charge_copy(std::size_t weight) {
    m_copied_bytes += weight;
    if (m_copied_bytes <= k_max_copied_bytes) return true;
    if (!m_error) m_error = Error{std::string(k_excessive_aliasing)};
    return false;
  }

  void add(nlohmann::json value, bool is_null, YAML::anchor_t anchor, std::size_t weight) {
    if (m_error) return;
    if (anchor != 0) {
      if (!charge_copy(weight)) return;
      m_anchors[anchor] = Anchored{value, weight};
    }
    if (m_stack.empty()) {
      m_root = std::move(value);
      m_have_root = true;
      return;
    }
    Frame& top = m_stack.back();
    top.weight += weight;
    if (top.value.is_array()) {
      top.value.push_back(std::move(value));
    } else if (!top.key) {
      if (value.is_object() || value.is_array())
        return set_error("mapping keys must be scalars to convert to JSON", YAML::Mark::null_mark());
      top.key = key_text(value, is_null);
    } else {
      top.value[*top.key] = std::move(value);
      top.key.reset();
    }
  }

  std::vector<Frame> m_stack;
  std::map<YAML::anchor_t, Anchored> m_anchors;
  std::optional<Error> m_error;
  YAML::Mark m_document_mark;
  nlohmann::json m_root;
  bool m_have_root = false;
  std::size_t m_copied_bytes = 0;  // copies made for anchors and aliases in the whole stream
};

}  // namespace

Result<std::vector<nlohmann::json>> yaml_to_json(std::string_view yaml) {
  if (!is_valid_utf8(yaml)) return fail("invalid YAML: the input is not valid UTF-8");
  std::vector<nlohmann::json> out;
  std::istringstream input{std::string(yaml)};
  JsonBuilder builder;
  std::optional<int> last_document_pos;
  try {
    YAML::Parser parser(input);
    while (parser.HandleNextDocument(builder)) {
      if (builder.error()) return std::unexpected(*builder.error());
      const YAML::Mark& mark = builder.document_mark();
      if (last_document_pos && *last_document_pos == mark.pos)
        return fail("invalid YAML at line " + std::to_string(mark.line + 1) + ", column " +
                    std::to_string(mark.column + 1) + ": unexpected content at the top level of a document");
      last_document_pos = mark.pos;
      if (!builder.has_root()) continue;
      nlohmann::json root = builder.take_root();
      if (!root.is_null()) out.push_back(std::move(root));
    }
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return fail("invalid YAML: " + e.msg);
    return fail("invalid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (builder.error()) return std::unexpected(*builder.error());
  return out;
}

}  // namespace kw::codec

// ---- JSON -> YAML ----------------------------------------------------------------------------

namespace kw::codec {
namespace {

bool is_utf8_line_break_or_bom(std::string_view s, std::size_t i, std::size_t* length) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  if (i + 1 < s.size() && b(i) == 0xC2 && b(i + 1) == 0x85) { *length = 2; return true; }
  if (i + 2 < s.size() && b(i) == 0xE2 && b(i + 1) == 0x80 && (b(i + 2) == 0xA8 || b(i + 2) == 0xA9)) { *length = 3; return true; }
  if (i + 2 < s.size() && b(i) == 0xEF && b(i + 1) == 0xBB && b(i + 2) == 0xBF) { *length = 3; return true; }
  return false;
}

bool has_unsafe_chars(std::string_view s, bool allow_newline) {
  if (!is_valid_utf8(s)) return true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' && allow_newline) continue;
    if (c < 0x20 || c == 0x7f) return true;
    std::size_t len = 0;
    if (c >= 0x80 && is_utf8_line_break_or_bom(s, i, &len)) return true;
  }
  return false;
}

bool plain_is_safe(std::string_view s) {
  if (s.empty() || has_unsafe_chars(s, false)) return false;
  auto resolved = resolve_plain(s);
  if (!resolved || *resolved || special_float(s) != Special::none || looks_like_timestamp(s)) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  if (s.substr(0, 3) == "---" || s.substr(0, 3) == "...") return false;
  char first = s.front();
  if (std::string_view("-?:").find(first) != std::string_view::npos) {
    if (s.size() == 1 || s[1] == ' ') return false;
  } else if (std::string_view(",[]{}#&*!|>'\"%@`").find(first) != std::string_view::npos) {
    return false;
  }
  if (s.back() == ':') return false;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return false;
  return true;
}

std::string double_quoted(std::string_view s) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\t': out += "\\t"; continue;
      case '\r': out += "\\r"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 0xf];
    } else if (c >= 0x80 && is_utf8_line_break_or_bom(s, i, &len)) {
      std::string_view seq = s.substr(i, len);
      out += seq == "\xC2\x85" ? "\\u0085" : seq == "\xE2\x80\xA8" ? "\\u2028" : seq == "\xE2\x80\xA9" ? "\\u2029" : "\\ufeff";
      i += len - 1;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A literal block ("|", "|-", "|+") when it reads back to exactly `s`.
std::optional<std::string> literal_block(std::string_view s, int indent) {
  if (s.find('\n') == std::string_view::npos || has_unsafe_chars(s, true)) return std::nullopt;
  std::string_view body = s;
  std::size_t trailing = 0;
  while (!body.empty() && body.back() == '\n') { body.remove_suffix(1); ++trailing; }
  if (body.empty()) return std::nullopt;
  std::vector<std::string_view> lines;
  for (std::size_t start = 0;;) {
    std::size_t nl = body.find('\n', start);
    lines.push_back(body.substr(start, nl == std::string_view::npos ? body.npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  bool seen_text = false;
  for (std::string_view line : lines) {
    if (!line.empty() && (line.back() == ' ' || line.back() == '\t')) return std::nullopt;
    if (!seen_text && !line.empty()) {
      if (line.front() == ' ' || line.front() == '\t') return std::nullopt;
      seen_text = true;
    }
  }
  std::string out = trailing == 0 ? "|-\n" : trailing == 1 ? "|\n" : "|+\n";
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (std::string_view line : lines) {
    if (!line.empty()) out += pad;
    out.append(line);
    out += '\n';
  }
  for (std::size_t i = 1; i < trailing; ++i) out += '\n';
  return out;
}

std::string string_scalar(std::string_view s, int block_indent, bool allow_block) {
  if (allow_block)
    if (auto block = literal_block(s, block_indent)) return *block;
  return (plain_is_safe(s) ? std::string(s) : double_quoted(s)) + "\n";
}

// The scalar (or empty collection) text, ending in '\n'.
std::string scalar_text(const nlohmann::json& v, int block_indent) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null\n";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "true\n" : "false\n";
    case nlohmann::json::value_t::number_float: {
      double d = v.get<double>();
      if (!std::isfinite(d)) return "null\n";
      std::string text = v.dump();
      if (!looks_like_float(text) || resolve_integer(text)) text += ".0";
      return text + "\n";
    }
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return v.dump() + "\n";
    case nlohmann::json::value_t::string: return string_scalar(v.get_ref<const std::string&>(), block_indent, true);
    case nlohmann::json::value_t::object: return "{}\n";
    case nlohmann::json::value_t::array: return "[]\n";
    default: return "null\n";
  }
}


void write_sequence(std::string& out, const nlohmann::json& items, int indent, bool first_inline);

// Past this indentation, collections are written in flow style (as JSON, which YAML reads):
// block style indents every line by its depth, so a deeply nested object would grow with the
// square of its depth.
constexpr int k_max_block_indent = 128;
// Longer keys (in bytes, before quoting) are written as explicit keys, as go-yaml does.
constexpr std::size_t k_max_simple_key = 128;

bool as_flow(const nlohmann::json& value, int indent) {
  return indent >= k_max_block_indent && (value.is_object() || value.is_array()) && !value.empty();
}

void write_flow(std::string& out, const nlohmann::json& value) {
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out += '\n';
}

void write_mapping(std::string& out, const nlohmann::json& object, int indent, bool first_inline) {
  bool first = true;
  for (const auto& [key, value] : object.items()) {
    if (!(first && first_inline)) out.append(static_cast<std::size_t>(indent), ' ');
    first = false;
    std::string key_text = string_scalar(key, 0, false);
    key_text.pop_back();
    if (key.size() > k_max_simple_key || key.find('\n') != std::string::npos) {
      // An explicit key ("? KEY" and ": VALUE" on the next line), as Go's YAML writer puts a
      // long or multi-line key: an implicit key may not be that long.
      out += "? " + key_text + "\n";
      out.append(static_cast<std::size_t>(indent), ' ');
      out += ":";
    } else {
      out += key_text + ":";
    }
    if (as_flow(value, indent)) {
      out += ' ';
      write_flow(out, value);
    } else if (value.is_object() && !value.empty()) {
      out += '\n';
      write_mapping(out, value, indent + 2, false);
    } else if (value.is_array() && !value.empty()) {
      out += '\n';
      write_sequence(out, value, indent, false);
    } else {
      out += ' ';
      out += scalar_text(value, indent + 2);
    }
  }
}

void write_sequence(std::string& out, const nlohmann::json& items, int indent, bool first_inline) {
  bool first = true;
  for (const auto& item : items) {
    if (!(first && first_inline)) out.append(static_cast<std::size_t>(indent), ' ');
    first = false;
    out += "- ";
    if (as_flow(item, indent)) write_flow(out, item);
    else if (item.is_object() && !item.empty()) write_mapping(out, item, indent + 2, true);
    else if (item.is_array() && !item.empty()) write_sequence(out, item, indent + 2, true);
    else out += scalar_text(item, indent + 2);
  }
}

}  // namespace

std::string json_to_yaml(const nlohmann::json& value) {
  std::string out;
  if (value.is_object() && !value.empty()) write_mapping(out, value, 0, false);
  else if (value.is_array() && !value.empty()) write_sequence(out, value, 0, false);
  else out = scalar_text(value, 2);
  return out;
}

}  // namespace kw::codec
