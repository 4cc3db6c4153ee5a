#pragma once
// The selectable fields of an object (field selectors): metadata.name, metadata.namespace
// and those its kind's row lists, as kube-apiserver's strategies list them.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::registry {

// Every selectable field of `object` with its value; a field selector naming any other
// field is rejected.
// `spec` is the kind's row (null for custom resources).
std::map<std::string, std::string> selectable_fields(const kinds::KindSpec* spec, const api::ResourceInfo& info,
                                                     const nlohmann::json& object);

}  // namespace kw::registry
