#pragma once
// matchPolicy, as admission webhooks and ValidatingAdmissionPolicies apply it: with Exact their
// rules must name the request's own resource; with Equivalent (the API's default) a request
// they do not name is matched as an equivalent resource (the same stored objects served under
// another group version: Registry::equivalent_resources), and the webhook or policy then sees
// it as that resource: object and oldObject converted to its version, request.kind and
// request.resource naming it, requestKind and requestResource the client's.
//
//   EquivalentResources equivalents(registry, request);
//   const api::ResourceInfo* as = matched_resource(n, rule_i_matches, request, policy, equivalents);
//   std::unique_ptr<SeenAs> converted;
//   if (as != nullptr) auto seen = as_matched(registry, request, *as, converted);  // the request it sees
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/registry/admission.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

enum class MatchPolicy { exact, equivalent };

// A webhook's or MatchResources' matchPolicy: Equivalent, else (also when unset) Exact.
MatchPolicy read_match_policy(const nlohmann::json& holder);

// The request's equivalent resources, found in the served resources on first use.
class EquivalentResources {
 public:
  EquivalentResources(registry::Registry& registry, const registry::AdmissionRequest& request)
      : m_registry(&registry), m_request(&request) {}
  // A fixed list (tests).
  explicit EquivalentResources(std::vector<const api::ResourceInfo*> resources) : m_resources(std::move(resources)) {}

  std::span<const api::ResourceInfo* const> get();

 private:
  registry::Registry* m_registry = nullptr;
  const registry::AdmissionRequest* m_request = nullptr;
  std::shared_ptr<const api::ResourceTable> m_table;  // the snapshot m_resources point into
  std::optional<std::vector<const api::ResourceInfo*>> m_resources;
};

// `request` as its rules see it when matched as `info` (same objects, no conversion); with
// `object` and `old` (which it views), as the webhook or policy sees it.
registry::AdmissionRequest seen_as(const registry::AdmissionRequest& request, const api::ResourceInfo& info);
registry::AdmissionRequest seen_as(const registry::AdmissionRequest& request, const api::ResourceInfo& info,
                                   const nlohmann::json& object, const nlohmann::json* old);

// Whether the rule at `index` covers `request`.
using RuleMatcher = std::function<bool(std::size_t index, const registry::AdmissionRequest& request)>;

// The resource `rules` rules match the request as: &request.info when one covers it; under
// Equivalent, otherwise the first equivalent resource covered, trying the rules in order and
// for each the equivalents in order; null when none.
const api::ResourceInfo* matched_resource(std::size_t rules, const RuleMatcher& matches,
                                          const registry::AdmissionRequest& request, MatchPolicy policy,
                                          EquivalentResources& equivalents);

// A request seen as an equivalent resource, its objects converted to that version. request()
// views this object's members: keep it in place while the request is in use.
class SeenAs {
 public:
  // 500 when a conversion fails (a CRD's conversion webhook).
  static registry::ApiResult<std::unique_ptr<SeenAs>> convert(registry::Registry& registry,
                                                              const registry::AdmissionRequest& request,
                                                              const api::ResourceInfo& as);
  SeenAs(const SeenAs&) = delete;
  SeenAs& operator=(const SeenAs&) = delete;

  const registry::AdmissionRequest& request() const { return m_request; }
  // The converted object, writable (a mutating webhook's patch applies to it).
  nlohmann::json& object() { return m_object; }

 private:
  SeenAs(const registry::AdmissionRequest& request, const api::ResourceInfo& as, nlohmann::json object,
         std::optional<nlohmann::json> old);

  nlohmann::json m_object;
  std::optional<nlohmann::json> m_old;
  registry::AdmissionRequest m_request;
};

// The request as a webhook or policy matched as `as` sees it: itself, or (for an equivalent
// resource) converted into `converted` when that is still empty; `converted` keeps it.
registry::ApiResult<const registry::AdmissionRequest*> as_matched(registry::Registry& registry,
                                                                  const registry::AdmissionRequest& request,
                                                                  const api::ResourceInfo& as,
                                                                  std::unique_ptr<SeenAs>& converted);

}  // namespace kw::admission
