// Equivalent resources: one stored resource served under several group versions.
#include "server/registry/registry.hpp"
#include "server/registry/stored_value.hpp"

namespace kw::registry {

std::vector<const api::ResourceInfo*> Registry::equivalent_resources(const api::ResourceTable& table,
                                                                     const api::ResourceInfo& info,
                                                                     std::string_view subresource) const {
  const std::string prefix = key_prefix(info, "");
  std::vector<const api::ResourceInfo*> out;
  for (const auto& other : table.all()) {
    // (Equivalent resources share their plural in every row kw has: a cheap first test.)
    if (other.custom != info.custom || other.plural != info.plural) continue;
    if (!subresource.empty() && !other.has_subresource(subresource)) continue;
    if (key_prefix(other, "") == prefix) out.push_back(&other);
  }
  return out;
}

ApiResult<nlohmann::json> Registry::convert_equivalent(const api::ResourceInfo& from, const api::ResourceInfo& to,
                                                       nlohmann::json object) {
  if (!object.is_object()) return object;
  if (to.custom) return convert_custom(to, std::move(object), to.api_version());
  convert_builtin(from, to, object);
  return object;
}

}  // namespace kw::registry
