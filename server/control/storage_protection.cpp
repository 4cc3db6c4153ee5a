#include "server/control/storage_protection.hpp"

#include <algorithm>
#include <iostream>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/control/work_queue.hpp"
#include "server/control/follow.hpp"

namespace kw::control {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_claim_finalizer = "kubernetes.io/pvc-protection";
constexpr const char* k_volume_finalizer = "kubernetes.io/pv-protection";

bool held_for_deletion(const json& object, const char* finalizer) {
  const json& finalizers = at(object, {"metadata", "finalizers"});
  return !at(object, {"metadata", "deletionTimestamp"}).is_null() && finalizers.is_array() &&
         std::ranges::find(finalizers, json(finalizer)) != finalizers.end();
}

// The claims a pod's volumes use: named ones, and the claim of each ephemeral volume (POD-VOLUME).
std::vector<std::string> claims_of(const json& pod) {
  std::vector<std::string> out;
  if (const json& volumes = at(pod, {"spec", "volumes"}); volumes.is_array())
    for (const auto& volume : volumes) {
      if (const json& claim = at(volume, {"persistentVolumeClaim", "claimName"}); claim.is_string())
        out.push_back(claim.get<std::string>());
      else if (at(volume, {"ephemeral"}).is_object())
        out.push_back(str(at(pod, {"metadata", "name"})) + "-" + str(at(volume, {"name"})));
    }
  return out;
}

bool finished(const json& pod) {
  const std::string phase = str(at(pod, {"status", "phase"}));
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

struct StorageProtection::State {
  registry::Registry& registry;
  StorageProtectionOptions options;
  api::ResourceInfo claims, volumes, pods;
  // Keys: "claim/NAMESPACE/NAME" and "volume/NAME".
  WorkQueue queue{[this](const std::string& key) { return sync(key); }};
  std::vector<std::unique_ptr<registry::Informer>> informers;  // declared last: stopped first

  State(registry::Registry& r, StorageProtectionOptions o, api::ResourceInfo c, api::ResourceInfo v, api::ResourceInfo p)
      : registry(r), options(o), claims(std::move(c)), volumes(std::move(v)), pods(std::move(p)) {}

  bool report(const std::string& what, const registry::ApiError& error) const {
    std::cerr << "kw: cannot " << what << ": " << error.message << "\n";
    return false;
  }

  bool sync(const std::string& key) {
    if (key.starts_with("volume/")) return sync_volume(key.substr(7));
    const auto slash = key.find('/', 6);
    return sync_claim(key.substr(6, slash - 6), key.substr(slash + 1));
  }

  bool release(const api::ResourceInfo& info, const std::string& ns, const std::string& name, const char* finalizer) {
    auto updated = registry.update_with(
        info, ns, name,
        [&](const json& current) -> registry::ApiResult<json> {
          json next = current;
          json& finalizers = next["metadata"]["finalizers"];
          if (finalizers.is_array())
            finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), json(finalizer)), finalizers.end());
          if (finalizers.empty()) next["metadata"].erase("finalizers");
          return next;
        },
        {});
    return updated || updated.error().code == 404 ||
           report("remove " + std::string(finalizer) + " from " + (ns.empty() ? "" : ns + "/") + name, updated.error());
  }

  bool sync_claim(const std::string& ns, const std::string& name) {
    auto claim = registry.get(claims, ns, name, "0");
    if (!claim) return claim.error().code == 404 || report("read claim " + ns + "/" + name, claim.error());
    if (!held_for_deletion(*claim, k_claim_finalizer)) return true;
    auto listed = registry.list(pods, {.namespace_ = ns, .resource_version = "0"});
    if (!listed) return report("list the pods of " + ns, listed.error());
    for (const auto& pod : listed->items) {
      const auto used = claims_of(pod->object());
      if (!finished(pod->object()) && std::ranges::find(used, name) != used.end())
        return true;  // in use: the pod's own change or deletion brings the claim back
    }
    return release(claims, ns, name, k_claim_finalizer);
  }

  bool sync_volume(const std::string& name) {
    auto volume = registry.get(volumes, "", name, "0");
    if (!volume) return volume.error().code == 404 || report("read volume " + name, volume.error());
    if (!held_for_deletion(*volume, k_volume_finalizer) || str(at(*volume, {"status", "phase"})) == "Bound") return true;
    return release(volumes, "", name, k_volume_finalizer);
  }
};

StorageProtection::StorageProtection(std::unique_ptr<State> state) : m_state(std::move(state)) {}

StorageProtection::~StorageProtection() { m_state->informers.clear(); }

Result<std::unique_ptr<StorageProtection>> StorageProtection::start(registry::Registry& registry,
                                                                    StorageProtectionOptions options) {
  const auto table = registry.resources();
  const auto* claims = table->find_plural("", "v1", "persistentvolumeclaims");
  const auto* volumes = table->find_plural("", "v1", "persistentvolumes");
  const auto* pods = table->find_plural("", "v1", "pods");
  if (!claims || !volumes || !pods) return fail("persistentvolumeclaims, persistentvolumes or pods are not served");
  auto state = std::make_unique<State>(registry, options, *claims, *volumes, *pods);
  State* s = state.get();
  Result<void> followed;
  if (options.claims) {
    followed = follow(registry, *claims, [s](cache::EventType type, const cache::StoredObject& o) {
      if (type != cache::EventType::deleted && held_for_deletion(o.object(), k_claim_finalizer))
        s->queue.add("claim/" + o.namespace_ + "/" + o.name);
    }, s->informers);
    // A pod that finishes or goes may free the claims it used.
    if (followed)
      followed = follow(registry, *pods, [s](cache::EventType type, const cache::StoredObject& o) {
        if (type == cache::EventType::added) return;
        for (const auto& claim : claims_of(o.object())) s->queue.add("claim/" + o.namespace_ + "/" + claim);
      }, s->informers);
  }
  if (followed && options.volumes)
    followed = follow(registry, *volumes, [s](cache::EventType type, const cache::StoredObject& o) {
      if (type != cache::EventType::deleted && held_for_deletion(o.object(), k_volume_finalizer))
        s->queue.add("volume/" + o.name);
    }, s->informers);
  if (!followed) return std::unexpected(followed.error());
  return std::unique_ptr<StorageProtection>(new StorageProtection(std::move(state)));
}

}  // namespace kw::control
