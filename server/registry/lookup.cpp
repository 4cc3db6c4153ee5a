#include "server/registry/lookup.hpp"

namespace kw::registry {

ApiResult<std::vector<cache::ObjectPtr>> cached(Registry& registry, const std::string& group, const std::string& version,
                                                const std::string& plural, const std::string& namespace_) {
  const auto table = registry.resources();
  const auto* info = table->find_plural(group, version, plural);
  if (info == nullptr) return std::vector<cache::ObjectPtr>{};
  auto listed = registry.list(*info, {.namespace_ = namespace_, .resource_version = "0"});
  if (!listed) return std::unexpected(listed.error());
  return std::move(listed->items);
}

ApiResult<std::optional<nlohmann::json>> cached_object(Registry& registry, const std::string& group,
                                                       const std::string& version, const std::string& plural,
                                                       const std::string& namespace_, const std::string& name) {
  const auto table = registry.resources();
  const auto* info = table->find_plural(group, version, plural);
  if (info == nullptr) return std::nullopt;
  for (const char* resource_version : {"0", ""}) {  // the cache, then storage
    auto found = registry.get(*info, namespace_, name, resource_version);
    if (found) return std::optional<nlohmann::json>(std::move(*found));
    if (found.error().code != 404) return std::unexpected(found.error());
  }
  return std::nullopt;
}

}  // namespace kw::registry
