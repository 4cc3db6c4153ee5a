#pragma once
// The APIServices kube-apiserver keeps for what it serves itself (its aggregator's autoregister
// and crdregistration controllers, and the availability of local APIServices):
// - each built-in group version kw serves has an APIService VERSION.GROUP ("v1." for the core
//   group) without a service, labelled kube-aggregator.kubernetes.io/automanaged=onstart, with
//   kube's priorities (kinds/api_priorities.hpp); written at start, when onstart ones kw no
//   longer serves go too;
// - each version a CustomResourceDefinition serves has one labelled automanaged=true
//   (groupPriorityMinimum 1000, versionPriority 100), kept while some CRD serves it;
// - every APIService without a service is Available, reason Local.
// `kubectl get apiservices` then lists what it lists against kube-apiserver.
//
//   auto local = control::LocalApiServices::start(registry);
#include <memory>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

class LocalApiServices {
 public:
  // Registers the built-in group versions now, then follows CRDs and APIServices in the
  // background. Destroy before `registry`.
  static Result<std::unique_ptr<LocalApiServices>> start(registry::Registry& registry);
  ~LocalApiServices();
  LocalApiServices(const LocalApiServices&) = delete;
  LocalApiServices& operator=(const LocalApiServices&) = delete;

 private:
  struct State;
  explicit LocalApiServices(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace kw::control
