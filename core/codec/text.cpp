#include "core/codec/text.hpp"

#include <cstdint>

namespace kw::codec {

std::size_t utf8_length_at(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  std::size_t length;
  std::uint32_t code;
  if ((c & 0xE0) == 0xC0) {
    length = 2;
    code = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3;
    code = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    length = 4;
    code = c & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3F);
  }
  static constexpr std::uint32_t k_minimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < k_minimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_length_at(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string go_json_escape(std::string json_text) {
  // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
  if (json_text.find_first_of("<>&\xe2") == std::string::npos) return json_text;
  std::string out;
  out.reserve(json_text.size() + 16);
  for (std::size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json_text.size() && json_text[i + 1] == '\x80' &&
               (json_text[i + 2] == '\xa8' || json_text[i + 2] == '\xa9')) {
      out += json_text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace kw::codec
