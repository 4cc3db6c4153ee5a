// pods/{name}/eviction: a pod deletion that respects the PodDisruptionBudget covering the pod,
// as kube-apiserver's eviction subresource does (pkg/registry/core/pod/storage/eviction.go):
// pods that are not running go at once; a running pod needs its budget to allow one more
// disruption, which the eviction takes (status.disruptionsAllowed and disruptedPods).
#include <algorithm>

#include "core/api/selector.hpp"
#include "server/registry/conditions.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {
namespace {

using nlohmann::json;

const char* const k_budget_message = "Cannot evict pod as it would violate the pod's disruption budget.";

ApiError too_many_requests(const std::string& cause, int retry_after) {
  json details = {{"causes", json::array({{{"reason", "DisruptionBudget"}, {"message", cause}}})}};
  if (retry_after > 0) details["retryAfterSeconds"] = retry_after;
  return ApiError{429, "TooManyRequests", k_budget_message, std::move(details)};
}

bool pod_ready(const json& pod) {
  const auto conditions = pod.value("status", json::object()).value("conditions", json::array());
  return std::any_of(conditions.begin(), conditions.end(), [](const json& c) {
    return c.is_object() && c.value("type", "") == "Ready" && c.value("status", "") == "True";
  });
}

const json& status_field(const json& object, const char* field) {
  static const json null;
  const auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return null;
  const auto found = status->find(field);
  return found == status->end() ? null : *found;
}

std::int64_t status_number(const json& object, const char* field) {
  const auto& value = status_field(object, field);
  return value.is_number_integer() ? value.get<std::int64_t>() : 0;
}

}  // namespace

