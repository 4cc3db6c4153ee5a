#pragma once
// Object validation as kube-apiserver does it: names, labels, annotations and the required
// fields of each built-in kind. Each failure is a cause {reason, message, field}.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::registry {

bool is_dns1123_label(std::string_view value);
bool is_dns1123_subdomain(std::string_view value);
bool is_qualified_name(std::string_view value);  // label/annotation key
bool is_label_value(std::string_view value);

// The causes (an array, empty when valid) for `object` of `info`.
nlohmann::json validate_object(const api::ResourceInfo& info, const nlohmann::json& object);

}  // namespace kw::registry
