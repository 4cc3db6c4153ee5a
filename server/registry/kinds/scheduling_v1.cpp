// scheduling.k8s.io/v1: PriorityClass.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

constexpr std::int64_t k_highest_user_priority = 1'000'000'000;

// The classes kube-apiserver creates at start-up; only they may use the "system-" prefix.
struct SystemClass {
  std::string_view name;
  std::int64_t value;
  std::string_view description;
};
constexpr std::array<SystemClass, 2> k_system_classes{
    {{"system-node-critical", 2 * k_highest_user_priority + 1000,
      "Used for system critical pods that must not be moved from their current node."},
     {"system-cluster-critical", 2 * k_highest_user_priority,
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."}}};

Cells print_priority_class(const json& pc, TimePoint now) {
  return {name_of(pc), num(at(pc, {"value"})), at(pc, {"globalDefault"}) == true, age_of(pc, now),
          str(at(pc, {"preemptionPolicy"}))};
}

// SetDefaults_PriorityClass.
void default_priority_class(json& pc) {
  if (!at(pc, {"preemptionPolicy"}).is_string()) pc["preemptionPolicy"] = "PreemptLowerPriority";
}

// PrepareForCreate: a PriorityClass has no spec, but starts at generation 1 all the same.
void prepare_priority_class(json& pc) { object_member(pc, "metadata")["generation"] = 1; }

// IsKnownSystemPriorityClass's verdict on a "system-" name: "" when it is one, as it must be.
std::string system_class_error(const std::string& name, std::int64_t value, bool global_default) {
  for (const auto& known : k_system_classes) {
    if (known.name != name) continue;
    if (known.value != value) return "value of " + name + " PriorityClass must be " + std::to_string(known.value);
    if (global_default) return "globalDefault of " + name + " PriorityClass must be false";
    return "";
  }
  return name + " is not a known system priority class";
}

// ValidatePriorityClass, on create only: an update checks what may not change.
void validate_priority_class(const json& pc, Causes& causes) {
  const std::string name = str(at(pc, {"metadata", "name"}));
  const std::int64_t value = num(at(pc, {"value"}));
  if (name.starts_with("system-")) {
    const bool global_default = at(pc, {"globalDefault"}) == true;
    if (const auto error = system_class_error(name, value, global_default); !error.empty())
      forbidden(causes, "metadata.name",
                "priority class names with 'system-' prefix are reserved for system use only. error: " + error);
  } else if (value > k_highest_user_priority) {
    forbidden(causes, "value",
              "maximum allowed value of a user defined priority is " + std::to_string(k_highest_user_priority));
  }
  const json& policy = at(pc, {"preemptionPolicy"});
  if (policy == "")
    required(causes, "preemptionPolicy");
  else if (policy.is_string() && policy != "PreemptLowerPriority" && policy != "Never")
    unsupported(causes, "preemptionPolicy", policy, {"PreemptLowerPriority", "Never"});
}

// ValidatePriorityClassUpdate: value and preemptionPolicy are fixed at creation.
void validate_priority_class_update(const json& pc, const json& old, Causes& causes) {
  if (num(at(pc, {"value"})) != num(at(old, {"value"}))) forbidden(causes, "value", "may not be changed in an update.");
  immutable(causes, "preemptionPolicy", at(pc, {"preemptionPolicy"}), at(old, {"preemptionPolicy"}));
}

// The system classes, created at start-up when missing.
std::vector<json> system_priority_classes() {
  std::vector<json> out;
  for (const auto& known : k_system_classes)
    out.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                   {"kind", "PriorityClass"},
                   {"metadata", {{"name", known.name}}},
                   {"value", known.value},
                   {"description", known.description}});
  return out;
}

KindSpec priority_class_row() {
  return {.info = {.group = "scheduling.k8s.io",
                   .version = "v1",
                   .kind = "PriorityClass",
                   .plural = "priorityclasses",
                   .short_names = {"pc"},
                   .namespaced = false,
                   .columns = {name_col(),
                               col("Value", "integer",
                                   "value represents the integer value of this priority class. This is the actual "
                                   "priority that pods receive when they have the name of this class in their pod "
                                   "spec."),
                               col("Global-Default", "boolean",
                                   "globalDefault specifies whether this PriorityClass should be considered as the "
                                   "default priority for pods that do not have any priority class. Only one "
                                   "PriorityClass can be marked as `globalDefault`. However, if more than one "
                                   "PriorityClasses exists with their `globalDefault` field set to true, the smallest "
                                   "value of such global default PriorityClasses will be used as the default "
                                   "priority."),
                               age_col(),
                               col("PreemptionPolicy", "string",
                                   "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
                                   "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.")},
                   .printer = print_priority_class},
          .generation = std::vector<std::string>{},
          .strategy = {.defaults = default_priority_class,
                       .prepare_create = prepare_priority_class,
                       .validate_create = validate_priority_class,
                       .validate_update = validate_priority_class_update},
          .bootstrap = system_priority_classes};
}

}  // namespace

std::vector<KindSpec> scheduling_v1_kinds() { return {priority_class_row()}; }

}  // namespace kw::kinds
