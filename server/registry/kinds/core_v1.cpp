// The core/v1 kinds ("" group): rows and strategies.
#include "core/codec/protobuf_scalars.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/core_v1_print.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using api::print::age_col;
using api::print::at;
using api::print::col;
using api::print::k_name_doc;
using api::print::name_col;
using nlohmann::json;

// A namespace is born Active, held by the "kubernetes" finalizer.
void prepare_namespace(json& ns) {
  object_member(ns, "spec")["finalizers"] = {"kubernetes"};
  ns["status"] = {{"phase", "Active"}};
}

void prepare_pod(json& pod) {
  auto& status = object_member(pod, "status");
  if (!status.contains("phase")) status["phase"] = "Pending";
}

void validate_pod(const json& pod, Causes& causes) {
  const auto& spec = at(pod, {"spec"});
  if (!spec.is_object()) required(causes, "spec");
  else validate_containers(causes, spec, "spec");
}

// stringData is a write-only convenience: folded into data (base64) on every write;
// stringData wins over data for the same key.
void fold_string_data(json& secret) {
  const auto string_data = secret.find("stringData");
  if (string_data == secret.end()) return;
  if (string_data->is_object()) {
    auto& data = object_member(secret, "data");
    for (const auto& [key, value] : string_data->items())
      if (value.is_string()) data[key] = codec::scalars::base64_encode(value.get<std::string>());
  }
  secret.erase("stringData");
}

KindSpec namespace_row() {
  return {.info = {.version = "v1", .kind = "Namespace", .plural = "namespaces", .short_names = {"ns"},
                   .namespaced = false,
                   .verbs = {"create", "delete", "get", "list", "patch", "update", "watch"},
                   .subresources = {"status", "finalize"},
                   .columns = {name_col(), col("Status", "string", "The status of the namespace"), age_col()},
                   .printer = print_namespace},
          .fields = {{"status.phase", {"status", "phase"}, ""}},
          .name_rule = NameRule::label,
          .lifecycle = Lifecycle::namespace_,
          .strategy = {.prepare_create = prepare_namespace}};
}

