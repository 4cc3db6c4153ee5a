#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "core/api/print_support.hpp"
#include "server/admission/builtin.hpp"
#include "server/admission/lookup.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

// Namespaces kube-apiserver never lets go.
bool immortal(const std::string& name) { return name == "default" || name == "kube-system" || name == "kube-public"; }

// Namespaces deleted a moment ago: until the watch cache has surely seen them go Terminating,
// creates in them look the namespace up in storage (kube's force-live-lookup list).
class RecentlyDeleted {
 public:
  void add(const std::string& name) {
    std::lock_guard lock(m_mutex);
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(m_until, [&](const auto& entry) { return entry.second < now; });
    m_until[name] = now + k_window;
  }
  bool contains(const std::string& name) const {
    std::lock_guard lock(m_mutex);
    const auto found = m_until.find(name);
    return found != m_until.end() && found->second >= std::chrono::steady_clock::now();
  }

 private:
  static constexpr std::chrono::seconds k_window{30};
  mutable std::mutex m_mutex;
  std::map<std::string, std::chrono::steady_clock::time_point> m_until;
};

}  // namespace

registry::AdmissionMutation namespace_lifecycle(registry::Registry& registry) {
  auto recent = std::make_shared<RecentlyDeleted>();
  return [&registry, recent](const registry::AdmissionRequest& r, json&) -> registry::ApiResult<void> {
    const bool namespaces = r.info.group.empty() && r.info.plural == "namespaces";
    if (namespaces) {
      if (r.operation != "DELETE") return {};
      if (immortal(r.name)) return std::unexpected(registry::forbidden("", "namespaces", r.name, "this namespace may not be deleted"));
      recent->add(r.name);
      return {};
    }
    if (!r.info.namespaced || r.namespace_.empty() || r.operation == "DELETE") return {};
    // Access reviews are answered in any namespace: a NotFound would tell which namespaces exist.
    if (r.info.group == "authorization.k8s.io" && r.info.plural == "localsubjectaccessreviews") return {};
    auto found = cached_object(registry, "", "v1", "namespaces", "", r.namespace_);
    if (!found) return std::unexpected(found.error());
    if (*found && r.operation == "CREATE" && recent->contains(r.namespace_) &&
        str(at(**found, {"status", "phase"})) != "Terminating") {
      const auto table = registry.resources();
      if (const auto* info = table->find_plural("", "v1", "namespaces")) {
        auto live = registry.get(*info, "", r.namespace_, "");
        if (!live && live.error().code != 404) return std::unexpected(live.error());
        found = live ? std::optional<json>(std::move(*live)) : std::nullopt;
      }
    }
    if (!*found) return std::unexpected(registry::not_found("", "namespaces", r.namespace_));
    if (r.operation != "CREATE" || str(at(**found, {"status", "phase"})) != "Terminating") return {};
    auto refused = registry::admission_forbidden(r, "unable to create new content in namespace " + r.namespace_ +
                                                        " because it is being terminated");
    refused.details["causes"] = json::array({{{"reason", "NamespaceTerminating"},
                                              {"message", "namespace " + r.namespace_ + " is being terminated"},
                                              {"field", "metadata.namespace"}}});
    return std::unexpected(std::move(refused));
  };
}

}  // namespace kw::admission
