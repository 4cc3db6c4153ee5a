// The apps/v1 kinds: rows, printers and strategies.
#include <charconv>
#include <cstdint>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/pod_spec.hpp"

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

// "<kind>.<group>/<name>" of the owner reference marked controller, lower-cased as kubectl
// writes resource names, or "<none>".
std::string controller_of(const json& o) {
  for (const auto& ref : arr(at(o, {"metadata", "ownerReferences"}))) {
    if (at(ref, {"controller"}) != true) continue;
    const std::string api_version = str(at(ref, {"apiVersion"}));
    const std::string kind = str(at(ref, {"kind"}));
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string kind_name = group.empty() ? kind : kind + "." + group;
    if (kind_name.empty()) return str(at(ref, {"name"}));
    return util::to_lower(kind_name) + "/" + str(at(ref, {"name"}));
  }
  return "<none>";
}

Cells print_controller_revision(const json& o, TimePoint now) {
  return {name_of(o), controller_of(o), num(at(o, {"revision"})), age_of(o, now)};
}

// ---- defaults (SetDefaults_* of apps/v1, and the pod template's: SetDefaults_PodSpec and nested)

void default_deployment(json& deployment) {
  auto& spec = object_member(deployment, "spec");
  default_value(spec, "replicas", 1);
  auto& strategy = object_member(spec, "strategy");
  if (str(at(strategy, {"type"})).empty()) strategy["type"] = "RollingUpdate";
  if (strategy["type"] == "RollingUpdate") {
    auto& rolling = object_member(strategy, "rollingUpdate");
    if (at(rolling, {"maxUnavailable"}).is_null()) rolling["maxUnavailable"] = "25%";
    if (at(rolling, {"maxSurge"}).is_null()) rolling["maxSurge"] = "25%";
  }
  default_value(spec, "revisionHistoryLimit", 10);
  default_value(spec, "progressDeadlineSeconds", 600);
}

void default_replica_set(json& replica_set) {
  auto& spec = object_member(replica_set, "spec");
  default_value(spec, "replicas", 1);
}

void default_stateful_set(json& stateful_set) {
  auto& spec = object_member(stateful_set, "spec");
  if (str(at(spec, {"podManagementPolicy"})).empty()) spec["podManagementPolicy"] = "OrderedReady";
  auto& strategy = object_member(spec, "updateStrategy");
  if (str(at(strategy, {"type"})).empty()) {
    strategy["type"] = "RollingUpdate";
    object_member(strategy, "rollingUpdate");  // takes the defaults below
  }
  // An explicit RollingUpdate without parameters keeps rollingUpdate unset, as in Kubernetes.
  if (strategy["type"] == "RollingUpdate" && strategy.contains("rollingUpdate") && strategy["rollingUpdate"].is_object())
    default_value(strategy["rollingUpdate"], "partition", 0);
  auto& retention = object_member(spec, "persistentVolumeClaimRetentionPolicy");
  for (const char* key : {"whenDeleted", "whenScaled"})
    if (str(at(retention, {key})).empty()) retention[key] = "Retain";
  default_value(spec, "replicas", 1);
  default_value(spec, "revisionHistoryLimit", 10);
  if (at(spec, {"volumeClaimTemplates"}).is_array())
    for (auto& claim : spec["volumeClaimTemplates"])
      if (claim.is_object()) default_persistent_volume_claim(claim);
}

void default_daemon_set(json& daemon_set) {
  auto& spec = object_member(daemon_set, "spec");
  auto& strategy = object_member(spec, "updateStrategy");
  if (str(at(strategy, {"type"})).empty()) strategy["type"] = "RollingUpdate";
  if (strategy["type"] == "RollingUpdate") {
    auto& rolling = object_member(strategy, "rollingUpdate");
    if (at(rolling, {"maxUnavailable"}).is_null()) rolling["maxUnavailable"] = 1;
    if (at(rolling, {"maxSurge"}).is_null()) rolling["maxSurge"] = 0;
  }
  default_value(spec, "revisionHistoryLimit", 10);
}

// ---- validation

