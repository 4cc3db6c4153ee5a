// A pod spec's pod-level fields: its security context, scheduling constraints, DNS settings
// and the fields that depend on its operating system.
#include <string>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {

using api::at;
using api::str;
using nlohmann::json;

void validate_pod_context(Causes& causes, const json& spec, const std::string& path) {
  validate_app_armor_profile(causes, at(spec, {"securityContext", "appArmorProfile"}),
                             path + ".securityContext.appArmorProfile");
}

void validate_pod_extras(Causes& causes, const json& spec, const std::string& path) {
  if (const auto priority_class = str(at(spec, {"priorityClassName"})); !priority_class.empty())
    invalid_each(causes, path + ".priorityClassName", priority_class, subdomain_errors(priority_class));
}

}  // namespace kw::kinds
