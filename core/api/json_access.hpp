#pragma once
// Tolerant reads of a JSON document whose shape is not guaranteed (stored objects, request
// bodies, configuration objects): a missing or mistyped step reads as null, "", 0 or an empty
// array instead of throwing. Validation decides elsewhere whether the shape is acceptable.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::api {

// The value at `path` (object keys), or a null when a step is missing or not an object.
const nlohmann::json& at(const nlohmann::json& j, std::initializer_list<std::string_view> path);
std::string str(const nlohmann::json& j);   // "" unless a string
std::int64_t num(const nlohmann::json& j);  // 0 unless a number (floats truncated)
const nlohmann::json& arr(const nlohmann::json& j);   // an empty array unless an array
std::int64_t size_of(const nlohmann::json& j);        // members of an object or array, else 0
// The string member `key` of `object`, or `fallback` when it is missing or not a string.
std::string text(const nlohmann::json& object, std::string_view key, std::string fallback = {});
// The string items of the array member `key` of `object` (other items are passed over).
std::vector<std::string> strings(const nlohmann::json& object, std::string_view key);

}  // namespace kw::api
