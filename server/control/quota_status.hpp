#pragma once
// kube-controller-manager's resourcequota controller, done by kw itself: each ResourceQuota's
// status.hard follows its spec.hard and status.used is counted from the namespace's objects
// (quota::Evaluator's rules, the quota's scopes applied). A quota is counted when it is created
// or its spec.hard changes, its namespace again when an object there is deleted (or a pod
// finishes, or a service changes), and every quota once per sync period, which also corrects
// what the ResourceQuota admission plugin charged for writes that then failed.
//
//   auto quotas = control::QuotaStatus::start(registry, {.sync_period = std::chrono::minutes(5)});
#include <chrono>
#include <memory>

#include "core/util/error.hpp"
#include "server/registry/registry.hpp"

namespace kw::control {

struct QuotaStatusOptions {
  // kube-controller-manager's --resource-quota-sync-period.
  std::chrono::milliseconds sync_period = std::chrono::minutes(5);
};

class QuotaStatus {
 public:
  // Follows quotas and the objects they count; the work happens in the background. Destroy
  // before `registry`.
  static Result<std::unique_ptr<QuotaStatus>> start(registry::Registry& registry, QuotaStatusOptions options);
  ~QuotaStatus();
  QuotaStatus(const QuotaStatus&) = delete;
  QuotaStatus& operator=(const QuotaStatus&) = delete;

 private:
  struct State;
  explicit QuotaStatus(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace kw::control
