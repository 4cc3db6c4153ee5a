#pragma once
// Object validation as kube-apiserver does it: names, labels, annotations and the required
// fields of each built-in kind. Each failure is a cause {reason, message, field}.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::registry {

bool is_dns1123_label(std::string_view value);
bool is_dns1123_subdomain(std::string_view value);
bool is_qualified_name(std::string_view value);  // label/annotation key
bool is_label_value(std::string_view value);

// Before anything reads them: the type-meta and object-meta fields the registry uses must
// have their JSON types (string, map of strings, list of strings). null means absent and is
// removed, as Go's decoding treats it; any other wrong type is the returned message
// ("metadata.name: expected a string"), for a 400.
std::optional<std::string> normalize_meta_types(nlohmann::json& object);

// The causes (an array, empty when valid) for `object` of `info`.
nlohmann::json validate_object(const api::ResourceInfo& info, const nlohmann::json& object);

}  // namespace kw::registry