// ValidateControllerRevision: data is required and revision is not negative.
void validate_controller_revision(const json& revision, Causes& causes) {
  if (at(revision, {"data"}).is_null()) required(causes, "data", "data is mandatory");
  non_negative(causes, "revision", at(revision, {"revision"}));
}

// ValidateControllerRevisionUpdate: the recorded state never changes.
void validate_controller_revision_update(const json& revision, const json& old, Causes& causes) {
  immutable(causes, "data", at(revision, {"data"}), at(old, {"data"}));
}

void validate_workload(const json& object, Causes& causes) {
  validate_selector_and_template(causes, at(object, {"spec"}), "spec");
}

// getIntOrPercentValue: N of "N%", an integer as it is, anything else 0.
std::int64_t int_or_percent_value(const json& value) {
  if (!value.is_string()) return api::print::num(value);
  const std::string text = value.get<std::string>();
  std::int64_t out = 0;
  const char* last = text.data() + text.size() - (text.ends_with('%') ? 1 : 0);
  const auto [end, error] = std::from_chars(text.data(), last, out);
  return error == std::errc() && end == last ? out : 0;
}

// ValidateDeploymentStrategy and ValidateRollingUpdateDeployment.
void validate_deployment_strategy(const json& strategy, Causes& causes) {
  const std::string path = "spec.strategy.rollingUpdate";
  const json& rolling = at(strategy, {"rollingUpdate"});
  const std::string type = str(at(strategy, {"type"}));
  if (type == "Recreate") {
    if (!rolling.is_null()) forbidden(causes, path, "may not be specified when strategy `type` is 'Recreate'");
    return;
  }
  if (type != "RollingUpdate") return;  // the enum's check reports any other type
  if (!rolling.is_object()) {
    required(causes, path, "this should be defaulted and never be nil");
    return;
  }
  const json& max_unavailable = at(rolling, {"maxUnavailable"});
  const json& max_surge = at(rolling, {"maxSurge"});
  validate_int_or_percent(causes, max_unavailable, path + ".maxUnavailable", false);
  validate_int_or_percent(causes, max_surge, path + ".maxSurge", false);
  if (int_or_percent_value(max_unavailable) == 0 && int_or_percent_value(max_surge) == 0)
    invalid_rendered(causes, path + ".maxUnavailable", go_int_or_string(max_unavailable),
                     "may not be 0 when `maxSurge` is 0");
  if (max_unavailable.is_string() && int_or_percent_value(max_unavailable) > 100 && max_unavailable.get<std::string>().ends_with('%'))
    invalid_rendered(causes, path + ".maxUnavailable", go_int_or_string(max_unavailable), "must not be greater than 100%");
}

void validate_deployment(const json& deployment, Causes& causes) {
  validate_workload(deployment, causes);
  validate_deployment_strategy(at(deployment, {"spec", "strategy"}), causes);
}

KindSpec controller_revision_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "ControllerRevision", .plural = "controllerrevisions",
                   .columns = {name_col(), col("Controller", "string", "Controller of the object"),
                               col("Revision", "string", "revision indicates the revision of the state represented by Data."),
                               age_col()},
                   .printer = print_controller_revision},
          .strategy = {.validate = validate_controller_revision,
                       .validate_update = validate_controller_revision_update}};
}

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
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = {"labels"},  // the status strategy keeps spec and labels
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_deployment, .validate = validate_deployment}};
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
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = {},  // the status strategy keeps spec only
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_replica_set, .validate = validate_workload}};
}

KindSpec stateful_set_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "StatefulSet", .plural = "statefulsets",
                   .short_names = {"sts"}, .categories = {"all"}, .subresources = {"status", "scale"},
                   .columns = {name_col(), col("Ready", "string", "Number of the pod with ready state"), age_col(),
                               containers_col(), images_col()},
                   .printer = print_stateful_set},
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = {},  // the status strategy keeps spec only
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_stateful_set, .validate = validate_workload}};
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
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = {},  // the status strategy keeps spec only
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_daemon_set, .validate = validate_workload}};
}

}  // namespace

// In the order kube-apiserver's discovery lists them (by resource name).
std::vector<KindSpec> apps_v1_kinds() {
  return {controller_revision_row(), daemon_set_row(), deployment_row(), replica_set_row(), stateful_set_row()};
}

}  // namespace kw::kinds
