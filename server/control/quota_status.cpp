#include "server/control/quota_status.hpp"

#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <thread>

#include "core/api/print_support.hpp"
#include "server/control/follow.hpp"
#include "server/control/work_queue.hpp"
#include "server/quota/evaluator.hpp"

namespace kw::control {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using quota::ResourceList;

// The served version kube's discovery prefers for group/resource (the table's first), or null.
const api::ResourceInfo* served(const api::ResourceTable& table, const std::string& group, const std::string& resource) {
  for (const auto& info : table.all())
    if (info.group == group && info.plural == resource) return &info;
  return nullptr;
}

// Whether a change to a counted object can lower its usage while it stays (deletions always do).
bool may_release(const std::string& group, const std::string& resource, const json& object) {
  if (!group.empty()) return false;
  if (resource == "pods") {
    const std::string phase = str(at(object, {"status", "phase"}));
    return phase == "Succeeded" || phase == "Failed" || !at(object, {"metadata", "deletionTimestamp"}).is_null();
  }
  return resource == "services";  // its type (node ports, load balancers) may have changed
}

// A quota whose status does not yet show its spec.hard, or counts nothing.
bool unsynced(const json& q) {
  const json& hard = at(q, {"status", "hard"});
  return !hard.is_object() || !at(q, {"status", "used"}).is_object() ||
         !quota::equals(quota::resource_list(hard), quota::resource_list(at(q, {"spec", "hard"})));
}

}  // namespace

struct QuotaStatus::State {
  registry::Registry& registry;
  QuotaStatusOptions options;
  api::ResourceInfo quotas_info;

  std::mutex mutex;  // guards the four below
  bool stopping = false;
  std::map<std::string, std::set<std::string>> quotas;  // namespace -> names of its quotas
  std::set<std::string> followed;                        // "group/resource"
  std::vector<std::unique_ptr<registry::Informer>> informers;

  std::optional<WorkQueue> queue;  // keys: namespaces
  std::condition_variable_any resync_wake;
  std::jthread resync;  // stopped first

  State(registry::Registry& r, QuotaStatusOptions o, api::ResourceInfo q)
      : registry(r), options(o), quotas_info(std::move(q)) {}

  void enqueue(const std::string& ns) {
    std::lock_guard lock(mutex);
    if (!stopping && quotas.contains(ns)) queue->add(ns);
  }

  void on_quota(cache::EventType type, const cache::StoredObject& o) {
    std::lock_guard lock(mutex);
    if (stopping) return;
    if (type == cache::EventType::deleted) {
      auto found = quotas.find(o.namespace_);
      if (found != quotas.end() && found->second.erase(o.name) && found->second.empty()) quotas.erase(found);
      return;
    }
    const bool known = quotas[o.namespace_].insert(o.name).second == false;
    // A new quota is counted; a known one when its spec.hard changed (its status then lags).
    if (!known || unsynced(o.object())) queue->add(o.namespace_);
  }

  // Follows deletions (and releasing changes) of a counted resource, once.
  void follow_resource(const std::string& group, const std::string& resource) {
    {
      std::lock_guard lock(mutex);
      if (stopping || !followed.insert(group + "/" + resource).second) return;
    }
    const auto table = registry.resources();
    const auto* info = served(*table, group, resource);
    if (info == nullptr) {
      std::lock_guard lock(mutex);
      followed.erase(group + "/" + resource);  // served later (a CRD): tried again at the next sync
      return;
    }
    std::vector<std::unique_ptr<registry::Informer>> started;
    auto followed_ok = follow(registry, *info, [this, group, resource](cache::EventType type, const cache::StoredObject& o) {
      if (type == cache::EventType::deleted || (type == cache::EventType::modified && may_release(group, resource, o.object())))
        enqueue(o.namespace_);
    }, started);
    if (!followed_ok) {
      std::cerr << "kw: quota controller: " << followed_ok.error().message << "\n";
      std::lock_guard lock(mutex);
      followed.erase(group + "/" + resource);
      return;
    }
    std::lock_guard lock(mutex);
    for (auto& informer : started) informers.push_back(std::move(informer));
  }

