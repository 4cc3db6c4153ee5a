#pragma once
// ASCII text helpers for protocol text (header names, media types, verbs, URL escapes).
#include <string>
#include <string_view>
#include <vector>

namespace kw::util {

// Equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b);
// ASCII letters lowered; other bytes kept.
std::string to_lower(std::string_view text);
// Without leading and trailing ASCII white space (Go's strings.TrimSpace for ASCII text).
std::string_view trim(std::string_view text);
// The value of a hexadecimal digit; -1 for any other character.
int hex_value(char c);
// "%2F" escapes decoded, malformed ones kept as they are; with plus_is_space (query strings),
// '+' is a space.
std::string percent_decode(std::string_view text, bool plus_is_space = false);
// Every byte but ASCII letters, digits and "-_.~" as %XX: safe in a path segment, a query
// value or a form field.
std::string percent_encode(std::string_view text);
// Go's strconv.Quote (fmt's %q of a string), the way Kubernetes' messages quote names and
// values: "a\"b", control bytes as \n, \t or \x01, invalid UTF-8 bytes as \xff, valid
// UTF-8 kept.
std::string go_quote(std::string_view text);
// Go's %q of a []string: ["a" "b"].
std::string go_quote_list(const std::vector<std::string>& items);

}  // namespace kw::util
