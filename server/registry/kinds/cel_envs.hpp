#pragma once
// The CEL environments of admissionregistration.k8s.io's expressions: the variables each may
// use. The kinds' validation compiles them in these, and so do the admission plugins that
// evaluate them.
#include "core/cel/cel.hpp"

namespace kw::kinds {

// A webhook's matchConditions: object, oldObject, request, authorizer.
cel::Env webhook_match_env();
// A ValidatingAdmissionPolicy's expressions: object, oldObject, request, namespaceObject,
// variables, and `params` when the policy has a paramKind; `authorizer` for all but
// messageExpression.
cel::Env policy_env(bool params, bool authorizer);

}  // namespace kw::kinds
