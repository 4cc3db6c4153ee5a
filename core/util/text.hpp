#pragma once
// ASCII text helpers for protocol text (header names, media types, verbs, URL escapes).
#include <string>
#include <string_view>

namespace kw::util {

// Equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b);
// ASCII letters lowered; other bytes kept.
std::string to_lower(std::string_view text);
// The value of a hexadecimal digit; -1 for any other character.
int hex_value(char c);
// "%2F" escapes decoded, malformed ones kept as they are; with plus_is_space (query strings),
// '+' is a space.
std::string percent_decode(std::string_view text, bool plus_is_space = false);

}  // namespace kw::util
