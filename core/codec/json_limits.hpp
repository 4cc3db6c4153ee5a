#pragma once
// The nesting limit kube-apiserver's JSON decoding keeps (encoding/json's maxNestingDepth):
// request bodies that nest objects and arrays deeper are refused before they are parsed, so
// that no recursive walk over a decoded object can run out of stack.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::codec {

inline constexpr std::size_t k_max_json_depth = 10000;

// Whether `text` opens more than `max_depth` objects and arrays inside one another (strings
// are skipped; nothing else about the text is checked).
bool json_nesting_exceeds(std::string_view text, std::size_t max_depth = k_max_json_depth);

// One JSON value, parsed in one pass with no recursion; the error says what is wrong
// ("exceeded max depth" past the limit, else the parser's own words: "parse error at line 1,
// column 2: ..."). A member an object repeats keeps its last value, as with Go's decoder; with
// `duplicates`, each repeat is named there by its path, as kube-apiserver's strict decoding
// names it ("metadata.name", "spec.containers[0].image"), in document order.
Result<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth = k_max_json_depth,
                                  std::vector<std::string>* duplicates = nullptr);

// The path of every object member of `text` ("metadata.name", "spec.containers[0].image"), in
// document order; a member an object repeats is listed again. Empty when `text` is not JSON
// within `max_depth`.
std::vector<std::string> member_paths(std::string_view text, std::size_t max_depth = k_max_json_depth);

}  // namespace kw::codec
