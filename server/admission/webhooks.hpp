#pragma once
// The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: the webhooks of the
// stored Mutating- and ValidatingWebhookConfigurations (followed through their watch caches, so
// a change applies at once), called with an admission.k8s.io AdmissionReview (v1, or v1beta1
// when that is all a webhook accepts) for every request their rules, namespaceSelector and
// objectSelector select.
//
// - matchPolicy Equivalent (the API's default): a webhook whose rules name another version of
//   the request's resource (equivalents.hpp) is called with the objects converted to it; a
//   mutating webhook's patch applies there and the result is converted back.
// - Mutating webhooks run one after another, in the order of their configurations' names and
//   their place there; each gets the object as the ones before left it, and a JSONPatch answer
//   changes it (decoded again with the kind's defaults). When a webhook changed the object,
//   those before it with reinvocationPolicy IfNeeded are called once more.
// - Validating webhooks run side by side; the first refusal (in their order) answers.
// - A refusal is the webhook's Status: `admission webhook "NAME" denied the request: WHY`.
// - A webhook that cannot be called, or answers something that is not a valid AdmissionReview,
//   fails the request with 500 (failurePolicy Fail) or is skipped (Ignore, with an audit
//   annotation saying so).
// - Dry runs reach only webhooks whose sideEffects are None or NoneOnDryRun (400 otherwise).
// - Warnings become the response's Warning headers; auditAnnotations are added to the audit
//   event as WEBHOOK/KEY.
//
//   auto webhooks = admission::Webhooks::start(registry, authorizer);
//   registry.add_admission_mutation((*webhooks)->mutation());
//   registry.add_admission_check((*webhooks)->check());
#include <memory>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/authorizer.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

class Webhooks {
 public:
  // Follows both configuration kinds from now on; the registry must be started. Stop it (destroy
  // it) before the registry goes. `authorizer` (may be null: all allowed) answers the
  // authorizer checks of matchConditions and must outlive this.
  static Result<std::unique_ptr<Webhooks>> start(registry::Registry& registry, const auth::Authorizer* authorizer);
  ~Webhooks();
  Webhooks(const Webhooks&) = delete;
  Webhooks& operator=(const Webhooks&) = delete;

  // May outlive this object (the registry keeps them); they then see the last configurations.
  registry::AdmissionMutation mutation() const;
  registry::AdmissionCheck check() const;

  struct State;  // the configurations, shared with the plugins

 private:
  explicit Webhooks(std::shared_ptr<State> state) : m_state(std::move(state)) {}

  std::shared_ptr<State> m_state;
  std::vector<std::unique_ptr<registry::Informer>> m_informers;
};

}  // namespace kw::admission
