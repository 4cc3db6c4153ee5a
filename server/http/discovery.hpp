#pragma once
// Discovery documents (/api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>) and /version.
#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "server/aggregator/aggregator.hpp"

namespace kw::http {

nlohmann::json api_versions(const std::string& server_address);
// `remote`: the groups other API servers serve (APIServices), listed after kw's own.
nlohmann::json api_group_list(const api::ResourceTable& table, const std::vector<aggregator::RemoteGroup>& remote = {});
// null when unknown
nlohmann::json api_group(const api::ResourceTable& table, const std::string& group,
                         const std::vector<aggregator::RemoteGroup>& remote = {});
nlohmann::json api_resource_list(const api::ResourceTable& table, const std::string& group, const std::string& version);
nlohmann::json version_info();

// Aggregated discovery (apidiscovery.k8s.io, which kubectl 1.27+ asks /api and /apis for):
// every resource of the core group (`core`) or of all other groups in one document.
// `api_version` is "apidiscovery.k8s.io/v2" or ".../v2beta1" (the same shape).
// The remote groups' resources are what their servers last listed.
nlohmann::json aggregated_discovery(const api::ResourceTable& table, bool core, const std::string& api_version,
                                    const std::vector<aggregator::RemoteGroup>& remote = {});

// The aggregated discovery version the Accept header asks for first ("v2", "v2beta1"), or
// "" when it asks for none kw serves (then the legacy documents answer).
std::string aggregated_discovery_wanted(const std::string* accept);

}  // namespace kw::http
