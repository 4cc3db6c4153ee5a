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
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, const std::string& raw) override {
    if (m_error) return;
    // The input was checked to be UTF-8; yaml-cpp decodes the escapes \N and \_ (U+0085 and
    // U+00A0, which go-yaml writes) to Latin-1 bytes, which are put right here.
    std::string repaired;
    if (!is_valid_utf8(raw)) {
      for (std::size_t i = 0; i < raw.size();) {
        const std::size_t length = utf8_length_at(raw, i);
        const auto c = static_cast<unsigned char>(raw[i]);
        if (length == 0 && c != 0x85 && c != 0xA0)
          return set_error("text is not valid UTF-8 (UTF-16/32 input is not supported)", mark);
        if (length == 0) {
          repaired += '\xC2';
          repaired += raw[i++];
        } else {
          repaired.append(raw, i, length);
          i += length;
        }
      }
    }
    const std::string& value = repaired.empty() ? raw : repaired;
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

// The length of the UTF-8 character at s[i] (1 for a byte that starts none).
std::size_t char_length(std::string_view s, std::size_t i) { return std::max<std::size_t>(1, utf8_length_at(s, i)); }

// U+0085, U+2028 or U+2029 at s[i]: line breaks to YAML, which go-yaml escapes.
bool unicode_line_break(std::string_view s, std::size_t i) {
  return s.substr(i, 2) == "\xC2\x85" || s.substr(i, 3) == "\xE2\x80\xA8" || s.substr(i, 3) == "\xE2\x80\xA9";
}

// Whether go-yaml's writer prints the character at s[i] as it is: '\n', ASCII from ' ' to '~',
// and the rest of the Basic Multilingual Plane but for C1 controls, surrogates, the byte order
// mark, U+FFFE and U+FFFF. Characters past U+FFFF are escaped too.
bool go_printable(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = b(0);
  if (c == 0x0A || (c >= 0x20 && c <= 0x7E)) return true;
  if (c == 0xC2) return b(1) >= 0xA0;
  if (c > 0xC2 && c < 0xED) return true;
  if (c == 0xED) return b(1) < 0xA0;
  if (c == 0xEE) return true;
  if (c == 0xEF) return !(b(1) == 0xBB && b(2) == 0xBF) && !(b(1) == 0xBF && (b(2) == 0xBE || b(2) == 0xBF));
  return false;
}

// Characters go-yaml will not write in a plain, single-quoted or block scalar ('\n' aside
// when `allow_newline`): they need a double-quoted one.
bool has_unsafe_chars(std::string_view s, bool allow_newline) {
  if (!is_valid_utf8(s)) return true;
  for (std::size_t i = 0; i < s.size(); i += char_length(s, i)) {
    if (s[i] == '\n' && allow_newline) continue;
    if (s[i] == '\n' || s[i] == '\r' || !go_printable(s, i)) return true;
    if (unicode_line_break(s, i)) return true;
  }
  return false;
}

// go-yaml's isBase60Float: "1:20", "-3:25:45.5" (YAML 1.1 sexagesimal numbers).
bool looks_like_base60(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    std::size_t digits = 0;
    while (i + digits < s.size() && std::isdigit(static_cast<unsigned char>(s[i + digits])) && digits < 2) ++digits;
    if (digits == 0 || (digits == 2 && s[i] > '5')) return false;
    i += digits;
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

// How go-yaml (sigs.k8s.io/yaml, which kubectl and kube-apiserver use) writes a one-line
// string: double-quoted when it would read back as something else or holds characters only
// escapes can carry, single-quoted when an indicator, a leading or trailing space or a
// ": " / " #" would be misread, else plain.
enum class Style { plain, single_quoted, double_quoted };

Style string_style(std::string_view s) {
  if (s.empty() || has_unsafe_chars(s, false)) return Style::double_quoted;
  auto resolved = resolve_plain(s);
  if (!resolved || *resolved || special_float(s) != Special::none || looks_like_timestamp(s) || looks_like_base60(s))
    return Style::double_quoted;
  if (s.front() == ' ' || s.back() == ' ') return Style::single_quoted;
  if (s.substr(0, 3) == "---" || s.substr(0, 3) == "...") return Style::single_quoted;
  char first = s.front();
  if (std::string_view("-?:").find(first) != std::string_view::npos) {
    if (s.size() == 1 || s[1] == ' ') return Style::single_quoted;
  } else if (std::string_view(",[]{}#&*!|>'\"%@`").find(first) != std::string_view::npos) {
    return Style::single_quoted;
  }
  if (s.back() == ':') return Style::single_quoted;
  if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return Style::single_quoted;
  return Style::plain;
}

// go-yaml's escape for the character at s[i] in a double-quoted scalar ("" when it needs none).
std::string go_escape(std::string_view s, std::size_t i, std::size_t length) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (length == 1) {
    switch (c) {
      case '"': return "\\\"";
      case '\\': return "\\\\";
      case 0x00: return "\\0";
      case 0x07: return "\\a";
      case 0x08: return "\\b";
      case 0x09: return "\\t";
      case 0x0A: return "\\n";
      case 0x0B: return "\\v";
      case 0x0C: return "\\f";
      case 0x0D: return "\\r";
      case 0x1B: return "\\e";
      default: break;
    }
  }
  if (go_printable(s, i) && !unicode_line_break(s, i)) return {};
  std::uint32_t code = c;
  if (length == 2) code = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
  if (length == 3) code = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
  if (length == 4) code = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
  switch (code) {
    case 0x85: return "\\N";
    case 0xA0: return "\\_";
    case 0x2028: return "\\L";
    case 0x2029: return "\\P";
    default: break;
  }
  static constexpr char k_hex[] = "0123456789ABCDEF";
  const int digits = code <= 0xFF ? 2 : code <= 0xFFFF ? 4 : 8;
  std::string out = code <= 0xFF ? "\\x" : code <= 0xFFFF ? "\\u" : "\\U";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += k_hex[(code >> shift) & 0xF];
  return out;
}

// go-yaml's best width: past this column, a plain or quoted scalar continues on the next line
// at a space (only where reading it back gives the same string).
constexpr int k_best_width = 80;

// The scalar `s` in `style`, written from `column` (the characters already on its line); its
// continuation lines are indented by `indent`. Keys (`allow_breaks` false) stay on one line.
std::string flow_scalar(std::string_view s, Style style, int column, int indent, bool allow_breaks) {
  std::string out;
  auto put = [&](std::string_view text) {
    out += text;
    for (const char c : text)
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;
  };
  const std::string_view quote = style == Style::single_quoted ? "'" : style == Style::double_quoted ? "\"" : "";
  put(quote);
  bool spaces = false;  // the previous character was a space
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t length = style == Style::double_quoted ? char_length(s, i) : 1;
    if (style == Style::double_quoted) {
      if (auto escaped = go_escape(s, i, length); !escaped.empty()) {
        put(escaped);
        i += length;
        spaces = false;
        continue;
      }
    }
    if (s[i] == ' ') {
      const bool next_space = i + 1 < s.size() && s[i + 1] == ' ';
      const bool inner = i > 0 && i + 1 < s.size();
      bool fold = allow_breaks && !spaces && column > k_best_width;
      if (style == Style::plain) fold = fold && !next_space;
      else if (style == Style::single_quoted) fold = fold && inner && !next_space;
      else fold = fold && inner;
      if (fold) {
        out += '\n';
        out.append(static_cast<std::size_t>(indent), ' ');
        column = indent;
        // A double-quoted line may not start with a space that would be folded away.
        if (style == Style::double_quoted && next_space) put("\\");
      } else {
        put(" ");
      }
      spaces = true;
      ++i;
      continue;
    }
    if (style == Style::single_quoted && s[i] == '\'') put("'");
    put(s.substr(i, length));
    i += length;
    spaces = false;
  }
  put(quote);
  return out;
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

// A string value or key, ending in '\n': a literal block for several lines when `allow_block`,
// else one scalar from `column`, folded as go-yaml folds it (never for keys).
std::string string_scalar(std::string_view s, int column, int block_indent, bool allow_block) {
  if (allow_block)
    if (auto block = literal_block(s, block_indent)) return *block;
  return flow_scalar(s, string_style(s), column, block_indent, allow_block) + "\n";
}

// The scalar (or empty collection) text, ending in '\n', written from `column`.
std::string scalar_text(const nlohmann::json& v, int column, int block_indent) {
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
    case nlohmann::json::value_t::string:
      return string_scalar(v.get_ref<const std::string&>(), column, block_indent, true);
    case nlohmann::json::value_t::object: return "{}\n";
    case nlohmann::json::value_t::array: return "[]\n";
    default: return "null\n";
  }
}


void write_sequence(std::string& out, const nlohmann::json& items, int indent, bool first_inline);

// The characters on the last line of `out`.
int line_column(std::string_view out) {
  const auto start = out.rfind('\n');
  int column = 0;
  for (std::size_t i = start == std::string_view::npos ? 0 : start + 1; i < out.size(); ++i)
    if ((static_cast<unsigned char>(out[i]) & 0xC0) != 0x80) ++column;
  return column;
}

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
    std::string key_text = string_scalar(key, 0, 0, false);
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
      out += scalar_text(value, line_column(out), indent + 2);
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
    else out += scalar_text(item, line_column(out), indent + 2);
  }
}

}  // namespace

std::string json_to_yaml(const nlohmann::json& value) {
  std::string out;
  if (value.is_object() && !value.empty()) write_mapping(out, value, 0, false);
  else if (value.is_array() && !value.empty()) write_sequence(out, value, 0, false);
  else out = scalar_text(value, 0, 2);
  return out;
}

}  // namespace kw::codec
