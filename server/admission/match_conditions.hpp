#pragma once
// matchConditions of admission webhooks (and, with params, of ValidatingAdmissionPolicies): CEL
// expressions over the request that must all be true for the webhook to be called. They see
// `object`, `oldObject` (null where the operation has none), `request` (the AdmissionRequest's
// fields, without the objects) and `authorizer`, and share a cost budget of 7,000,000 per
// request (kube's RuntimeCELCostBudgetMatchConditions).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cel/cel.hpp"
#include "server/auth/authorizer.hpp"
#include "server/registry/admission.hpp"

namespace kw::admission {

struct MatchCondition {
  std::string name;
  std::string expression;
  std::optional<cel::Program> program = std::nullopt;  // none when it did not compile
  std::string error = {};                              // "compilation failed: ERROR: ..."
};

// The conditions of a matchConditions list, compiled in `env` (a webhook's:
// kinds::webhook_match_env(); a policy's: kinds::policy_env()).
std::vector<MatchCondition> compile_match_conditions(const nlohmann::json& conditions, const cel::Env& env);

struct MatchResult {
  bool matches = true;
  // Conditions that failed to evaluate while none was false: kube's aggregate of their errors
  // ("expression 'X' resulted in error: Y"); the caller applies its failurePolicy.
  std::string error = {};
};

// kube's matcher: any condition false skips; otherwise any error is the result's error.
// `authorizer` answers the expressions' authorizer checks (see request_activation).
MatchResult evaluate_match_conditions(const std::vector<MatchCondition>& conditions,
                                      const registry::AdmissionRequest& request, const auth::Authorizer* authorizer);
// The same over an activation the caller made (a policy's, with params and variables).
MatchResult evaluate_match_conditions(const std::vector<MatchCondition>& conditions,
                                      const cel::Activation& activation);

// What every admission expression sees of a request: `object`, `oldObject` (null where the
// operation has none), `request` (request_fields) and `authorizer` (cel/authz.hpp: the
// server's authorizer asked about the requester; null: every check is allowed, as kube's
// AlwaysAllow). It views `fields` and the request's objects, which must outlive it.
cel::MapActivation request_activation(const registry::AdmissionRequest& request, const nlohmann::json& fields,
                                      const auth::Authorizer* authorizer);

// An admission request as admission.k8s.io/v1 AdmissionRequest fields, without uid, object and
// oldObject: what webhooks are sent around the objects and what CEL sees as `request`.
nlohmann::json request_fields(const registry::AdmissionRequest& request);

}  // namespace kw::admission
