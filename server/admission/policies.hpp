#pragma once
// The ValidatingAdmissionPolicy plugin: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
// and their bindings, followed through their watch caches (a change applies at once), evaluated
// in CEL on every request a bound policy matches, as kube-apiserver's validating policy plugin
// does:
//
// - A policy counts only through its bindings. It applies when its matchConstraints select the
//   request (namespaceSelector, objectSelector, resourceRules with resourceNames,
//   excludeResourceRules) and a binding's matchResources narrow it no further; then its
//   matchConditions must all be true.
// - Each matchPolicy Equivalent (the API's default) lets rules naming another version of the
//   request's resource match it (equivalents.hpp); the expressions then see the request as the
//   version matchConstraints matched, its objects converted there.
// - With a paramKind, each binding's paramRef names the params (by name or label selector, in
//   the paramRef's namespace or the request's); the validations run once per param object.
//   None found: the binding is skipped (parameterNotFoundAction Allow) or refuses (Deny).
// - Expressions see object, oldObject, request, params, namespaceObject, variables (each
//   computed once, on first use) and authorizer, within kube's budget of 10,000,000 per
//   evaluation.
// - A false validation is a failure with the validation's message (messageExpression first,
//   then message, then "failed expression: EXPR") and reason (Invalid by default). The
//   binding's validationActions decide what it does: Deny refuses the request
//   ("ValidatingAdmissionPolicy 'P' with binding 'B' denied request: MSG", with the reason's
//   code), Warn adds a Warning header, Audit an audit annotation.
// - An expression that fails, a missing param kind or a broken selector is the policy's
//   failurePolicy's: Fail refuses, Ignore lets the request through.
// - auditAnnotations add "POLICY/KEY" annotations to the audit event.
//
//   auto policies = admission::Policies::start(registry, authorizer);
//   registry.add_admission_check((*policies)->check());
#include <memory>

#include "core/util/error.hpp"
#include "server/auth/authorizer.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/registry.hpp"

namespace kw::admission {

class Policies {
 public:
  // Follows policies and bindings from now on; the registry must be started. Destroy it before
  // the registry goes. `authorizer` (may be null: all allowed) answers the expressions'
  // authorizer checks and must outlive this.
  static Result<std::unique_ptr<Policies>> start(registry::Registry& registry, const auth::Authorizer* authorizer);
  ~Policies();
  Policies(const Policies&) = delete;
  Policies& operator=(const Policies&) = delete;

  // May outlive this object (the registry keeps it); it then sees the last policies.
  registry::AdmissionCheck check() const;

  struct State;  // the compiled policies, shared with the check

 private:
  explicit Policies(std::shared_ptr<State> state) : m_state(std::move(state)) {}

  std::shared_ptr<State> m_state;
  std::vector<std::unique_ptr<registry::Informer>> m_informers;
};

}  // namespace kw::admission
