// What a new pod's PrepareForCreate changes besides its status and AppArmor fields: the
// condition that says scheduling gates hold it, and the label keys its pod affinity terms take
// from the pod's own labels.
#include <string>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using api::arr;
using api::at;
using api::str;
using nlohmann::json;

// applyLabelKeysToLabelSelector: for each key the pod has a label for, a requirement
// `key <operator> (value)` joins the selector's matchExpressions.
void apply_label_keys(json& selector, const json& keys, const char* op, const json& labels) {
  for (const json& key : arr(keys)) {
    const std::string name = str(key);
    if (!labels.is_object() || !labels.contains(name)) continue;
    if (!at(selector, {"matchExpressions"}).is_array()) selector["matchExpressions"] = json::array();
    selector["matchExpressions"].push_back({{"key", name}, {"operator", op}, {"values", {labels[name]}}});
  }
}

// applyMatchLabelKeysAndMismatchLabelKeys, for one term. A term without a selector selects
// nothing and is left so.
void apply_term_label_keys(json& term, const json& labels) {
  if (!term.is_object() || !at(term, {"labelSelector"}).is_object()) return;
  if (arr(at(term, {"matchLabelKeys"})).empty() && arr(at(term, {"mismatchLabelKeys"})).empty()) return;
  apply_label_keys(term["labelSelector"], at(term, {"matchLabelKeys"}), "In", labels);
  apply_label_keys(term["labelSelector"], at(term, {"mismatchLabelKeys"}), "NotIn", labels);
}

}  // namespace

void mutate_pod_affinity(json& pod) {
  if (!at(pod, {"spec", "affinity"}).is_object()) return;
  const json labels = at(pod, {"metadata", "labels"});
  json& affinity = pod["spec"]["affinity"];
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    if (!at(affinity, {kind}).is_object()) continue;
    json& terms = affinity[kind];
    if (at(terms, {"preferredDuringSchedulingIgnoredDuringExecution"}).is_array())
      for (json& weighted : terms["preferredDuringSchedulingIgnoredDuringExecution"])
        if (at(weighted, {"podAffinityTerm"}).is_object()) apply_term_label_keys(weighted["podAffinityTerm"], labels);
    if (at(terms, {"requiredDuringSchedulingIgnoredDuringExecution"}).is_array())
      for (json& term : terms["requiredDuringSchedulingIgnoredDuringExecution"]) apply_term_label_keys(term, labels);
  }
}

void apply_scheduling_gated_condition(json& pod, const std::string& now) {
  if (arr(at(pod, {"spec", "schedulingGates"})).empty()) return;
  json& status = object_member(pod, "status");
  for (const json& condition : arr(at(status, {"conditions"})))
    if (str(at(condition, {"type"})) == "PodScheduled") return;
  if (!status["conditions"].is_array()) status["conditions"] = json::array();
  status["conditions"].push_back({{"type", "PodScheduled"},
                                  {"status", "False"},
                                  {"lastProbeTime", nullptr},
                                  {"lastTransitionTime", now},
                                  {"reason", "SchedulingGated"},
                                  {"message", "Scheduling is blocked due to non-empty scheduling gates"}});
}

}  // namespace kw::kinds
