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

}  // namespace kw::http
