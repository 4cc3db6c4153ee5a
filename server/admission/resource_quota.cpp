// ResourceQuota: a create (or an update that grows a service's or claim's usage) in a namespace
// with quotas is refused when it would take a quota's usage over its hard limit, and is
// otherwise charged to the quotas' status.used before it is stored, as kube-apiserver charges it.
// The configuration's limitedResources refuse what no quota covers: usage whose name contains
// a matchContains, and pods in a matchScopes scope.
// kw's quota controller (control::QuotaStatus) recounts usage from the objects themselves.
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>

#include "core/api/print_support.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"
#include "server/quota/evaluator.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using quota::ResourceList;

// Attempts at charging one quota whose status changed under us (kube-apiserver's 3 retries).
constexpr int k_charge_attempts = 4;
// kube-apiserver evaluates one namespace's quota requests at a time; so does kw, through one of
// these locks per namespace (by hash). Requests of one server then never conflict with each
// other over a quota's status, only with the quota controller's writes.
constexpr std::size_t k_namespace_locks = 64;
using NamespaceLocks = std::array<std::mutex, k_namespace_locks>;


// One quota's share of a request: the usage it is charged, or why it refuses it.
registry::ApiResult<ResourceList> charge(const registry::AdmissionRequest& request, const json& quota_object,
                                         const ResourceList& delta) {
  const ResourceList hard = quota::resource_list(at(quota_object, {"status", "hard"}));
  const ResourceList used = quota::resource_list(at(quota_object, {"status", "used"}));
  const ResourceList requested = quota::mask(delta, quota::name_set(hard));
  const ResourceList next = quota::add(used, requested);
  const auto over = quota::exceeded(quota::mask(next, quota::name_set(requested)), hard);
  if (!over.empty())
    return std::unexpected(registry::admission_forbidden(
        request, "exceeded quota: " + str(at(quota_object, {"metadata", "name"})) +
                     ", requested: " + quota::pretty_print(quota::mask(requested, over)) +
                     ", used: " + quota::pretty_print(quota::mask(used, over)) +
                     ", limited: " + quota::pretty_print(quota::mask(hard, over))));
  return next;
}

// One of a ResourceQuotaConfiguration's limitedResources: usage of RESOURCE whose names contain
// one of `contains`, and pods in one of the `scopes`, need a quota that covers them.
struct LimitedResource {
  std::string group, resource;
  std::vector<std::string> contains;
  std::vector<json> scopes;  // ScopedResourceSelectorRequirements
};

Result<std::vector<LimitedResource>> limited_resources(const json& configuration) {
  std::vector<LimitedResource> out;
  if (configuration.is_null()) return out;
  const std::string kind = str(at(configuration, {"kind"}));
  const std::string api_version = str(at(configuration, {"apiVersion"}));
  if (kind != "ResourceQuotaConfiguration" ||
      (api_version != "apiserver.config.k8s.io/v1" && api_version != "resourcequota.admission.k8s.io/v1" &&
       api_version != "resourcequota.admission.k8s.io/v1beta1" && api_version != "resourcequota.admission.k8s.io/v1alpha1"))
    return fail("the ResourceQuota plugin's configuration must be an apiserver.config.k8s.io/v1 ResourceQuotaConfiguration, not " +
                api_version + " " + kind);
  const json& entries = at(configuration, {"limitedResources"});
  if (!entries.is_null() && !entries.is_array()) return fail("ResourceQuotaConfiguration limitedResources must be a list");
  for (const auto& entry : api::arr(entries)) {
    LimitedResource limited;
    limited.group = str(at(entry, {"apiGroup"}));
    limited.resource = str(at(entry, {"resource"}));
    if (limited.resource.empty()) return fail("ResourceQuotaConfiguration limitedResources: every entry names a resource");
    for (const auto& text : api::arr(at(entry, {"matchContains"})))
      if (text.is_string()) limited.contains.push_back(text.get<std::string>());
    for (const auto& scope : api::arr(at(entry, {"matchScopes"})))
      limited.scopes.push_back(scope);
    out.push_back(std::move(limited));
  }
  return out;
}

