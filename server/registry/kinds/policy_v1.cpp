// policy/v1: PodDisruptionBudget. (Eviction, also in this group version, is served as the
// pods/eviction subresource, not as a resource of its own.)
#include <charconv>
#include <string>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// --- PodDisruptionBudget ---------------------------------------------------------------------

// IntOrString's String(): the number or the text; "N/A" when unset.
std::string int_or_string(const json& value) {
  if (value.is_number()) return std::to_string(num(value));
  if (value.is_string()) return value.get<std::string>();
  return "N/A";
}

Cells print_pdb(const json& pdb, TimePoint now) {
  const json& spec = at(pdb, {"spec"});
  return {name_of(pdb), int_or_string(at(spec, {"minAvailable"})), int_or_string(at(spec, {"maxUnavailable"})),
          num(at(pdb, {"status", "disruptionsAllowed"})), age_of(pdb, now)};
}

// PrepareForCreate: no status from the client (kube-apiserver answers with its zero counters),
// generation 1.
void prepare_pdb(json& pdb) {
  pdb["status"] = {{"disruptionsAllowed", 0}, {"currentHealthy", 0}, {"desiredHealthy", 0}, {"expectedPods", 0}};
  object_member(pdb, "metadata")["generation"] = 1;
}

// ValidatePodDisruptionBudgetStatusUpdate (v1): what the disruption controller may write.
// Kubernetes checks it on status writes; kw's registry runs it with the rest on every write.
void validate_pdb_status(Causes& causes, const json& status) {
  validate_conditions(causes, arr(at(status, {"conditions"})), "status.conditions");
  for (const char* field : {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"})
    non_negative(causes, std::string("status.") + field, at(status, {field}));
}

void validate_pdb(const json& pdb, Causes& causes) {
  const json& spec = at(pdb, {"spec"});
  const json& min_available = at(spec, {"minAvailable"});
  const json& max_unavailable = at(spec, {"maxUnavailable"});
  if (!min_available.is_null() && !max_unavailable.is_null())
    invalid_value(causes, "spec", spec, "minAvailable and maxUnavailable cannot be both set");
  validate_int_or_percent(causes, min_available, "spec.minAvailable", true);
  validate_int_or_percent(causes, max_unavailable, "spec.maxUnavailable", true);
  validate_label_selector(causes, at(spec, {"selector"}), "spec.selector");
  const json& policy = at(spec, {"unhealthyPodEvictionPolicy"});
  if (policy.is_string() && policy != "IfHealthyBudget" && policy != "AlwaysAllow")
    unsupported(causes, "spec.unhealthyPodEvictionPolicy", policy, {"AlwaysAllow", "IfHealthyBudget"});
  validate_pdb_status(causes, at(pdb, {"status"}));
}

KindSpec pdb_row() {
  return {.info = {.group = "policy",
                   .version = "v1",
                   .kind = "PodDisruptionBudget",
                   .plural = "poddisruptionbudgets",
                   .short_names = {"pdb"},
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("Min Available", "string", "The minimum number of pods that must be available."),
                               col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
                               col("Allowed Disruptions", "integer",
                                   "Calculated number of pods that may be disrupted at this time."),
                               age_col()},
                   .printer = print_pdb},
          .generation = std::vector<std::string>{"spec"},
          .strategy = {.prepare_create = prepare_pdb, .validate = validate_pdb}};
}

}  // namespace

std::vector<KindSpec> policy_v1_kinds() { return {pdb_row()}; }

}  // namespace kw::kinds
