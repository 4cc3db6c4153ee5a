#pragma once
// What kube-controller-manager puts in every namespace, done by kw itself so that pods can be
// created without a controller-manager (the ServiceAccount admission step needs both):
// - the `default` ServiceAccount in every active namespace, made again when deleted
//   (the serviceaccount controller);
// - the ConfigMap kube-root-ca.crt with the CA that verifies the server (`ca.crt`) and its
//   description annotation, made again when deleted and put back when changed
//   (the root-ca-cert-publisher).
// A real controller-manager may run beside it: both make the same objects.
//
//   auto defaults = control::NamespaceDefaults::start(registry, {.service_accounts = true, .root_ca = pem});
#include <memory>
#include <string>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

struct NamespaceDefaultsOptions {
  bool service_accounts = true;  // the `default` ServiceAccount
  std::string root_ca = {};      // PEM of kube-root-ca.crt's ca.crt; "" = no such ConfigMap
};

class NamespaceDefaults {
 public:
  // Follows namespaces, ServiceAccounts and ConfigMaps; the work happens in the background.
  // Destroy before `registry`.
  static Result<std::unique_ptr<NamespaceDefaults>> start(registry::Registry& registry,
                                                          NamespaceDefaultsOptions options);
  ~NamespaceDefaults();
  NamespaceDefaults(const NamespaceDefaults&) = delete;
  NamespaceDefaults& operator=(const NamespaceDefaults&) = delete;

 private:
  struct State;
  explicit NamespaceDefaults(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace kw::control
