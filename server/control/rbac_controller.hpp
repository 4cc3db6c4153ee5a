#pragma once
// The work on RBAC objects that kube-apiserver and kube-controller-manager do themselves:
// - Kubernetes' bootstrap roles and bindings (rbac_bootstrap.json) reconciled at start-up:
//   created when missing; where `rbac.authorization.kubernetes.io/autoupdate` is not "false",
//   missing labels, annotations, rules, aggregation selectors and subjects added, and a
//   binding whose roleRef changed made again;
// - Roles, ClusterRoles and their bindings followed from the watch caches into the
//   RbacPolicy the RBAC authorizer reads;
// - ClusterRoles with an aggregationRule kept at the union of the rules of the ClusterRoles
//   their selectors pick (kube-controller-manager's clusterrole-aggregation controller), so
//   admin, edit and view work without a controller-manager;
// - escalation prevention on writes of roles and bindings (rbac_escalation_check).
//
//   auto policy = std::make_shared<auth::RbacPolicy>();
//   auto rbac = control::RbacController::start(registry, policy);   // before serving
//   registry.add_admission_check(control::rbac_escalation_check(policy, authorizer));
#include <memory>

#include "core/util/error.hpp"
#include "server/auth/authorizer.hpp"
#include "server/auth/rbac.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

class RbacController {
 public:
  // Reconciles the bootstrap policy, then follows the four kinds; `policy` is complete when
  // this returns. `aggregate`: keep aggregated ClusterRoles current (off when a
  // controller-manager does it). Stops (and no longer writes) when destroyed; destroy before
  // `registry`.
  static Result<std::unique_ptr<RbacController>> start(registry::Registry& registry,
                                                       std::shared_ptr<auth::RbacPolicy> policy,
                                                       bool aggregate = true);
  ~RbacController();
  RbacController(const RbacController&) = delete;
  RbacController& operator=(const RbacController&) = delete;

 private:
  struct State;
  explicit RbacController(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

// The rules of a ClusterRole of the bootstrap policy (none for an unknown name): what the Node
// authorizer allows a kubelet beyond its graph is the system:node ClusterRole's.
std::vector<auth::PolicyRule> bootstrap_cluster_role_rules(const std::string& name);

// Kubernetes' refusal to let a user grant, through a Role, ClusterRole or binding, more than
// the user holds: allowed for system:masters, for users the authorizer allows to `escalate`
// roles or to `bind` the role referred to, and for changes to owner references and
// finalizers only; else 403 naming the rules the user lacks.
registry::AdmissionCheck rbac_escalation_check(std::shared_ptr<const auth::RbacPolicy> policy,
                                               const auth::Authorizer& authorizer);

}  // namespace kw::control
