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
#include "server/registry/admission.hpp"

namespace kw::admission {

struct MatchCondition {
  std::string name;
  std::string expression;
  std::optional<cel::Program> program = std::nullopt;  // none when it did not compile
  std::string error = {};                              // "compilation failed: ERROR: ..."
};

// The conditions of a matchConditions list, compiled in kinds::webhook_match_env().
std::vector<MatchCondition> compile_match_conditions(const nlohmann::json& conditions);

struct MatchResult {
  bool matches = true;
  // Conditions that failed to evaluate while none was false: kube's aggregate of their errors
  // ("expression 'X' resulted in error: Y"); the caller applies its failurePolicy.
  std::string error = {};
};

// kube's matcher: any condition false skips; otherwise any error is the result's error.
MatchResult evaluate_match_conditions(const std::vector<MatchCondition>& conditions,
                                      const registry::AdmissionRequest& request);

// An admission request as admission.k8s.io/v1 AdmissionRequest fields, without uid, object and
// oldObject: what webhooks are sent around the objects and what CEL sees as `request`.
nlohmann::json request_fields(const registry::AdmissionRequest& request);

}  // namespace kw::admission
