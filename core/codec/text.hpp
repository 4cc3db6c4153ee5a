#pragma once
// Text rules every encoding shares: what counts as UTF-8, and how Go's encoding/json escapes
// JSON text (kubectl's -o json output and the last-applied annotation are written by it).
#include <cstddef>
#include <string>
#include <string_view>

namespace kw::codec {

// Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
bool is_valid_utf8(std::string_view text);
// The length of the strict UTF-8 character at text[i] (i < size), 0 when none starts there.
std::size_t utf8_length_at(std::string_view text, std::size_t i);

// JSON text with <, > and & written as \u003c, \u003e, \u0026 and the line terminators
// U+2028, U+2029 as \u2028, \u2029, as Go's json.Marshal writes them. Those characters can
// only occur inside JSON strings, so this is a pass over the text, not a re-encoding.
std::string go_json_escape(std::string json_text);

}  // namespace kw::codec
