#pragma once
// The CEL environments of admissionregistration.k8s.io's expressions: the variables each may
// use. The kinds' validation compiles them in these, and so do the admission plugins that
// evaluate them.
#include "core/cel/cel.hpp"

namespace kw::kinds {

// A webhook's matchConditions: object, oldObject, request, authorizer.
cel::Env webhook_match_env();
// A ValidatingAdmissionPolicy's expressions: those and params, namespaceObject, variables.
cel::Env policy_env();

}  // namespace kw::kinds
