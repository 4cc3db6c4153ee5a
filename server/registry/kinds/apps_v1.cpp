// The apps/v1 kinds: rows, printers and strategies.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/pod_spec.hpp"
#include "server/registry/kinds/pod_warnings.hpp"

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

// validateControllerRevision: the revision is not negative.
void validate_controller_revision(const json& revision, Causes& causes) {
  non_negative(causes, "revision", at(revision, {"revision"}));
}

// ValidateControllerRevisionCreate: the revision, then data that is a JSON object.
void validate_controller_revision_create(const json& revision, Causes& causes) {
  validate_controller_revision(revision, causes);
  const json& data = at(revision, {"data"});
  if (data.is_null()) required(causes, "data", "data is mandatory");
  else if (!data.is_object()) required(causes, "data", "data must be a valid JSON object");
}

// ValidateControllerRevisionUpdate: the recorded state never changes.
void validate_controller_revision_update(const json& revision, const json& old, Causes& causes) {
  immutable(causes, "data", at(revision, {"data"}), at(old, {"data"}));
}

// "empty selector is invalid for <owner>" (with the selector as %#v prints it) for a selector
// without requirements.
void selector_not_empty(Causes& causes, const json& selector, std::string_view owner) {
  if (size_of(at(selector, {"matchLabels"})) == 0 && arr(at(selector, {"matchExpressions"})).empty())
    invalid_rendered(causes, "spec.selector", go_label_selector(selector),
                     "empty selector is invalid for " + std::string(owner));
}

// A selector that ValidateDeploymentSpec, ValidateReplicaSetSpec and ValidateStatefulSetSpec
// require: set, valid, and with at least one requirement.
void required_selector(Causes& causes, const json& selector, std::string_view owner) {
  if (selector.is_null()) return required(causes, "spec.selector");
  validate_label_selector(causes, selector, "spec.selector");
  selector_not_empty(causes, selector, owner);
}

// ValidateDeploymentSpec's and ValidateReplicaSetSpec's selector and template
// (ValidatePodTemplateSpecForReplicaSet): a selector LabelSelectorAsSelector cannot read is
// "invalid label selector", and the template goes unchecked then. `old_spec` is the stored
// object's spec on update (null on create).
void validate_replicated_template(Causes& causes, const json& spec, const json* old_spec) {
  const json& selector = at(spec, {"selector"});
  const auto parsed = workload_selector(selector);
  if (!parsed) return invalid_rendered(causes, "spec.selector", go_label_selector(selector), "invalid label selector");
  const json& pod_template = at(spec, {"template"});
  if (!parsed->empty()) selector_matches_template(causes, *parsed, pod_template, "spec.template");
  validate_pod_template(causes, pod_template, "spec.template", old_spec ? &at(*old_spec, {"template"}) : nullptr);
  always_restarting(causes, at(pod_template, {"spec"}), "spec.template.spec", "ReplicaSet");
}

// Go's %#v of a strategy struct with a type and a RollingUpdate pointer, as NotSupported and
// Invalid print an unknown strategy. A set pointer prints as an address in Go, which is
// never the same twice; a fixed one stands in for it.
std::string go_strategy(const json& strategy, std::string_view type_name, std::string_view rolling_type) {
  const bool rolling = !at(strategy, {"rollingUpdate"}).is_null();
  return "apps." + std::string(type_name) + "{Type:" + go_quoted(at(strategy, {"type"})) + ", RollingUpdate:(*apps." +
         std::string(rolling_type) + ")(" + (rolling ? "0xc000010000" : "nil") + ")}";
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
  if (type != "RollingUpdate")
    return unsupported_rendered(causes, "spec.strategy", go_strategy(strategy, "DeploymentStrategy", "RollingUpdateDeployment"),
                                {"Recreate", "RollingUpdate"});
  if (!rolling.is_object()) return required(causes, path, "this should be defaulted and never be nil");
  const json& max_unavailable = at(rolling, {"maxUnavailable"});
  const json& max_surge = at(rolling, {"maxSurge"});
  validate_int_or_percent(causes, max_unavailable, path + ".maxUnavailable", false);
  validate_int_or_percent(causes, max_surge, path + ".maxSurge", false);
  if (int_or_percent_value(max_unavailable) == 0 && int_or_percent_value(max_surge) == 0)
    invalid_rendered(causes, path + ".maxUnavailable", go_int_or_string(max_unavailable),
                     "may not be 0 when `maxSurge` is 0");
  not_over_100_percent(causes, max_unavailable, path + ".maxUnavailable");
}

