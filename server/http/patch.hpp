#pragma once
// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch
// (lists of objects merged by their Kubernetes merge key, with the $patch directives kubectl
// apply sends).
#include <string>

#include <nlohmann/json.hpp>

#include "server/registry/api_error.hpp"

namespace kw::http {

enum class PatchType { merge, json, strategic, apply };

// The patch type of a Content-Type essence; nullopt when it is not a patch type (415).
std::optional<PatchType> patch_type(const std::string& content_type);

registry::ApiResult<nlohmann::json> apply_patch(const nlohmann::json& current, const std::string& body, PatchType type);

}  // namespace kw::http
