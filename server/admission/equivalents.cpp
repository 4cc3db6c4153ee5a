#include "server/admission/equivalents.hpp"

#include "core/api/json_access.hpp"

namespace kw::admission {

using registry::AdmissionRequest;

MatchPolicy read_match_policy(const nlohmann::json& holder) {
  return api::text(holder, "matchPolicy") == "Equivalent" ? MatchPolicy::equivalent : MatchPolicy::exact;
}

std::span<const api::ResourceInfo* const> EquivalentResources::get() {
  if (!m_resources) {
    m_table = m_registry->resources();
    m_resources = m_registry->equivalent_resources(*m_table, m_request->info, m_request->subresource);
  }
  return *m_resources;
}

AdmissionRequest seen_as(const AdmissionRequest& request, const api::ResourceInfo& info) {
  return seen_as(request, info, request.object, request.old);
}

AdmissionRequest seen_as(const AdmissionRequest& request, const api::ResourceInfo& info, const nlohmann::json& object,
                         const nlohmann::json* old) {
  AdmissionRequest out{info, request.operation, request.subresource, request.namespace_, request.name,    object,
                       old,  request.user,      request.dry_run,     request.warnings,   request.annotate};
  out.requested = request.requested != nullptr ? request.requested : &request.info;
  return out;
}

const api::ResourceInfo* matched_resource(std::size_t rules, const RuleMatcher& matches,
                                          const AdmissionRequest& request, MatchPolicy policy,
                                          EquivalentResources& equivalents) {
  for (std::size_t i = 0; i < rules; ++i)
    if (matches(i, request)) return &request.info;
  if (policy != MatchPolicy::equivalent) return nullptr;
  auto same = [&](const api::ResourceInfo& info) {
    return info.group == request.info.group && info.version == request.info.version &&
           info.plural == request.info.plural;
  };
  for (std::size_t i = 0; i < rules; ++i)
    for (const api::ResourceInfo* equivalent : equivalents.get())
      if (!same(*equivalent) && matches(i, seen_as(request, *equivalent))) return equivalent;
  return nullptr;
}

registry::ApiResult<std::unique_ptr<SeenAs>> SeenAs::convert(registry::Registry& registry,
                                                             const AdmissionRequest& request,
                                                             const api::ResourceInfo& as) {
  auto object = registry.convert_equivalent(request.info, as, request.object);
  if (!object) return std::unexpected(object.error());
  std::optional<nlohmann::json> old;
  if (request.old != nullptr) {
    auto converted = registry.convert_equivalent(request.info, as, *request.old);
    if (!converted) return std::unexpected(converted.error());
    old = std::move(*converted);
  }
  return std::unique_ptr<SeenAs>(new SeenAs(request, as, std::move(*object), std::move(old)));
}

SeenAs::SeenAs(const AdmissionRequest& request, const api::ResourceInfo& as, nlohmann::json object,
               std::optional<nlohmann::json> old)
    : m_object(std::move(object)),
      m_old(std::move(old)),
      m_request(seen_as(request, as, m_object, m_old ? &*m_old : nullptr)) {}

registry::ApiResult<const AdmissionRequest*> as_matched(registry::Registry& registry, const AdmissionRequest& request,
                                                        const api::ResourceInfo& as,
                                                        std::unique_ptr<SeenAs>& converted) {
  if (&as == &request.info) return &request;
  if (!converted) {
    auto made = SeenAs::convert(registry, request, as);
    if (!made) return std::unexpected(made.error());
    converted = std::move(*made);
  }
  return &converted->request();
}

}  // namespace kw::admission
