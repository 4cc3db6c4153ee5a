#pragma once
// The conditions the registry itself writes into an object's status (a bound pod's
// PodScheduled, an evicted pod's DisruptionTarget, a budget's DisruptionAllowed).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::registry {

// The condition of `type` in status.conditions, added when missing, set to `value`;
// lastTransitionTime moves only when the status changes (meta.SetStatusCondition,
// UpdatePodCondition). The caller fills in reason and message.
inline nlohmann::json& set_condition(nlohmann::json& status, std::string_view type, std::string_view value,
                                     const std::string& now) {
  auto& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = nlohmann::json::array();
  nlohmann::json* found = nullptr;
  for (auto& c : conditions)
    if (c.is_object() && c.value("type", "") == type) found = &c;
  if (found == nullptr) found = &conditions.emplace_back(nlohmann::json{{"type", type}});
  if (found->value("status", "") != value) (*found)["lastTransitionTime"] = now;
  (*found)["status"] = value;
  return *found;
}

}  // namespace kw::registry