  // CalculateUsage: what the namespace's objects use of `hard`, in the quota's scopes.
  registry::ApiResult<ResourceList> count(const std::string& ns, const json& q, const std::vector<std::string>& hard) {
    const auto evaluators = quota::evaluators_for(hard);
    std::set<std::string> matched;
    for (const auto& e : evaluators)
      for (auto& name : e.matching_resources(hard)) matched.insert(std::move(name));
    const auto selectors = quota::scope_selectors(q);
    const auto now = std::chrono::system_clock::now();
    const auto table = registry.resources();
    ResourceList usage;
    for (const auto& e : evaluators) {
      follow_resource(e.group(), e.resource());
      const auto* info = served(*table, e.group(), e.resource());
      if (info == nullptr) continue;
      ResourceList stats;
      for (const auto& name : e.matching_resources({matched.begin(), matched.end()})) stats[name] = api::GoQuantity{};
      auto listed = registry.list(*info, {.namespace_ = ns, .resource_version = "0"});
      if (!listed) return std::unexpected(listed.error());
      for (const auto& object : listed->items) {
        bool in_scopes = true;
        for (const auto& selector : selectors) {
          auto in = e.in_scope(selector, object->object());
          in_scopes = in_scopes && in && *in;
        }
        if (in_scopes) stats = quota::add(stats, e.usage(object->object(), now));
      }
      usage = quota::add(usage, stats);
    }
    return quota::mask(usage, matched);
  }

  bool sync(const std::string& ns) {
    auto listed = registry.list(quotas_info, {.namespace_ = ns, .resource_version = "0"});
    if (!listed) return report("list the quotas of " + ns, listed.error());
    bool ok = true;
    for (const auto& stored : listed->items) {
      const json& q = stored->object();
      const ResourceList hard = quota::resource_list(at(q, {"spec", "hard"}));
      const ResourceList used_before = quota::resource_list(at(q, {"status", "used"}));
      const auto hard_names = quota::names(hard);
      auto counted = count(ns, q, hard_names);
      if (!counted) {
        ok = report("count the usage of quota " + ns + "/" + stored->name, counted.error());
        continue;
      }
      // Usage of what no evaluator counts is kept as it was; only the hard names are shown.
      ResourceList used = used_before;
      for (auto& [name, value] : *counted) used[name] = std::move(value);
      used = quota::mask(used, quota::name_set(hard));
      if (!unsynced(q) && quota::equals(used, used_before)) continue;
      json next = q;
      next["status"] = {{"hard", quota::to_json(hard)}, {"used", quota::to_json(used)}};
      auto written = registry.update(quotas_info, ns, stored->name, std::move(next),
                                     {.subresource = "status", .field_manager = "kube-controller-manager"});
      if (!written && written.error().code != 404) {
        if (written.error().code != 409) report("update the status of quota " + ns + "/" + stored->name, written.error());
        ok = false;  // tried again after the retry delay
      }
    }
    return ok;
  }

  bool report(const std::string& what, const registry::ApiError& error) const {
    std::cerr << "kw: quota controller: cannot " << what << ": " << error.message << "\n";
    return false;
  }

  void resync_loop(std::stop_token stop) {
    std::mutex wait_mutex;
    std::unique_lock wait_lock(wait_mutex);
    while (!stop.stop_requested()) {
      resync_wake.wait_for(wait_lock, stop, options.sync_period, [] { return false; });
      if (stop.stop_requested()) break;
      std::lock_guard lock(mutex);
      for (const auto& [ns, names] : quotas) queue->add(ns);
    }
  }
};

QuotaStatus::QuotaStatus(std::unique_ptr<State> state) : m_state(std::move(state)) {}

QuotaStatus::~QuotaStatus() {
  m_state->resync.request_stop();
  if (m_state->resync.joinable()) m_state->resync.join();
  {
    std::lock_guard lock(m_state->mutex);
    m_state->stopping = true;
  }
  m_state->queue.reset();  // no sync runs after this
  std::vector<std::unique_ptr<registry::Informer>> informers;
  {
    std::lock_guard lock(m_state->mutex);
    informers.swap(m_state->informers);
  }
  informers.clear();  // outside the lock: a handler may be waiting for it
}

Result<std::unique_ptr<QuotaStatus>> QuotaStatus::start(registry::Registry& registry, QuotaStatusOptions options) {
  const auto table = registry.resources();
  const auto* quotas = table->find_plural("", "v1", "resourcequotas");
  if (quotas == nullptr) return fail("resourcequotas are not served");
  auto state = std::make_unique<State>(registry, options, *quotas);
  State* s = state.get();
  s->queue.emplace([s](const std::string& ns) { return s->sync(ns); });
  std::vector<std::unique_ptr<registry::Informer>> started;
  auto followed = follow(registry, *quotas, [s](cache::EventType type, const cache::StoredObject& o) {
    s->on_quota(type, o);
  }, started);
  if (!followed) return std::unexpected(followed.error());
  {
    std::lock_guard lock(s->mutex);
    for (auto& informer : started) s->informers.push_back(std::move(informer));
  }
  s->resync = std::jthread([s](std::stop_token stop) { s->resync_loop(stop); });
  return std::unique_ptr<QuotaStatus>(new QuotaStatus(std::move(state)));
}

}  // namespace kw::control
