#include "core/codec/json_cursor.hpp"

#include <charconv>
#include <cstdint>

namespace kw::codec {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool read_hex4(std::string_view text, std::size_t at, std::uint32_t& out) {
  if (at + 4 > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    const int digit = hex_digit(text[i]);
    if (digit < 0) return false;
    out = out * 16 + static_cast<std::uint32_t>(digit);
  }
  return true;
}

void append_utf8(std::uint32_t code, std::string& out) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

bool json_unescape(std::string_view body, std::string& out) {
  out.clear();
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == body.size()) return false;
    switch (body[i]) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        std::uint32_t code = 0;
        if (!read_hex4(body, i + 1, code)) return false;
        i += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate: its low half must follow
          std::uint32_t low = 0;
          if (i + 2 >= body.size() || body[i + 1] != '\\' || body[i + 2] != 'u' || !read_hex4(body, i + 3, low) ||
              low < 0xDC00 || low > 0xDFFF)
            return false;
          i += 6;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          return false;  // a lone low surrogate
        }
        append_utf8(code, out);
        break;
      }
      default: return false;
    }
  }
  return true;
}

bool JsonCursor::fail() {
  m_failed = true;
  return false;
}

void JsonCursor::skip_space() {
  while (m_pos < m_text.size() && is_space(m_text[m_pos])) ++m_pos;
}

char JsonCursor::peek() {
  skip_space();
  return m_pos < m_text.size() ? m_text[m_pos] : '\0';
}

bool JsonCursor::at_end() {
  skip_space();
  return !m_failed && m_pos == m_text.size();
}

bool JsonCursor::begin_object() {
  if (m_failed || peek() != '{') return fail();
  ++m_pos;
  m_first = true;
  return true;
}

bool JsonCursor::begin_array() {
  if (m_failed || peek() != '[') return fail();
  ++m_pos;
  m_first = true;
  return true;
}

std::optional<std::string_view> JsonCursor::next_key() {
  if (m_failed) return std::nullopt;
  char c = peek();
  if (c == '}') {
    ++m_pos;
    m_first = false;  // the parent has a member now: the next one needs its ','
    return std::nullopt;
  }
  if (!m_first) {
    if (c != ',') {
      fail();
      return std::nullopt;
    }
    ++m_pos;
    c = peek();
  }
  m_first = false;
  if (c != '"') {
    fail();
    return std::nullopt;
  }
  bool escaped = false;
  auto key = string_span(escaped);
  if (!key || peek() != ':') {
    fail();
    return std::nullopt;
  }
  ++m_pos;
  return key;
}

bool JsonCursor::next_element() {
  if (m_failed) return false;
  const char c = peek();
  if (c == ']') {
    ++m_pos;
    m_first = false;
    return false;
  }
  if (!m_first) {
    if (c != ',') return fail();
    ++m_pos;
  }
  m_first = false;
  return true;
}

std::optional<std::string_view> JsonCursor::string_span(bool& escaped) {
  // m_pos is at the opening quote.
  const std::size_t start = ++m_pos;
  escaped = false;
  const char* data = m_text.data();
  const std::size_t size = m_text.size();
  for (std::size_t i = start; i < size; ++i) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == '"') {
      m_pos = i + 1;
      return m_text.substr(start, i - start);
    }
    if (c == '\\') {
      escaped = true;
      ++i;  // the escaped character (a quote included) is never the end
      continue;
    }
    if (c < 0x20) break;  // raw control characters are not allowed in JSON strings
  }
  fail();
  return std::nullopt;
}

bool JsonCursor::number_span(std::string_view& out) {
  const std::size_t start = m_pos;
  while (m_pos < m_text.size()) {
    const char c = m_text[m_pos];
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
      ++m_pos;
      continue;
    }
    break;
  }
  if (m_pos == start) return fail();
  out = m_text.substr(start, m_pos - start);
  return true;
}

bool JsonCursor::literal(std::string_view word) {
  if (m_text.substr(m_pos, word.size()) != word) return fail();
  m_pos += word.size();
  return true;
}

bool JsonCursor::skip() {
  if (m_failed) return false;
  int depth = 0;
  do {
    const char c = peek();
    switch (c) {
      case '{':
      case '[':
        ++depth;
        ++m_pos;
        m_first = true;
        break;
      case '}':
      case ']':
        if (depth == 0) return fail();
        --depth;
        ++m_pos;
        m_first = false;
        break;
      case ',':
        if (depth == 0 || m_first) return fail();
        ++m_pos;
        break;
      case '"': {
        bool escaped = false;
        if (!string_span(escaped)) return false;
        m_first = false;
        if (depth > 0 && peek() == ':') ++m_pos;  // an object key
        break;
      }
      case 't': if (!literal("true")) return false; m_first = false; break;
      case 'f': if (!literal("false")) return false; m_first = false; break;
      case 'n': if (!literal("null")) return false; m_first = false; break;
      default: {
        std::string_view number;
        if (!number_span(number)) return false;
        m_first = false;
        break;
      }
    }
  } while (depth > 0);
  m_first = false;
  return true;
}

std::optional<std::string_view> JsonCursor::raw() {
  peek();
  const std::size_t start = m_pos;
  if (!skip()) return std::nullopt;
  return m_text.substr(start, m_pos - start);
}

bool JsonCursor::string(std::string& out) {
  if (m_failed || peek() != '"') return fail();
  bool escaped = false;
  auto body = string_span(escaped);
  if (!body) return false;
  m_first = false;
  if (!escaped) {
    out.assign(body->data(), body->size());
    return true;
  }
  return json_unescape(*body, out) || fail();
}

bool JsonCursor::null() {
  if (m_failed || peek() != 'n') return false;
  return literal("null");
}

bool JsonCursor::scalar(nlohmann::json& out) {
  if (m_failed) return false;
  const char c = peek();
  switch (c) {
    case '"': {
      std::string text;
      if (!string(text)) return false;
      out = std::move(text);
      return true;
    }
    case 't': out = true; return literal("true");
    case 'f': out = false; return literal("false");
    case 'n': out = nullptr; return literal("null");
    case '{':
    case '[': {
      auto text = raw();
      if (!text) return false;
      out = nlohmann::json::parse(*text, nullptr, false);
      return !out.is_discarded() || fail();
    }
    default: break;
  }
  std::string_view number;
  if (!number_span(number)) return false;
  const char* end = number.data() + number.size();
  if (number.find_first_of(".eE") == std::string_view::npos) {
    std::int64_t value = 0;
    if (auto [p, ec] = std::from_chars(number.data(), end, value); ec == std::errc() && p == end) {
      out = value;
      return true;
    }
    std::uint64_t unsigned_value = 0;
    if (auto [p, ec] = std::from_chars(number.data(), end, unsigned_value); ec == std::errc() && p == end) {
      out = unsigned_value;
      return true;
    }
  }
  // Doubles (and integers too large for 64 bits) the way nlohmann reads them.
  out = nlohmann::json::parse(number, nullptr, false);
  return (!out.is_discarded() && out.is_number()) || fail();
}

}  // namespace kw::codec
