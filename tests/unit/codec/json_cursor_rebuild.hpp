#pragma once
// Test support shared by json_cursor_test and the fuzz_json_cursor target: reads a whole
// document through JsonCursor (strings and scalars with scalar(), containers member by
// member), so it can be compared with what nlohmann parses.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/codec/json_cursor.hpp"

namespace kw::codec::test {

// The document at the cursor; nullopt when the cursor fails or nesting passes `max_depth`.
inline std::optional<nlohmann::json> rebuild(JsonCursor& in, int max_depth = 256, int depth = 0) {
  if (depth > max_depth) return std::nullopt;
  const char c = in.peek();
  if (c == '{' || c == '[') {
    const bool object = c == '{';
    if (!(object ? in.begin_object() : in.begin_array())) return std::nullopt;
    nlohmann::json out = object ? nlohmann::json::object() : nlohmann::json::array();
    for (;;) {
      std::string name;
      if (object) {
        auto key = in.next_key();
        if (!key) break;
        if (!json_unescape(*key, name)) return std::nullopt;
      } else if (!in.next_element()) {
        break;
      }
      auto value = rebuild(in, max_depth, depth + 1);
      if (!value) return std::nullopt;
      if (object) out[name] = std::move(*value);
      else out.push_back(std::move(*value));
    }
    if (in.failed()) return std::nullopt;
    return out;
  }
  nlohmann::json value;
  if (!in.scalar(value)) return std::nullopt;
  return value;
}

}  // namespace kw::codec::test