// Go's %v of []ScopedResourceSelectorRequirement: "[{PriorityClass In [a b]}]".
std::string go_scopes(const std::vector<json>& scopes) {
  std::string out = "[";
  for (std::size_t i = 0; i < scopes.size(); ++i) {
    std::string values;
    for (const auto& value : api::arr(at(scopes[i], {"values"})))
      values += (values.empty() ? "" : " ") + (value.is_string() ? value.get<std::string>() : value.dump());
    out += (i == 0 ? "{" : " {") + str(at(scopes[i], {"scopeName"})) + " " + str(at(scopes[i], {"operator"})) + " [" +
           values + "]}";
  }
  return out + "]";
}

class ResourceQuotaPlugin {
 public:
  ResourceQuotaPlugin(registry::Registry& registry, std::vector<LimitedResource> limited)
      : m_registry(registry), m_locks(std::make_shared<NamespaceLocks>()),
        m_limited(std::make_shared<const std::vector<LimitedResource>>(std::move(limited))) {}

  registry::ApiResult<void> operator()(const registry::AdmissionRequest& request) const {
    if (!request.subresource.empty() || request.namespace_.empty() || !request.object.is_object()) return {};
    const auto evaluator = quota::Evaluator::of(request.info.group, request.info.plural);
    if (!evaluator.handles(request.operation)) return {};
    const auto now = std::chrono::system_clock::now();
    // What the configuration's limitedResources ask a covering quota for: the usage names that
    // contain one of their matchContains (of this resource), and the scopes the object is in.
    std::set<std::string> limited_names;
    std::vector<json> limited_scopes;
    for (const auto& limited : *m_limited) {
      for (const auto& scope : limited.scopes) {
        auto in = evaluator.in_scope(scope, request.object);
        if (in && *in) limited_scopes.push_back(scope);
      }
      if (limited.group != request.info.group || limited.resource != request.info.plural || limited.contains.empty()) continue;
      for (const auto& [resource, value] : evaluator.usage(request.object, now))
        if (!value.negative && !value.zero() &&
            std::ranges::any_of(limited.contains, [&](const std::string& part) { return resource.find(part) != std::string::npos; }))
          limited_names.insert(resource);
    }
    auto listed = cached(m_registry, "", "v1", "resourcequotas", request.namespace_);
    if (!listed) return std::unexpected(listed.error());
    const auto limits_it = [&](const cache::ObjectPtr& stored) {
      const auto named = [&](const char* part) { return quota::names(quota::resource_list(at(stored->object(), {part, "hard"}))); };
      return !evaluator.matching_resources(named("spec")).empty() || !evaluator.matching_resources(named("status")).empty();
    };
    if (limited_names.empty() && limited_scopes.empty() && std::ranges::none_of(*listed, limits_it)) return {};
    std::lock_guard serial((*m_locks)[std::hash<std::string>{}(request.namespace_) % k_namespace_locks]);
    // A quota limits what the object uses: its latest status, not the cache's of a moment ago (a
    // dry run, which writes nothing, would otherwise be judged on usage another request raised).
    const auto table = m_registry.resources();
    const auto* info = table->find_plural("", "v1", "resourcequotas");
    if (info == nullptr) return {};
    auto current = m_registry.list(*info, {.namespace_ = request.namespace_});
    if (!current) return std::unexpected(current.error());
    std::vector<json> quotas;
    for (const auto& stored : current->items) quotas.push_back(stored->object());

    // CheckRequest: which quotas cover the object, whether they can tell its usage, its delta.
    std::vector<std::size_t> covering;
    std::set<std::string> covered_names;   // the resources the covering quotas limit
    std::set<std::string> covered_scopes;  // the scopes of any quota the object is in
    for (std::size_t i = 0; i < quotas.size(); ++i) {
      const json& q = quotas[i];
      for (const auto& scope : quota::scope_selectors(q)) {
        auto in = evaluator.in_scope(scope, request.object);
        if (!in)
          return std::unexpected(registry::admission_forbidden(
              request, "error matching scopes of quota " + str(at(q, {"metadata", "name"})) + ", err: " + in.error().message));
        if (*in) covered_scopes.insert(str(at(scope, {"scopeName"})));
      }
      auto match = evaluator.matches(q, request.object);
      if (!match) return std::unexpected(internal_forbidden(request, match.error().message));
      if (!*match) continue;
      const std::string name = str(at(q, {"metadata", "name"}));
      const auto restricted = evaluator.matching_resources(quota::names(quota::resource_list(at(q, {"status", "hard"}))));
      if (auto why = evaluator.constraints(restricted, request.object); !why.empty())
        return std::unexpected(registry::admission_forbidden(request, "failed quota: " + name + ": " + why));
      const json& used = at(q, {"status", "used"});
      for (const auto& resource : restricted)
        if (!used.is_object() || !used.contains(resource))
          return std::unexpected(registry::admission_forbidden(
              request, "status unknown for quota: " + name + ", resources: " +
                           quota::pretty_print_names({restricted.begin(), restricted.end()})));
      covering.push_back(i);
      covered_names.insert(restricted.begin(), restricted.end());
    }
    std::vector<std::string> uncovered;
    std::ranges::set_difference(limited_names, covered_names, std::back_inserter(uncovered));
    if (!uncovered.empty()) {
      std::string names;
      for (const auto& name : uncovered) names += (names.empty() ? "" : ",") + name;
      return std::unexpected(registry::admission_forbidden(request, "insufficient quota to consume: " + names));
    }
    std::vector<json> uncovered_scopes;
    for (const auto& scope : limited_scopes)
      if (!covered_scopes.contains(str(at(scope, {"scopeName"})))) uncovered_scopes.push_back(scope);
    if (!uncovered_scopes.empty())  // a plain error in kube's plugin: 500 without a reason
      return std::unexpected(
          registry::ApiError{500, "", "insufficient quota to match these scopes: " + go_scopes(uncovered_scopes), {}});
    ResourceList delta = evaluator.usage(request.object, now);
    std::set<std::string> negative;
    for (const auto& [resource, value] : delta)
      if (value.negative) negative.insert(resource);
    if (!negative.empty())
      return std::unexpected(
          registry::admission_forbidden(request, "quota usage is negative for resource(s): " + quota::pretty_print_names(negative)));
    if (request.operation == "UPDATE" && request.old != nullptr &&
        !str(at(*request.old, {"metadata", "resourceVersion"})).empty())
      delta = quota::subtract_non_negative(delta, evaluator.usage(*request.old, now));
    delta = quota::remove_zeros(delta);
    if (delta.empty() || covering.empty()) return {};

    // Every covering quota must admit the request before any is charged.
    std::vector<std::pair<std::size_t, ResourceList>> charges;
    for (const auto i : covering) {
      auto next = charge(request, quotas[i], delta);
      if (!next) return std::unexpected(next.error());
      if (!quota::equals(*next, quota::resource_list(at(quotas[i], {"status", "used"})))) charges.emplace_back(i, *next);
    }
    if (request.dry_run) return {};
    for (auto& [i, next] : charges)
      if (auto charged = write(request, *info, quotas[i], std::move(next), delta); !charged) return charged;
    return {};
  }

