#pragma once
// Discovery documents (/api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>) and /version.
#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::http {

nlohmann::json api_versions(const std::string& server_address);
nlohmann::json api_group_list(const api::ResourceTable& table);
nlohmann::json api_group(const api::ResourceTable& table, const std::string& group);  // null when unknown
nlohmann::json api_resource_list(const api::ResourceTable& table, const std::string& group, const std::string& version);
nlohmann::json version_info();

// Aggregated discovery (apidiscovery.k8s.io, which kubectl 1.27+ asks /api and /apis for):
// every resource of the core group (`core`) or of all other groups in one document.
// `api_version` is "apidiscovery.k8s.io/v2" or ".../v2beta1" (the same shape).
nlohmann::json aggregated_discovery(const api::ResourceTable& table, bool core, const std::string& api_version);

// The aggregated discovery version the Accept header asks for first ("v2", "v2beta1"), or
// "" when it asks for none kw serves (then the legacy documents answer).
std::string aggregated_discovery_wanted(const std::string* accept);

}  // namespace kw::http