ApiResult<json> Registry::evict(const std::string& ns, const std::string& name, const json& eviction,
                                const WriteOptions& options) {
  const auto* pods = resources()->find_plural("", "v1", "pods");
  const auto* budgets = resources()->find_plural("policy", "v1", "poddisruptionbudgets");
  if (pods == nullptr) return std::unexpected(bad_request("pods are not served"));
  if (!eviction.is_object() || eviction.value("metadata", json::object()).value("name", std::string()) != name)
    return std::unexpected(bad_request("name in URL does not match name in Eviction object"));
  json admitted = eviction;
  admitted["kind"] = "Eviction";
  if (!admitted.contains("apiVersion")) admitted["apiVersion"] = "policy/v1";
  WriteOptions eviction_write = options;
  eviction_write.subresource = "eviction";
  if (auto checked = admit_create(*pods, ns, name, admitted, eviction_write); !checked)
    return std::unexpected(checked.error());
  json delete_options = admitted.value("deleteOptions", json::object());
  if (!delete_options.is_object()) delete_options = json::object();
  const auto body_dry_run = delete_options.value("dryRun", json::array());
  const bool dry_run = options.dry_run || (body_dry_run.is_array() && !body_dry_run.empty());
  // The pod's writes are the eviction's own, admitted above (kube's eviction store writes the
  // pod without admission).
  WriteOptions write = options;
  write.dry_run = dry_run;
  write.admitted = true;
  const json success = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                        {"status", "Success"}, {"code", 201}};

  auto pod = get(*pods, ns, name, "");
  if (!pod) return std::unexpected(pod.error());
  const auto phase = status_field(*pod, "phase");
  const bool being_deleted = pod->value("metadata", json::object()).contains("deletionTimestamp");
  // Pods that are not running (or are going already) do not count against a budget.
  if (phase == "Succeeded" || phase == "Failed" || phase == "Pending" || being_deleted) {
    auto removed = remove(*pods, ns, name, delete_options, write);
    if (!removed) return std::unexpected(removed.error());
    return success;
  }

  // The budgets whose selector takes the pod: none lets it go, more than one is refused.
  std::vector<json> covering;
  if (budgets != nullptr) {
    ListRequest request;
    request.namespace_ = ns;
    auto listed = list(*budgets, request);
    if (!listed) return std::unexpected(listed.error());
    const auto labels = api::labels_of(*pod);
    for (const auto& item : listed->items) {
      const auto& budget = item->object();
      const auto selector = budget.value("spec", json::object()).value("selector", json());
      if (!selector.is_object()) continue;  // no selector selects nothing
      auto parsed = api::LabelSelector::from_label_selector_json(selector);
      if (parsed && parsed->matches(labels)) covering.push_back(budget);
    }
  }
  if (covering.size() > 1)
    return std::unexpected(ApiError{
        500, "", "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", {}});

  if (covering.size() == 1) {
    const auto budget_name = covering[0]["metadata"].value("name", std::string());
    const auto& policy = covering[0].value("spec", json::object()).value("unhealthyPodEvictionPolicy", json());
    const bool unready_goes = !pod_ready(*pod) && (policy == "AlwaysAllow" ||
                                               (status_number(covering[0], "currentHealthy") >=
                                                    status_number(covering[0], "desiredHealthy") &&
                                                status_number(covering[0], "desiredHealthy") > 0));
    if (!unready_goes) {
      // Take one disruption from the budget (re-read on conflicts).
      // (the budget's status is written as through the API, admission included)
      WriteOptions status_write = write;
      status_write.subresource = "status";
      status_write.admitted = false;
      auto taken = update_with(
          *budgets, ns, budget_name,
          [&](const json& now) -> ApiResult<json> {
            const auto generation = now.value("metadata", json::object()).value("generation", std::int64_t{0});
            if (status_number(now, "observedGeneration") < generation)
              return std::unexpected(
                  too_many_requests("The disruption budget " + budget_name + " is still being processed by the server.", 10));
            const auto allowed = status_number(now, "disruptionsAllowed");
            if (allowed < 0)
              return std::unexpected(ApiError{403, "Forbidden",
                                              "poddisruptionbudget.policy \"" + budget_name +
                                                  "\" is forbidden: pdb disruptions allowed is negative",
                                              {{"name", budget_name}, {"group", "policy"}, {"kind", "poddisruptionbudget"}}});
            if (allowed == 0)
              return std::unexpected(too_many_requests(
                  "The disruption budget " + budget_name + " needs " +
                      std::to_string(status_number(now, "desiredHealthy")) + " healthy pods and has " +
                      std::to_string(status_number(now, "currentHealthy")) + " currently",
                  0));
            json out = now;
            auto& status = out["status"];
            status["disruptionsAllowed"] = allowed - 1;
            if (!status["disruptedPods"].is_object()) status["disruptedPods"] = json::object();
            status["disruptedPods"][name] = now_rfc3339();
            if (allowed - 1 == 0) {
              // UpdateDisruptionAllowedCondition: no more disruptions for now.
              auto& condition = set_condition(status, "DisruptionAllowed", "False", now_rfc3339());
              condition["reason"] = "InsufficientPods";
              condition["message"] = "";
              condition["observedGeneration"] = status.value("observedGeneration", std::int64_t{0});
            }
            return out;
          },
          status_write);
      if (!taken) return std::unexpected(taken.error());
    }
  }

  if (!dry_run) {
    // The pod learns why it goes: a DisruptionTarget condition, then the deletion.
    WriteOptions status_write = write;
    status_write.subresource = "status";
    auto marked = update_with(
        *pods, ns, name,
        [&](const json& now) -> ApiResult<json> {
          json out = now;
          auto& condition = set_condition(out["status"], "DisruptionTarget", "True", now_rfc3339());
          condition["lastProbeTime"] = nullptr;
          condition["reason"] = "EvictionByEvictionAPI";
          condition["message"] = "Eviction API: evicting";
          return out;
        },
        status_write);
    if (!marked) return std::unexpected(marked.error());
    // A resourceVersion precondition now names the marked pod.
    auto& preconditions = delete_options["preconditions"];
    if (preconditions.is_object() && preconditions.contains("resourceVersion"))
      preconditions["resourceVersion"] = (*marked)["metadata"]["resourceVersion"];
    else if (!preconditions.is_object()) delete_options.erase("preconditions");
  }
  auto removed = remove(*pods, ns, name, delete_options, write);
  if (!removed) return std::unexpected(removed.error());
  return success;
}

}  // namespace kw::registry