 private:
  // Writes the quota's new usage; when the quota changed meanwhile (another request charged it),
  // charges the delta again to what it holds now.
  registry::ApiResult<void> write(const registry::AdmissionRequest& request, const api::ResourceInfo& info,
                                  json quota_object, ResourceList next, const ResourceList& delta) const {
    const std::string name = str(at(quota_object, {"metadata", "name"}));
    registry::ApiError last{};
    for (int attempt = 0; attempt < k_charge_attempts; ++attempt) {
      quota_object["status"]["used"] = quota::to_json(next);
      auto written = m_registry.update(info, request.namespace_, name, quota_object,
                                       {.subresource = "status", .field_manager = "kube-apiserver"});
      if (written) return {};
      last = written.error();
      if (last.code != 409) break;
      auto current = m_registry.get(info, request.namespace_, name, "");
      if (!current) {
        if (current.error().code == 404) return {};  // the quota went: nothing to charge
        last = current.error();
        break;
      }
      quota_object = std::move(*current);
      auto recharged = charge(request, quota_object, delta);
      if (!recharged) return std::unexpected(recharged.error());
      next = std::move(*recharged);
    }
    return std::unexpected(last);
  }

  registry::Registry& m_registry;
  std::shared_ptr<NamespaceLocks> m_locks;  // shared by the copies std::function makes
  std::shared_ptr<const std::vector<LimitedResource>> m_limited;
};

}  // namespace

Result<registry::AdmissionCheck> resource_quota(registry::Registry& registry, const nlohmann::json& configuration) {
  auto limited = limited_resources(configuration);
  if (!limited) return std::unexpected(limited.error());
  return ResourceQuotaPlugin(registry, std::move(*limited));
}

}  // namespace kw::admission
