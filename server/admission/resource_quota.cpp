// ResourceQuota: a create (or an update that grows a service's or claim's usage) in a namespace
// with quotas is refused when it would take a quota's usage over its hard limit, and is
// otherwise charged to the quotas' status.used before it is stored, as kube-apiserver charges it.
// kw's quota controller (control::QuotaStatus) recounts usage from the objects themselves.
#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

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

class ResourceQuotaPlugin {
 public:
  explicit ResourceQuotaPlugin(registry::Registry& registry)
      : m_registry(registry), m_locks(std::make_shared<NamespaceLocks>()) {}

  registry::ApiResult<void> operator()(const registry::AdmissionRequest& request) const {
    if (!request.subresource.empty() || request.namespace_.empty() || !request.object.is_object()) return {};
    const auto evaluator = quota::Evaluator::of(request.info.group, request.info.plural);
    if (!evaluator.handles(request.operation)) return {};
    auto listed = cached(m_registry, "", "v1", "resourcequotas", request.namespace_);
    if (!listed) return std::unexpected(listed.error());
    const auto limits_it = [&](const cache::ObjectPtr& stored) {
      const auto named = [&](const char* part) { return quota::names(quota::resource_list(at(stored->object, {part, "hard"}))); };
      return !evaluator.matching_resources(named("spec")).empty() || !evaluator.matching_resources(named("status")).empty();
    };
    if (std::ranges::none_of(*listed, limits_it)) return {};
    std::lock_guard serial((*m_locks)[std::hash<std::string>{}(request.namespace_) % k_namespace_locks]);
    // A quota limits what the object uses: its latest status, not the cache's of a moment ago (a
    // dry run, which writes nothing, would otherwise be judged on usage another request raised).
    const auto table = m_registry.resources();
    const auto* info = table->find_plural("", "v1", "resourcequotas");
    if (info == nullptr) return {};
    auto current = m_registry.list(*info, {.namespace_ = request.namespace_});
    if (!current) return std::unexpected(current.error());
    std::vector<json> quotas;
    for (const auto& stored : current->items) quotas.push_back(stored->object);

    // CheckRequest: which quotas cover the object, whether they can tell its usage, its delta.
    std::vector<std::size_t> covering;
    for (std::size_t i = 0; i < quotas.size(); ++i) {
      const json& q = quotas[i];
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
    }
    const auto now = std::chrono::system_clock::now();
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
};

}  // namespace

registry::AdmissionCheck resource_quota(registry::Registry& registry) { return ResourceQuotaPlugin(registry); }

}  // namespace kw::admission
