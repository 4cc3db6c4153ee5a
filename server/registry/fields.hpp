#pragma once
// The selectable fields of each kind (field selectors), as kube-apiserver's strategies list them.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::registry {

// Every selectable field of `object` with its value; a field selector naming any other
// field is rejected.
std::map<std::string, std::string> selectable_fields(const api::ResourceInfo& info, const nlohmann::json& object);

}  // namespace kw::registry
