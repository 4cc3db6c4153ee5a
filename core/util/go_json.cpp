#include "core/util/go_json.hpp"

#include <cstddef>
#include <vector>

#include "core/util/text.hpp"

namespace kw::util {
namespace {

constexpr std::size_t k_max_depth = 10000;  // encoding/json's maxNestingDepth
constexpr std::string_view k_end = "unexpected end of JSON input";

// encoding/json's quoteChar: a byte as Go quotes it in a scanner error.
std::string quote_char(unsigned char c) {
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  std::string rune;  // string(c) in Go is the rune U+00XX
  if (c < 0x80) {
    rune.push_back(static_cast<char>(c));
  } else {
    rune.push_back(static_cast<char>(0xC0 | (c >> 6)));
    rune.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
  const std::string quoted = go_quote(rune);
  return "'" + quoted.substr(1, quoted.size() - 2) + "'";
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

class Scanner {
 public:
  explicit Scanner(std::string_view text) : m_text(text) {}

  std::string run() {
    for (;;) {
      if (auto error = value(); !error.empty()) return error;
      // After a value: close containers, or step to the next element or member.
      for (bool next = false; !next;) {
        skip_space();
        if (m_open.empty()) return at_end() ? "" : invalid("after top-level value");
        if (at_end()) return std::string(k_end);
        const char c = m_text[m_pos];
        if (m_open.back() == '{') {
          if (c == ',') {
            ++m_pos;
            if (auto error = key(); !error.empty()) return error;
            next = true;
          } else if (c == '}') {
            ++m_pos;
            m_open.pop_back();
          } else {
            return invalid("after object key:value pair");
          }
        } else {
          if (c == ',') {
            ++m_pos;
            next = true;
          } else if (c == ']') {
            ++m_pos;
            m_open.pop_back();
          } else {
            return invalid("after array element");
          }
        }
      }
    }
  }

 private:
  bool at_end() const { return m_pos >= m_text.size(); }
  void skip_space() {
    while (!at_end() && is_space(m_text[m_pos])) ++m_pos;
  }
  std::string invalid(std::string_view context) const {
    return "invalid character " + quote_char(static_cast<unsigned char>(m_text[m_pos])) + " " + std::string(context);
  }

  // One value, or the opening of a container whose first member or element comes next.
  std::string value() {
    for (;;) {
      skip_space();
      if (at_end()) return std::string(k_end);
      const char c = m_text[m_pos];
      if (c == '{' || c == '[') {
        if (m_open.size() >= k_max_depth) return "exceeded max depth";
        m_open.push_back(c);
        ++m_pos;
        skip_space();
        if (at_end()) return std::string(k_end);
        if (m_text[m_pos] == (c == '{' ? '}' : ']')) {
          ++m_pos;
          m_open.pop_back();
          return "";
        }
        if (c == '{') {
          if (auto error = key(); !error.empty()) return error;
        }
        continue;
      }
      if (c == '"') return string();
      if (c == '-' || is_digit(c)) return number();
      if (c == 't') return literal("true");
      if (c == 'f') return literal("false");
      if (c == 'n') return literal("null");
      return invalid("looking for beginning of value");
    }
  }

  // An object member's key and its colon.
  std::string key() {
    skip_space();
    if (at_end()) return std::string(k_end);
    if (m_text[m_pos] != '"') return invalid("looking for beginning of object key string");
    if (auto error = string(); !error.empty()) return error;
    skip_space();
    if (at_end()) return std::string(k_end);
    if (m_text[m_pos] != ':') return invalid("after object key");
    ++m_pos;
    return "";
  }

  std::string string() {
    ++m_pos;  // the opening quote
    for (;;) {
      if (at_end()) return std::string(k_end);
      const auto c = static_cast<unsigned char>(m_text[m_pos]);
      if (c == '"') {
        ++m_pos;
        return "";
      }
      if (c < 0x20) return invalid("in string literal");
      ++m_pos;
      if (c != '\\') continue;
      if (at_end()) return std::string(k_end);
      const char escape = m_text[m_pos];
      if (escape == 'u') {
        ++m_pos;
        for (int i = 0; i < 4; ++i, ++m_pos) {
          if (at_end()) return std::string(k_end);
          if (!is_hex(m_text[m_pos])) return invalid("in \\u hexadecimal character escape");
        }
      } else if (std::string_view("\"\\/bfnrt").find(escape) != std::string_view::npos) {
        ++m_pos;
      } else {
        return invalid("in string escape code");
      }
    }
  }

  // A digit must come next (after '-', '.', 'e' or its sign).
  std::string digit(std::string_view context) {
    if (at_end()) return std::string(k_end);
    if (!is_digit(m_text[m_pos])) return invalid(context);
    return "";
  }
  void digits() {
    while (!at_end() && is_digit(m_text[m_pos])) ++m_pos;
  }

  std::string number() {
    if (m_text[m_pos] == '-') {
      ++m_pos;
      if (auto error = digit("in numeric literal"); !error.empty()) return error;
    }
    if (m_text[m_pos++] != '0') digits();
    if (!at_end() && m_text[m_pos] == '.') {
      ++m_pos;
      if (auto error = digit("after decimal point in numeric literal"); !error.empty()) return error;
      digits();
    }
    if (!at_end() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      ++m_pos;
      if (!at_end() && (m_text[m_pos] == '+' || m_text[m_pos] == '-')) ++m_pos;
      if (auto error = digit("in exponent of numeric literal"); !error.empty()) return error;
      digits();
    }
    return "";
  }

  std::string literal(std::string_view word) {
    ++m_pos;
    for (std::size_t i = 1; i < word.size(); ++i, ++m_pos) {
      if (at_end()) return std::string(k_end);
      if (m_text[m_pos] != word[i])
        return invalid("in literal " + std::string(word) + " (expecting " +
                       quote_char(static_cast<unsigned char>(word[i])) + ")");
    }
    return "";
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::vector<char> m_open;  // the containers open at m_pos: '{' or '['
};

}  // namespace

std::string go_json_syntax_error(std::string_view text) { return Scanner(text).run(); }

}  // namespace kw::util
