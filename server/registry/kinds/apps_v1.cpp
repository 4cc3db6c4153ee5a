// The apps/v1 kinds: rows, printers and strategies.
#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

std::int64_t replicas_of(const json& o) {
  const json& r = at(o, {"spec", "replicas"});
  return r.is_number() ? num(r) : 1;  // defaulted to 1 by the API server
}

Cells print_deployment(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o),
          std::to_string(num(at(o, {"status", "readyReplicas"}))) + "/" + std::to_string(replicas_of(o)),
          num(at(o, {"status", "updatedReplicas"})), num(at(o, {"status", "availableReplicas"})), age_of(o, now),
          names, images, selector_string(at(o, {"spec", "selector"}))};
}

Cells print_replica_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o), replicas_of(o), num(at(o, {"status", "replicas"})), num(at(o, {"status", "readyReplicas"})),
          age_of(o, now), names, images, selector_string(at(o, {"spec", "selector"}))};
}

Cells print_stateful_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  return {name_of(o), std::to_string(num(at(o, {"status", "readyReplicas"}))) + "/" + std::to_string(replicas_of(o)),
          age_of(o, now), names, images};
}

Cells print_daemon_set(const json& o, TimePoint now) {
  auto [names, images] = container_cells(at(o, {"spec", "template", "spec", "containers"}));
  const json& s = at(o, {"status"});
  return {name_of(o), num(at(s, {"desiredNumberScheduled"})), num(at(s, {"currentNumberScheduled"})),
          num(at(s, {"numberReady"})), num(at(s, {"updatedNumberScheduled"})), num(at(s, {"numberAvailable"})),
          format_labels(at(o, {"spec", "template", "spec", "nodeSelector"})), age_of(o, now), names, images,
          selector_string(at(o, {"spec", "selector"}))};
}

void validate_workload(const json& object, Causes& causes) {
  validate_selector_and_template(causes, at(object, {"spec"}), "spec");
}

const Strategy k_workload_strategy{.validate = validate_workload};

KindSpec deployment_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "Deployment", .plural = "deployments",
                   .short_names = {"deploy"}, .categories = {"all"}, .subresources = {"status", "scale"},
                   .columns = {name_col(), col("Ready", "string", "Number of the pod with ready state"),
                               col("Up-to-date", "string",
                                   "Total number of non-terminated pods targeted by this deployment that have the "
                                   "desired template spec."),
                               col("Available", "string",
                                   "Total number of available pods (ready for at least minReadySeconds) targeted by "
                                   "this deployment."),
                               age_col(), containers_col(), images_col(),
                               col("Selector", "string",
                                   "Label selector for pods. Existing ReplicaSets whose pods are selected by this "
                                   "will be the ones affected by this deployment.",
                                   1)},
                   .printer = print_deployment},
          .strategy = k_workload_strategy};
}

KindSpec replica_set_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "ReplicaSet", .plural = "replicasets",
                   .short_names = {"rs"}, .categories = {"all"}, .subresources = {"status", "scale"},
                   .columns = {name_col(), col("Desired", "integer", "Replicas is the number of desired replicas."),
                               col("Current", "integer", "Replicas is the most recently observed number of replicas."),
                               col("Ready", "integer", "The number of ready replicas for this replica set."),
                               age_col(), containers_col(), images_col(),
                               col("Selector", "string",
                                   "Selector is a label query over pods that should match the replica count.", 1)},
                   .printer = print_replica_set},
          .fields = {{"status.replicas", {"status", "replicas"}, ""}},
          .strategy = k_workload_strategy};
}

KindSpec stateful_set_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "StatefulSet", .plural = "statefulsets",
                   .short_names = {"sts"}, .categories = {"all"}, .subresources = {"status", "scale"},
                   .columns = {name_col(), col("Ready", "string", "Number of the pod with ready state"), age_col(),
                               containers_col(), images_col()},
                   .printer = print_stateful_set},
          .strategy = k_workload_strategy};
}

KindSpec daemon_set_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "DaemonSet", .plural = "daemonsets",
                   .short_names = {"ds"}, .categories = {"all"}, .subresources = {"status"},
                   .columns = {name_col(),
                               col("Desired", "integer",
                                   "The total number of nodes that should be running the daemon pod (including nodes "
                                   "correctly running the daemon pod)."),
                               col("Current", "integer",
                                   "The number of nodes that are running at least 1 daemon pod and are supposed to "
                                   "run the daemon pod."),
                               col("Ready", "integer",
                                   "The number of nodes that should be running the daemon pod and have one or more of "
                                   "the daemon pod running and ready."),
                               col("Up-to-date", "integer",
                                   "The total number of nodes that are running updated daemon pod"),
                               col("Available", "integer",
                                   "The number of nodes that should be running the daemon pod and have one or more of "
                                   "the daemon pod running and available (ready for at least spec.minReadySeconds)"),
                               col("Node Selector", "string",
                                   "NodeSelector is a selector which must be true for the pod to fit on a node."),
                               age_col(), containers_col(), images_col(),
                               col("Selector", "string", "A label query over pods that are managed by the daemon set.",
                                   1)},
                   .printer = print_daemon_set},
          .strategy = k_workload_strategy};
}

}  // namespace

std::vector<KindSpec> apps_v1_kinds() {
  return {deployment_row(), replica_set_row(), stateful_set_row(), daemon_set_row()};
}

}  // namespace kw::kinds