// ValidateDeploymentSpec; `old` is the stored Deployment of an update (null on create).
void validate_deployment(const json& deployment, const json* old, Causes& causes) {
  const json& spec = at(deployment, {"spec"});
  non_negative(causes, "spec.replicas", at(spec, {"replicas"}));
  required_selector(causes, at(spec, {"selector"}), "deployment");
  validate_replicated_template(causes, spec, old ? &at(*old, {"spec"}) : nullptr);
  validate_deployment_strategy(at(spec, {"strategy"}), causes);
  non_negative(causes, "spec.minReadySeconds", at(spec, {"minReadySeconds"}));
  non_negative(causes, "spec.revisionHistoryLimit", at(spec, {"revisionHistoryLimit"}));
  const json& deadline = at(spec, {"progressDeadlineSeconds"});
  if (deadline.is_number()) {
    non_negative(causes, "spec.progressDeadlineSeconds", deadline);
    if (num(deadline) <= num(at(spec, {"minReadySeconds"})))
      invalid_value(causes, "spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds");
  }
}

// ValidateReplicaSetSpec; `old` as validate_deployment takes it.
void validate_replica_set(const json& replica_set, const json* old, Causes& causes) {
  const json& spec = at(replica_set, {"spec"});
  non_negative(causes, "spec.replicas", at(spec, {"replicas"}));
  non_negative(causes, "spec.minReadySeconds", at(spec, {"minReadySeconds"}));
  required_selector(causes, at(spec, {"selector"}), "deployment");  // (sic: kube's wording for ReplicaSets too)
  validate_replicated_template(causes, spec, old ? &at(*old, {"spec"}) : nullptr);
}

// The selector of Deployments, ReplicaSets and DaemonSets never changes after create (the
// apps/v1 strategies' ValidateUpdate).
void validate_selector_update(const json& object, const json& old, Causes& causes) {
  const json& selector = at(object, {"spec", "selector"});
  if (!semantic_equal(selector, at(old, {"spec", "selector"})))
    invalid_rendered(causes, "spec.selector", go_label_selector(selector), "field is immutable");
}

// A Deployment's, ReplicaSet's or DaemonSet's checks as an update makes them: with the stored
// object, whose pod template may keep what it already breaks, and its selector unchanged.
template <void (*Check)(const json&, const json*, Causes&)>
void validate_changed(const json& object, const json& old, Causes& causes) {
  Check(object, &old, causes);
  validate_selector_update(object, old, causes);
}

