#pragma once
// kube-apiserver's admission plugins by name (--enable-admission-plugins and
// --disable-admission-plugins), and the ones kw has, registered on the registry in kube's order.
//
//   auto chain = admission::install(registry, {.enable = {...}, .disable = {"ServiceAccount"}});
#include <memory>
#include <string>
#include <vector>

#include "core/util/error.hpp"
#include "server/admission/configuration.hpp"
#include "server/admission/pod_scheduling.hpp"
#include "server/admission/policies.hpp"
#include "server/admission/webhooks.hpp"
#include "server/auth/authorizer.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

struct PluginSelection {
  std::vector<std::string> enable = {};   // on in addition to kube's default set
  std::vector<std::string> disable = {};  // off, even when in the default set
  TolerationSeconds toleration_seconds = {};  // DefaultTolerationSeconds' settings
  // What the certificate plugins ask whether a requester may approve or sign for a signer, and
  // what admission expressions' authorizer checks ask; outlives the registry's plugins. Null:
  // the two certificate plugins do not run, and every authorizer check is allowed.
  const auth::Authorizer* authorizer = nullptr;
  // The plugins' configurations from --admission-control-config-file (configuration.hpp).
  PluginConfigurations configurations = {};
};

// What install() registered and what was asked for that kw does not have yet. Keep it while the
// registry serves, and let it go before the registry.
struct Installed {
  std::vector<std::string> enabled;
  std::vector<std::string> unavailable;
  // The follower of the webhook configurations (the webhook plugins); null when both are off.
  std::unique_ptr<Webhooks> webhooks = {};
  // The follower of the admission policies and their bindings; null when that plugin is off.
  std::unique_ptr<Policies> policies = {};
  std::string failure = {};  // why a plugin could not start (install() then fails)
};

// Fails for a name kube-apiserver does not know (or named both on and off), and when a plugin
// cannot start (the registry must be started before).
Result<Installed> install(registry::Registry& registry, const PluginSelection& selection);

}  // namespace kw::admission
