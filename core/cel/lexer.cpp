// The CEL lexer (cel-spec's lexis: numbers, quoted and raw strings, bytes, escapes).
#include "core/cel/lexer.hpp"

#include <array>

namespace kw::cel {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

int hex_digit(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// Two-character operators first, so "<=" is not read as "<".
constexpr std::array<std::string_view, 8> k_two_char = {"==", "!=", "<=", ">=", "&&", "||",
                                                         ".?", "[?"};
constexpr std::string_view k_one_char = "+-*/%<>!?:.,[](){}";

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

Result<Token> Lexer::error_at(std::size_t offset, std::string message) {
  m_error_offset = static_cast<std::uint32_t>(offset);
  return fail(std::move(message));
}

void Lexer::skip_space_and_comments() {
  while (m_pos < m_source.size()) {
    char c = m_source[m_pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++m_pos;
    } else if (m_source.substr(m_pos, 2) == "//") {
      while (m_pos < m_source.size() && m_source[m_pos] != '\n') ++m_pos;
    } else {
      return;
    }
  }
}

Result<Token> Lexer::next() {
  skip_space_and_comments();
  Token token;
  token.offset = static_cast<std::uint32_t>(m_pos);
  if (m_pos >= m_source.size()) return token;
  char c = m_source[m_pos];
  if (is_digit(c) || (c == '.' && m_pos + 1 < m_source.size() && is_digit(m_source[m_pos + 1]))) {
    return number();
  }
  // String prefixes: r, b, and both in either order, any case.
  std::size_t prefix = 0;
  bool raw = false;
  bool bytes = false;
  while (prefix < 2 && m_pos + prefix < m_source.size()) {
    char p = static_cast<char>(m_source[m_pos + prefix] | 0x20);
    if (p == 'r' && !raw) raw = true;
    else if (p == 'b' && !bytes) bytes = true;
    else break;
    ++prefix;
  }
  if (m_pos + prefix < m_source.size() &&
      (m_source[m_pos + prefix] == '"' || m_source[m_pos + prefix] == '\'')) {
    return quoted(prefix, raw, bytes);
  }
  if (is_ident_start(c)) {
    std::size_t start = m_pos;
    while (m_pos < m_source.size() && is_ident_char(m_source[m_pos])) ++m_pos;
    token.kind = Token::Kind::ident;
    token.text = m_source.substr(start, m_pos - start);
    return token;
  }
  token.kind = Token::Kind::punct;
  for (auto op : k_two_char) {
    if (m_source.substr(m_pos, 2) == op) {
      token.text = m_source.substr(m_pos, 2);
      m_pos += 2;
      return token;
    }
  }
  if (k_one_char.find(c) != std::string_view::npos) {
    token.text = m_source.substr(m_pos++, 1);
    return token;
  }
  return error_at(m_pos, "Syntax error: token recognition error at: '" + std::string(1, c) + "'");
}

Result<Token> Lexer::number() {
  Token token;
  std::size_t start = m_pos;
  token.offset = static_cast<std::uint32_t>(start);
  token.kind = Token::Kind::integer;
  if (m_source.substr(m_pos, 2) == "0x" || m_source.substr(m_pos, 2) == "0X") {
    m_pos += 2;
    while (m_pos < m_source.size() && is_hex(m_source[m_pos])) ++m_pos;
  } else {
    while (m_pos < m_source.size() && is_digit(m_source[m_pos])) ++m_pos;
    if (m_pos + 1 < m_source.size() && m_source[m_pos] == '.' && is_digit(m_source[m_pos + 1])) {
      token.kind = Token::Kind::floating;
      ++m_pos;
      while (m_pos < m_source.size() && is_digit(m_source[m_pos])) ++m_pos;
    }
    if (m_pos < m_source.size() && (m_source[m_pos] == 'e' || m_source[m_pos] == 'E')) {
      std::size_t e = m_pos + 1;
      if (e < m_source.size() && (m_source[e] == '+' || m_source[e] == '-')) ++e;
      if (e < m_source.size() && is_digit(m_source[e])) {
        token.kind = Token::Kind::floating;
        m_pos = e;
        while (m_pos < m_source.size() && is_digit(m_source[m_pos])) ++m_pos;
      }
    }
  }
  if (token.kind == Token::Kind::integer && m_pos < m_source.size() &&
      (m_source[m_pos] == 'u' || m_source[m_pos] == 'U')) {
    token.kind = Token::Kind::uinteger;
    ++m_pos;
  }
  token.text = m_source.substr(start, m_pos - start);
  return token;
}

Result<Token> Lexer::quoted(std::size_t prefix_length, bool raw, bool bytes) {
  Token token;
  std::size_t start = m_pos;
  token.offset = static_cast<std::uint32_t>(start);
  token.kind = bytes ? Token::Kind::bytes : Token::Kind::string;
  m_pos += prefix_length;
  char quote = m_source[m_pos];
  bool triple = m_source.substr(m_pos, 3) == std::string(3, quote);
  m_pos += triple ? 3 : 1;
  std::string closing(triple ? 3 : 1, quote);
  while (true) {
    if (m_pos >= m_source.size() || (!triple && m_source[m_pos] == '\n')) {
      return error_at(start, "Syntax error: token recognition error at: '" +
                                 std::string(m_source.substr(start, m_pos - start)) + "'");
    }
    if (m_source.substr(m_pos, closing.size()) == closing) break;
    if (m_source[m_pos] == '\\' && !raw) {
      std::size_t at = m_pos;
      ++m_pos;
      if (!escape(token.value, bytes)) {
        return error_at(at, "Syntax error: invalid escape sequence in literal");
      }
      continue;
    }
    token.value += m_source[m_pos++];
  }
  m_pos += closing.size();
  token.text = m_source.substr(start, m_pos - start);
  return token;
}

bool Lexer::escape(std::string& out, bool bytes) {
  if (m_pos >= m_source.size()) return false;
  char c = m_source[m_pos++];
  switch (c) {
    case 'a': out += '\a'; return true;
    case 'b': out += '\b'; return true;
    case 'f': out += '\f'; return true;
    case 'n': out += '\n'; return true;
    case 'r': out += '\r'; return true;
    case 't': out += '\t'; return true;
    case 'v': out += '\v'; return true;
    case '\\': case '\'': case '"': case '`': case '?': out += c; return true;
    default: break;
  }
  std::uint32_t value = 0;
  std::size_t width = 0;
  if (c == 'x' || c == 'X') width = 2;
  if ((c == 'u' || c == 'U') && bytes) return false;
  if (c == 'u') width = 4;
  if (c == 'U') width = 8;
  if (width > 0) {
    for (std::size_t i = 0; i < width; ++i) {
      if (m_pos >= m_source.size() || !is_hex(m_source[m_pos])) return false;
      value = value * 16 + static_cast<std::uint32_t>(hex_digit(m_source[m_pos++]));
    }
  } else if (c >= '0' && c <= '3') {
    value = static_cast<std::uint32_t>(c - '0');
    for (int i = 0; i < 2; ++i) {
      if (m_pos >= m_source.size() || m_source[m_pos] < '0' || m_source[m_pos] > '7') return false;
      value = value * 8 + static_cast<std::uint32_t>(m_source[m_pos++] - '0');
    }
  } else {
    return false;
  }
  if (bytes) {
    out += static_cast<char>(value);
    return true;
  }
  if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return false;
  append_utf8(out, value);
  return true;
}

}  // namespace kw::cel
