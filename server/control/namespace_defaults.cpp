#include "server/control/namespace_defaults.hpp"

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

constexpr const char* k_default_account = "default";
constexpr const char* k_root_ca_name = "kube-root-ca.crt";
constexpr const char* k_description_key = "kubernetes.io/description";
constexpr const char* k_description =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";

// A create that found the object made already, or its namespace gone or going, has nothing
// left to do.
bool settled(const registry::ApiResult<json>& result) {
  return result || result.error().code == 409 || result.error().code == 404 || result.error().code == 403;
}

}  // namespace

struct NamespaceDefaults::State {
  registry::Registry& registry;
  NamespaceDefaultsOptions options;
  api::ResourceInfo namespaces, accounts, config_maps;
  WorkQueue queue{[this](const std::string& ns) { return sync(ns); }};
  std::vector<std::unique_ptr<registry::Informer>> informers;  // declared last: stopped first

  State(registry::Registry& r, NamespaceDefaultsOptions o, api::ResourceInfo n, api::ResourceInfo a,
        api::ResourceInfo c)
      : registry(r), options(std::move(o)), namespaces(std::move(n)), accounts(std::move(a)), config_maps(std::move(c)) {}

  bool report(const char* what, const std::string& ns, const registry::ApiError& error) const {
    std::cerr << "kw: cannot " << what << " in namespace " << ns << ": " << error.message << "\n";
    return false;
  }

  bool sync(const std::string& ns) {
    auto found = registry.get(namespaces, "", ns, "0");
    if (!found) return found.error().code == 404 || report("read the namespace", ns, found.error());
    const bool active = str(at(*found, {"status", "phase"})) != "Terminating";
    bool ok = true;
    if (options.service_accounts && active) ok = ensure_account(ns) && ok;
    if (!options.root_ca.empty()) ok = ensure_root_ca(ns) && ok;
    return ok;
  }

  bool ensure_account(const std::string& ns) {
    auto found = registry.get(accounts, ns, k_default_account, "0");
    if (found) return true;
    if (found.error().code != 404) return report("read the default ServiceAccount", ns, found.error());
    auto made = registry.create(accounts, ns, {{"metadata", {{"name", k_default_account}}}}, {});
    return settled(made) || report("create the default ServiceAccount", ns, made.error());
  }

  bool ensure_root_ca(const std::string& ns) {
    const json data = {{"ca.crt", options.root_ca}};
    auto found = registry.get(config_maps, ns, k_root_ca_name, "0");
    if (!found) {
      if (found.error().code != 404) return report("read ConfigMap kube-root-ca.crt", ns, found.error());
      json config_map = {{"metadata", {{"name", k_root_ca_name}, {"annotations", {{k_description_key, k_description}}}}},
                         {"data", data}};
      auto made = registry.create(config_maps, ns, std::move(config_map), {});
      return settled(made) || report("create ConfigMap kube-root-ca.crt", ns, made.error());
    }
    if (at(*found, {"data"}) == data && !str(at(*found, {"metadata", "annotations", k_description_key})).empty())
      return true;
    auto updated = registry.update_with(
        config_maps, ns, k_root_ca_name,
        [&](const json& current) -> registry::ApiResult<json> {
          json next = current;
          next["data"] = data;
          next["metadata"]["annotations"][k_description_key] = k_description;
          return next;
        },
        {});
    return updated || updated.error().code == 404 || report("update ConfigMap kube-root-ca.crt", ns, updated.error());
  }
};

NamespaceDefaults::NamespaceDefaults(std::unique_ptr<State> state) : m_state(std::move(state)) {}

NamespaceDefaults::~NamespaceDefaults() { m_state->informers.clear(); }

Result<std::unique_ptr<NamespaceDefaults>> NamespaceDefaults::start(registry::Registry& registry,
                                                                    NamespaceDefaultsOptions options) {
  const auto table = registry.resources();
  const auto* namespaces = table->find_plural("", "v1", "namespaces");
  const auto* accounts = table->find_plural("", "v1", "serviceaccounts");
  const auto* config_maps = table->find_plural("", "v1", "configmaps");
  if (!namespaces || !accounts || !config_maps) return fail("namespaces, serviceaccounts or configmaps are not served");
  auto state = std::make_unique<State>(registry, std::move(options), *namespaces, *accounts, *config_maps);
  State* s = state.get();
  // Every namespace when it appears or changes (it may become active); a namespace again when
  // its default ServiceAccount or its kube-root-ca.crt went or changed.
  auto followed = follow(registry, *namespaces, [s](cache::EventType type, const cache::StoredObject& o) {
    if (type != cache::EventType::deleted) s->queue.add(o.name);
  }, s->informers);
  if (followed && s->options.service_accounts)
    followed = follow(registry, *accounts, [s](cache::EventType type, const cache::StoredObject& o) {
      if (type == cache::EventType::deleted && o.name == k_default_account) s->queue.add(o.namespace_);
    }, s->informers);
  if (followed && !s->options.root_ca.empty())
    followed = follow(registry, *config_maps, [s](cache::EventType type, const cache::StoredObject& o) {
      if (type != cache::EventType::added && o.name == k_root_ca_name) s->queue.add(o.namespace_);
    }, s->informers);
  if (!followed) return std::unexpected(followed.error());
  return std::unique_ptr<NamespaceDefaults>(new NamespaceDefaults(std::move(state)));
}

}  // namespace kw::control