// ValidateStatefulSetSpec: policies and strategy, counts, the service name (a DNS label, on
// create only: older sets keep theirs), the selector, and of the template only its selector
// match, labels and annotations (kube leaves a StatefulSet's pod spec unchecked).
void validate_stateful_set_spec(const json& stateful_set, Causes& causes, bool create) {
  const json& spec = at(stateful_set, {"spec"});
  const json& policy = at(spec, {"podManagementPolicy"});
  if (str(policy).empty()) required(causes, "spec.podManagementPolicy");
  else if (!one_of(str(policy), {"OrderedReady", "Parallel"}))
    invalid_value(causes, "spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'");
  const json& strategy = at(spec, {"updateStrategy"});
  const json& rolling = at(strategy, {"rollingUpdate"});
  const std::string type = str(at(strategy, {"type"}));
  if (type.empty()) {
    required(causes, "spec.updateStrategy");
  } else if (type == "OnDelete") {
    if (!rolling.is_null())
      invalid_rendered(causes, "spec.updateStrategy.rollingUpdate",
                       "apps.RollingUpdateStatefulSetStrategy{Partition:" + std::to_string(num(at(rolling, {"partition"}))) +
                           ", MaxUnavailable:(*intstr.IntOrString)(nil)}",
                       "only allowed for updateStrategy 'RollingUpdate'");
  } else if (type == "RollingUpdate") {
    non_negative(causes, "spec.updateStrategy.rollingUpdate.partition", at(rolling, {"partition"}));
  } else {
    invalid_rendered(causes, "spec.updateStrategy",
                     go_strategy(strategy, "StatefulSetUpdateStrategy", "RollingUpdateStatefulSetStrategy"),
                     "must be 'RollingUpdate' or 'OnDelete'");
  }
  const json& retention = at(spec, {"persistentVolumeClaimRetentionPolicy"});
  if (retention.is_object())
    for (const char* key : {"whenDeleted", "whenScaled"})
      if (!one_of(str(at(retention, {key})), {"Retain", "Delete"}))
        unsupported(causes, std::string("spec.persistentVolumeClaimRetentionPolicy.") + key, at(retention, {key}),
                    {"Retain", "Delete"});
  non_negative(causes, "spec.replicas", at(spec, {"replicas"}));
  non_negative(causes, "spec.minReadySeconds", at(spec, {"minReadySeconds"}));
  non_negative(causes, "spec.ordinals.start", at(spec, {"ordinals", "start"}));
  if (const std::string service = str(at(spec, {"serviceName"})); create && !service.empty())
    invalid_each(causes, "spec.serviceName", service, dns1123_label_errors(service));
  const json& selector = at(spec, {"selector"});
  required_selector(causes, selector, "statefulset");
  const json& pod_template = at(spec, {"template"});
  if (const auto parsed = workload_selector(selector); !parsed) {
    invalid_rendered(causes, "spec.selector", go_label_selector(selector), "");
  } else {
    if (!parsed->empty()) selector_matches_template(causes, *parsed, pod_template, "spec.template");
    validate_labels(causes, at(pod_template, {"metadata", "labels"}), "spec.template.labels");
    validate_annotation_keys(causes, at(pod_template, {"metadata", "annotations"}), "spec.template.annotations");
    validate_pod_specific_annotations(causes, at(pod_template, {"metadata", "annotations"}),
                                      at(pod_template, {"spec"}), "spec.template.annotations");
  }
  always_restarting(causes, at(pod_template, {"spec"}), "spec.template.spec", "StatefulSet");
}

void validate_stateful_set(const json& stateful_set, Causes& causes) {
  validate_stateful_set_spec(stateful_set, causes, false);
}
void validate_stateful_set_create(const json& stateful_set, Causes& causes) {
  validate_stateful_set_spec(stateful_set, causes, true);
}

// ValidateStatefulSetUpdate: beyond these fields, a StatefulSet's spec never changes.
void validate_stateful_set_update(const json& stateful_set, const json& old, Causes& causes) {
  json now = at(stateful_set, {"spec"});
  json before = at(old, {"spec"});
  for (const char* key :
       {"replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy", "minReadySeconds"})
    for (json* spec : {&now, &before})
      if (spec->is_object()) spec->erase(key);
  if (!semantic_equal(now, before))
    forbidden(causes, "spec",
              "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
              "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden");
}

// ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet.
void validate_daemon_set_strategy(const json& strategy, Causes& causes) {
  const std::string type = str(at(strategy, {"type"}));
  if (type == "OnDelete") return;
  if (type != "RollingUpdate")
    return unsupported_rendered(causes, "spec.updateStrategy",
                                go_strategy(strategy, "DaemonSetUpdateStrategy", "RollingUpdateDaemonSet"),
                                {"RollingUpdate", "OnDelete"});
  const std::string path = "spec.updateStrategy.rollingUpdate";
  const json& rolling = at(strategy, {"rollingUpdate"});
  if (!rolling.is_object()) return required(causes, path);
  const json& max_unavailable = at(rolling, {"maxUnavailable"});
  const json& max_surge = at(rolling, {"maxSurge"});
  validate_int_or_percent(causes, max_unavailable, path + ".maxUnavailable", false);
  validate_int_or_percent(causes, max_surge, path + ".maxSurge", false);
  not_over_100_percent(causes, max_unavailable, path + ".maxUnavailable");
  not_over_100_percent(causes, max_surge, path + ".maxSurge");
  const bool unavailable = int_or_percent_value(max_unavailable) != 0;
  const bool surge = int_or_percent_value(max_surge) != 0;
  if (unavailable && surge)
    invalid_rendered(causes, path + ".maxSurge", go_int_or_string(max_surge),
                     "may not be set when maxUnavailable is non-zero");
  else if (!unavailable && !surge)
    required(causes, path + ".maxUnavailable", "cannot be 0 when maxSurge is 0");
}

// ValidateDaemonSetSpec: the selector may be absent (it then matches no template), the pod
// template is checked in full. `old` as validate_deployment takes it.
void validate_daemon_set(const json& daemon_set, const json* old, Causes& causes) {
  const json& spec = at(daemon_set, {"spec"});
  const json& selector = at(spec, {"selector"});
  const json& pod_template = at(spec, {"template"});
  validate_label_selector(causes, selector, "spec.selector");
  if (const auto parsed = workload_selector(selector))
    selector_matches_template(causes, *parsed, pod_template, "spec.template");
  if (selector.is_object()) selector_not_empty(causes, selector, "daemonset");
  validate_pod_template(causes, pod_template, "spec.template", old ? &at(*old, {"spec", "template"}) : nullptr);
  always_restarting(causes, at(pod_template, {"spec"}), "spec.template.spec", "DaemonSet");
  non_negative(causes, "spec.minReadySeconds", at(spec, {"minReadySeconds"}));
  validate_daemon_set_strategy(at(spec, {"updateStrategy"}), causes);
  non_negative(causes, "spec.revisionHistoryLimit", at(spec, {"revisionHistoryLimit"}));
}

// ---- status writes (Validate*StatusUpdate) ------------------------------------------------------

void validate_deployment_status(std::string_view subresource, const json& deployment, const json& old,
                                Causes& causes) {
  if (subresource != "status") return;
  const json& status = at(deployment, {"status"});
  non_negative_status(causes, status,
                      {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                       "unavailableReplicas", "collisionCount"});
  for (const char* field : {"updatedReplicas", "readyReplicas", "availableReplicas"})
    not_above_status(causes, status, field, "replicas", "status.replicas");
  not_above_status(causes, status, "availableReplicas", "readyReplicas", "readyReplicas");
  collision_count_not_decremented(causes, deployment, old);
}

void validate_replica_set_status(std::string_view subresource, const json& replica_set, const json&, Causes& causes) {
  if (subresource == "status") validate_replica_counts(causes, at(replica_set, {"status"}));
}

void validate_stateful_set_status(std::string_view subresource, const json& stateful_set, const json& old,
                                  Causes& causes) {
  if (subresource != "status") return;
  const json& status = at(stateful_set, {"status"});
  non_negative_status(causes, status,
                      {"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas",
                       "observedGeneration", "collisionCount"});
  for (const char* field : {"readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"})
    not_above_status(causes, status, field, "replicas", "status.replicas");
  not_above_status(causes, status, "availableReplicas", "readyReplicas", "status.readyReplicas");
  collision_count_not_decremented(causes, stateful_set, old);
}

