#pragma once
// The empty object of a kind as kube-apiserver's server-side apply sees it: the "live" object
// of a create and of an object's first apply, so that the parts every object of the kind has
// (spec, status, a Deployment's strategy and template) are not counted as new.
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::kinds {

// Without apiVersion and kind; metadata alone for kinds kw has no record of.
const nlohmann::json& empty_object(std::string_view api_version, std::string_view kind);

}  // namespace kw::kinds
