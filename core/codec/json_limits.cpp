#include "core/codec/json_limits.hpp"

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

Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
  if (json_nesting_exceeds(text, max_depth)) return fail("exceeded max depth");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    std::string_view message = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (message.starts_with('[') && message.find("] ") != std::string_view::npos)
      message.remove_prefix(message.find("] ") + 2);
    return fail(std::string(message));
  }
}

}  // namespace kw::codec