void validate_daemon_set_status(std::string_view subresource, const json& daemon_set, const json& old,
                                Causes& causes) {
  if (subresource != "status") return;
  non_negative_status(causes, at(daemon_set, {"status"}),
                      {"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady",
                       "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
                       "collisionCount"});
  collision_count_not_decremented(causes, daemon_set, old);
}

KindSpec controller_revision_row() {
  return {.info = {.group = "apps", .version = "v1", .kind = "ControllerRevision", .plural = "controllerrevisions",
                   .columns = {name_col(), col("Controller", "string", "Controller of the object"),
                               col("Revision", "string", "revision indicates the revision of the state represented by Data."),
                               age_col()},
                   .printer = print_controller_revision},
          .strategy = {.validate = validate_controller_revision,
                       .validate_create = validate_controller_revision_create,
                       .validate_update = validate_controller_revision_update}};
}

KindSpec deployment_row() {
  return {.info = {.group = "apps",
                   .version = "v1",
                   .kind = "Deployment",
                   .plural = "deployments",
                   .short_names = {"deploy"},
                   .categories = {"all"},
                   .subresources = {"status", "scale"},
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
          .strategy = {.defaults = default_deployment,
                       .validate_create = check_create<validate_deployment>,
                       .validate_update = validate_changed<validate_deployment>,
                       .validate_subresource = validate_deployment_status}};
}

KindSpec replica_set_row() {
  return {.info = {.group = "apps",
                   .version = "v1",
                   .kind = "ReplicaSet",
                   .plural = "replicasets",
                   .short_names = {"rs"},
                   .categories = {"all"},
                   .subresources = {"status", "scale"},
                   .columns = {name_col(), col("Desired", "integer", "Replicas is the number of desired replicas."),
                               col("Current", "integer", "Replicas is the most recently observed number of replicas."),
                               col("Ready", "integer", "The number of ready replicas for this replica set."), age_col(),
                               containers_col(), images_col(),
                               col("Selector", "string",
                                   "Selector is a label query over pods that should match the replica count.", 1)},
                   .printer = print_replica_set},
          .fields = {{"status.replicas", {"status", "replicas"}, ""}},
          .generation = std::vector<std::string>{"spec"},
          .status_keeps_meta = {},  // the status strategy keeps spec only
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_replica_set,
                       .validate_create = check_create<validate_replica_set>,
                       .validate_update = validate_changed<validate_replica_set>,
                       .validate_subresource = validate_replica_set_status}};
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
          .name_rule = NameRule::label,  // its pods' hostnames are made of it (since 1.27)
          .strategy = {.defaults = default_stateful_set,
                       .validate = validate_stateful_set,
                       .validate_create = validate_stateful_set_create,
                       .validate_update = validate_stateful_set_update,
                       .warnings = stateful_set_warnings,
                       .validate_subresource = validate_stateful_set_status}};
}

KindSpec daemon_set_row() {
  return {
      .info = {.group = "apps",
               .version = "v1",
               .kind = "DaemonSet",
               .plural = "daemonsets",
               .short_names = {"ds"},
               .categories = {"all"},
               .subresources = {"status"},
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
                           col("Selector", "string", "A label query over pods that are managed by the daemon set.", 1)},
               .printer = print_daemon_set},
      .generation = std::vector<std::string>{"spec"},
      .status_keeps_meta = {},  // the status strategy keeps spec only
      .pod_template = {"spec", "template"},
      .strategy = {.defaults = default_daemon_set,
                   .validate_create = check_create<validate_daemon_set>,
                   .validate_update = validate_changed<validate_daemon_set>,
                   .validate_subresource = validate_daemon_set_status}};
}

}  // namespace

// In the order kube-apiserver's discovery lists them (by resource name).
std::vector<KindSpec> apps_v1_kinds() {
  return {controller_revision_row(), daemon_set_row(), deployment_row(), replica_set_row(), stateful_set_row()};
}

}  // namespace kw::kinds
