// ValidatePodUpdate: what an update may change in a pod's spec. A pod is immutable but for its
// containers' images, a shorter activeDeadlineSeconds, added tolerations, removed scheduling
// gates (and, while gated, added node selector terms) and one terminationGracePeriodSeconds
// repair; every other change to the spec is refused as one Forbidden cause at "spec".
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/api/json_access.hpp"
#include "core/api/quantity.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using nlohmann::json;

constexpr const char* k_spec_forbidden =
    "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
    "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

// ValidateContainerUpdates: the same number of containers, each with an image that has no
// surrounding spaces. False when the count differs (nothing else is checked then).
bool validate_container_updates(Causes& causes, const json& now, const json& before, const std::string& path) {
  if (api::arr(now).size() != api::arr(before).size()) {
    forbidden(causes, path, "pod updates may not add or remove containers");
    return false;
  }
  std::size_t i = 0;
  for (const auto& container : api::arr(now)) {
    const std::string image = api::str(api::at(container, {"image"}));
    const std::string field = index_path(path, i++) + ".image";
    if (image.empty()) required(causes, field);
    if (has_surrounding_space(image))
      invalid_value(causes, field, image, "must not have leading or trailing whitespace");
  }
  return true;
}

// validateOnlyAddedTolerations: each existing toleration is still there, but for its
// tolerationSeconds.
bool only_added_tolerations(Causes& causes, const json& now, const json& before) {
  for (const auto& old : api::arr(before)) {
    bool found = false;
    for (const auto& toleration : api::arr(now)) {
      json clone = old;
      clone.erase("tolerationSeconds");
      json other = toleration;
      other.erase("tolerationSeconds");
      if (semantic_equal(clone, other)) {
        found = true;
        break;
      }
    }
    if (!found) {
      forbidden(causes, "spec.tolerations", "existing toleration can not be modified except its tolerationSeconds");
      return false;
    }
  }
  return true;
}

// validateOnlyDeletedSchedulingGates: no gate the pod did not have.
void only_deleted_scheduling_gates(Causes& causes, const json& now, const json& before) {
  std::map<std::string, bool> had;
  for (const auto& gate : api::arr(before)) had[api::str(api::at(gate, {"name"}))] = true;
  std::size_t i = 0;
  for (const auto& gate : api::arr(now)) {
    const std::string name = api::str(api::at(gate, {"name"}));
    if (!had.contains(name))
      forbidden(causes, index_path("spec.schedulingGates", i) + ".name",
                "only deletion is allowed, but found new scheduling gate '" + name + "'");
    ++i;
  }
}

// The members of `spec` that differ from `old` (for the refusal's detail).
std::string changed_fields(const json& spec, const json& old) {
  std::string out;
  auto note = [&](const std::string& key) { out += "\n  spec." + key + ": changed"; };
  for (const auto& [key, value] : spec.items())
    if (!semantic_equal(value, api::at(old, {key}))) note(key);
  for (const auto& [key, value] : old.items())
    if (!spec.contains(key) && !empty_value(value)) note(key);
  return out;
}

}  // namespace

void validate_pod_update(const json& pod, const json& old, Causes& causes) {
  // (the annotations are checked again here, as Kubernetes does; its message says a repeated
  // cause once)
  validate_pod_annotation_updates(causes, pod, old);
  const json& spec = api::at(pod, {"spec"});
  const json& before = api::at(old, {"spec"});
  if (!spec.is_object() || !before.is_object()) return;  // validate_pod reports a missing spec
  if (!validate_container_updates(causes, api::at(spec, {"containers"}), api::at(before, {"containers"}),
                                  "spec.containers"))
    return;
  if (!validate_container_updates(causes, api::at(spec, {"initContainers"}), api::at(before, {"initContainers"}),
                                  "spec.initContainers"))
    return;

  // activeDeadlineSeconds: set from none, or made shorter; never unset.
  const json& deadline = api::at(spec, {"activeDeadlineSeconds"});
  const json& old_deadline = api::at(before, {"activeDeadlineSeconds"});
  if (deadline.is_number_integer()) {
    const auto value = deadline.get<std::int64_t>();
    if (value < 0 || value > std::numeric_limits<std::int32_t>::max()) {
      invalid_value(causes, "spec.activeDeadlineSeconds", deadline, "must be between 0 and 2147483647, inclusive");
      return;
    }
    if (old_deadline.is_number_integer() && old_deadline.get<std::int64_t>() < value) {
      invalid_value(causes, "spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value");
      return;
    }
  } else if (!old_deadline.is_null()) {
    invalid_value(causes, "spec.activeDeadlineSeconds", json(nullptr), "must not update from a positive integer to nil value");
  }

  only_added_tolerations(causes, api::at(spec, {"tolerations"}), api::at(before, {"tolerations"}));
  only_deleted_scheduling_gates(causes, api::at(spec, {"schedulingGates"}), api::at(before, {"schedulingGates"}));
  if (semantic_equal(spec, before)) return;

  // What may change is set back to its old value; anything still different is refused.
  json munged = spec;
  for (const char* list : {"containers", "initContainers"}) {
    const json& old_list = api::arr(api::at(before, {list}));
    if (!munged.contains(list) || !munged[list].is_array()) continue;
    for (std::size_t i = 0; i < munged[list].size() && i < old_list.size(); ++i)
      if (munged[list][i].is_object()) munged[list][i]["image"] = api::at(old_list[i], {"image"});
  }
  auto restore = [&](const char* key) {
    if (before.contains(key)) munged[key] = before[key];
    else munged.erase(key);
  };
  for (const char* key : {"activeDeadlineSeconds", "tolerations", "schedulingGates"}) restore(key);
  // A negative grace period (once allowed) may be repaired to 1.
  const json& grace = api::at(before, {"terminationGracePeriodSeconds"});
  if (grace.is_number_integer() && grace.get<std::int64_t>() < 0 && api::at(munged, {"terminationGracePeriodSeconds"}) == 1)
    restore("terminationGracePeriodSeconds");
  // A pod still gated may narrow where it runs: node selector terms added, node affinity set.
  if (!api::arr(api::at(before, {"schedulingGates"})).empty()) {
    const json& selector = api::at(munged, {"nodeSelector"});
    bool kept = true;
    for (const auto& [key, value] : api::at(before, {"nodeSelector"}).items())
      kept = kept && api::at(selector, {key}) == value;
    if (kept) restore("nodeSelector");
    if (munged.contains("affinity") && munged["affinity"].is_object()) {
      const json& old_affinity = api::at(before, {"affinity", "nodeAffinity"});
      if (old_affinity.is_null()) munged["affinity"].erase("nodeAffinity");
      else munged["affinity"]["nodeAffinity"] = old_affinity;
    }
  }
  if (!semantic_equal(munged, before))
    forbidden(causes, "spec", std::string(k_spec_forbidden) + changed_fields(munged, before));
}

}  // namespace kw::kinds