KindSpec pod_row() {
  return {.info = {.version = "v1", .kind = "Pod", .plural = "pods", .short_names = {"po"}, .categories = {"all"},
                   .subresources = {"status"},
                   .columns = {name_col(),
                               col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
                               col("Status", "string", "The aggregate status of the containers in this pod."),
                               col("Restarts", "string",
                                   "The number of times the containers in this pod have been restarted and when the "
                                   "last container in this pod has restarted."),
                               age_col(),
                               col("IP", "string",
                                   "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
                                   "not yet allocated.",
                                   1),
                               col("Node", "string", "NodeName indicates in which node this pod is scheduled.", 1),
                               col("Nominated Node", "string",
                                   "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
                                   "cannot be scheduled right away as preemption victims receive their graceful "
                                   "termination periods.",
                                   1),
                               col("Readiness Gates", "string",
                                   "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
                   .printer = print_pod},
          .fields = {{"spec.nodeName", {"spec", "nodeName"}, ""},
                     {"spec.restartPolicy", {"spec", "restartPolicy"}, ""},
                     {"spec.schedulerName", {"spec", "schedulerName"}, ""},
                     {"spec.serviceAccountName", {"spec", "serviceAccountName"}, ""},
                     {"spec.hostNetwork", {"spec", "hostNetwork"}, "false"},
                     {"status.phase", {"status", "phase"}, ""},
                     {"status.podIP", {"status", "podIP"}, ""},
                     {"status.nominatedNodeName", {"status", "nominatedNodeName"}, ""}},
          // Kubelets watch their own node's pods: the cache indexes pods and watchers by node.
          .index_field = "spec.nodeName",
          .strategy = {.prepare_create = prepare_pod, .validate = validate_pod}};
}

KindSpec service_row() {
  return {.info = {.version = "v1", .kind = "Service", .plural = "services", .short_names = {"svc"},
                   .categories = {"all"}, .subresources = {"status"},
                   .columns = {name_col(), col("Type", "string", "type determines how the Service is exposed."),
                               col("Cluster-IP", "string",
                                   "clusterIP is the IP address of the service and is usually assigned randomly."),
                               col("External-IP", "string",
                                   "externalIPs is a list of IP addresses for which nodes in the cluster will also "
                                   "accept traffic for this service."),
                               col("Port(s)", "string", "The list of ports that are exposed by this service."),
                               age_col(),
                               col("Selector", "string",
                                   "Route service traffic to pods with label keys and values matching this selector.",
                                   1)},
                   .printer = print_service},
          .storage_resource = "services/specs",
          .name_rule = NameRule::label};
}

KindSpec config_map_row() {
  return {.info = {.version = "v1", .kind = "ConfigMap", .plural = "configmaps", .short_names = {"cm"},
                   .columns = {name_col(), col("Data", "string", "Data contains the configuration data."), age_col()},
                   .printer = print_config_map}};
}

KindSpec secret_row() {
  return {.info = {.version = "v1", .kind = "Secret", .plural = "secrets",
                   .columns = {name_col(),
                               col("Type", "string", "Used to facilitate programmatic handling of secret data."),
                               col("Data", "string", "Data contains the secret data."), age_col()},
                   .printer = print_secret},
          .fields = {{"type", {"type"}, ""}},
          .strategy = {.canonicalize = fold_string_data}};
}

KindSpec event_row() {
  return {.info = {.version = "v1", .kind = "Event", .plural = "events", .short_names = {"ev"},
                   .columns = {col("Last Seen", "string",
                                   "The time at which the most recent occurrence of this event was recorded."),
                               col("Type", "string",
                                   "Type of this event (Normal, Warning), new types could be added in the future"),
                               col("Reason", "string",
                                   "This should be a short, machine understandable string that gives the reason for "
                                   "the transition into the object's current status."),
                               col("Object", "string", "The object that this event is about."),
                               col("Subobject", "string",
                                   "If referring to a piece of an object instead of an entire object, this string "
                                   "should contain a valid JSON/Go field access statement.",
                                   1),
                               col("Source", "string",
                                   "The component reporting this event. Should be a short machine understandable "
                                   "string.",
                                   1),
                               col("Message", "string", "A human-readable description of the status of this operation."),
                               col("First Seen", "string",
                                   "The time at which the event was first recorded. (Time of server receipt is in "
                                   "TypeMeta.)",
                                   1),
                               col("Count", "string", "The number of times this event has occurred.", 1),
                               col("Name", "string", k_name_doc, 1, "name")},
                   .printer = print_event},
          .fields = {{"involvedObject.kind", {"involvedObject", "kind"}, ""},
                     {"involvedObject.namespace", {"involvedObject", "namespace"}, ""},
                     {"involvedObject.name", {"involvedObject", "name"}, ""},
                     {"involvedObject.uid", {"involvedObject", "uid"}, ""},
                     {"involvedObject.apiVersion", {"involvedObject", "apiVersion"}, ""},
                     {"involvedObject.resourceVersion", {"involvedObject", "resourceVersion"}, ""},
                     {"involvedObject.fieldPath", {"involvedObject", "fieldPath"}, ""},
                     {"reason", {"reason"}, ""},
                     {"reportingComponent", {"reportingComponent"}, ""},
                     {"source", {"source", "component"}, ""},
                     {"type", {"type"}, ""}},
          .uses_event_ttl = true};
}

KindSpec node_row() {
  return {.info = {.version = "v1", .kind = "Node", .plural = "nodes", .short_names = {"no"}, .namespaced = false,
                   .subresources = {"status"},
                   .columns = {name_col(), col("Status", "string", "The status of the node"),
                               col("Roles", "string", "The roles of the node"), age_col(),
                               col("Version", "string", "Kubelet Version reported by the node."),
                               col("Internal-IP", "string", "List of addresses reachable to the node.", 1),
                               col("External-IP", "string", "List of addresses reachable to the node.", 1),
                               col("OS-Image", "string",
                                   "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
                                   "(wheezy)).",
                                   1),
                               col("Kernel-Version", "string",
                                   "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
                                   1),
                               col("Container-Runtime", "string",
                                   "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
                                   "containerd://1.4.2).",
                                   1)},
                   .printer = print_node},
          .storage_resource = "minions",
          .fields = {{"spec.unschedulable", {"spec", "unschedulable"}, "false"}}};
}

KindSpec service_account_row() {
  return {.info = {.version = "v1", .kind = "ServiceAccount", .plural = "serviceaccounts", .short_names = {"sa"},
                   .columns = {name_col(),
                               col("Secrets", "string",
                                   "Secrets is a list of the secrets in the same namespace that pods running using "
                                   "this ServiceAccount are allowed to use."),
                               age_col()},
                   .printer = print_service_account}};
}

KindSpec endpoints_row() {
  return {.info = {.version = "v1", .kind = "Endpoints", .plural = "endpoints", .short_names = {"ep"},
                   .columns = {name_col(),
                               col("Endpoints", "string", "The set of all endpoints is the union of all subsets."),
                               age_col()},
                   .printer = print_endpoints},
          .storage_resource = "services/endpoints"};
}

}  // namespace

std::vector<KindSpec> core_v1_kinds() {
  return {namespace_row(), pod_row(),    service_row(),         config_map_row(), secret_row(),
          event_row(),     node_row(),   service_account_row(), endpoints_row()};
}

}  // namespace kw::kinds
