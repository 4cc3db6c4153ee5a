#include "server/admission/lookup.hpp"

namespace kw::admission {

registry::ApiResult<std::vector<cache::ObjectPtr>> cached(registry::Registry& registry, const std::string& group,
                                                          const std::string& version, const std::string& plural,
                                                          const std::string& namespace_) {
  const auto table = registry.resources();
  const auto* info = table->find_plural(group, version, plural);
  if (info == nullptr) return std::vector<cache::ObjectPtr>{};
  auto listed = registry.list(*info, {.namespace_ = namespace_, .resource_version = "0"});
  if (!listed) return std::unexpected(listed.error());
  return std::move(listed->items);
}

registry::ApiResult<std::optional<nlohmann::json>> cached_object(registry::Registry& registry, const std::string& group,
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

bool writes_object(const registry::AdmissionRequest& request, std::string_view group, std::string_view plural) {
  return request.subresource.empty() && request.info.group == group && request.info.plural == plural &&
         request.object.is_object();
}

registry::ApiError internal_forbidden(const registry::AdmissionRequest& request, const std::string& why) {
  std::string text = "Internal error occurred: ";
  text += why;  // (not `"..." + why`: GCC 12 warns falsely about it, -Wrestrict)
  return registry::admission_forbidden(request, text);
}

}  // namespace kw::admission
