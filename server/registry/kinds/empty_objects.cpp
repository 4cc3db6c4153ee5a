#include "server/registry/kinds/empty_objects.hpp"

#include <map>
#include <string>

namespace kw::kinds {
namespace {

// What Go's unstructured converter makes of a zero-valued object of each kind, by
// "<apiVersion>/<Kind>": the structs that are values (not pointers) are there, empty, and the
// lists, maps and pointers without omitempty are there as null. Recorded from Kubernetes 1.23;
// kinds added since are left at their metadata.
constexpr std::pair<std::string_view, std::string_view> k_empty_objects[] = {
    {"admissionregistration.k8s.io/v1/MutatingWebhookConfiguration",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"apiextensions.k8s.io/v1/CustomResourceDefinition",
     R"({"metadata":{"creationTimestamp":null},"spec":{"group":"","names":{"kind":"","plural":""},"scope":"","versions":null},"status":{"acceptedNames":{"kind":"","plural":""},"storedVersions":null}})"},
    {"apiregistration.k8s.io/v1/APIService",
     R"({"metadata":{"creationTimestamp":null},"spec":{"groupPriorityMinimum":0,"service":null,"versionPriority":0},"status":{}})"},
    {"apps/v1/ControllerRevision",
     R"({"data":null,"metadata":{"creationTimestamp":null},"revision":0})"},
    {"apps/v1/DaemonSet",
     R"({"metadata":{"creationTimestamp":null},"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"updateStrategy":{}},"status":{"currentNumberScheduled":0,"desiredNumberScheduled":0,"numberMisscheduled":0,"numberReady":0}})"},
    {"apps/v1/Deployment",
     R"({"metadata":{"creationTimestamp":null},"spec":{"selector":null,"strategy":{},"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},"status":{}})"},
    {"apps/v1/ReplicaSet",
     R"({"metadata":{"creationTimestamp":null},"spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},"status":{"replicas":0}})"},
    {"apps/v1/StatefulSet",
     R"({"metadata":{"creationTimestamp":null},"spec":{"selector":null,"serviceName":"","template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}},"updateStrategy":{}},"status":{"availableReplicas":0,"replicas":0}})"},
    {"authentication.k8s.io/v1/TokenRequest",
     R"({"metadata":{"creationTimestamp":null},"spec":{"audiences":null,"boundObjectRef":null,"expirationSeconds":null},"status":{"expirationTimestamp":null,"token":""}})"},
    {"authentication.k8s.io/v1/TokenReview",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"user":{}}})"},
    {"authorization.k8s.io/v1/LocalSubjectAccessReview",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"allowed":false}})"},
    {"authorization.k8s.io/v1/SelfSubjectAccessReview",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"allowed":false}})"},
    {"authorization.k8s.io/v1/SelfSubjectRulesReview",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"incomplete":false,"nonResourceRules":null,"resourceRules":null}})"},
    {"authorization.k8s.io/v1/SubjectAccessReview",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"allowed":false}})"},
    {"autoscaling/v1/HorizontalPodAutoscaler",
     R"({"metadata":{"creationTimestamp":null},"spec":{"maxReplicas":0,"scaleTargetRef":{"kind":"","name":""}},"status":{"currentReplicas":0,"desiredReplicas":0}})"},
    {"autoscaling/v1/Scale",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"replicas":0}})"},
    {"autoscaling/v2/HorizontalPodAutoscaler",
     R"({"metadata":{"creationTimestamp":null},"spec":{"maxReplicas":0,"scaleTargetRef":{"kind":"","name":""}},"status":{"currentMetrics":null,"desiredReplicas":0}})"},
    {"batch/v1/CronJob",
     R"({"metadata":{"creationTimestamp":null},"spec":{"jobTemplate":{"metadata":{"creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}}},"schedule":""},"status":{}})"},
    {"batch/v1/Job",
     R"({"metadata":{"creationTimestamp":null},"spec":{"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},"status":{}})"},
    {"certificates.k8s.io/v1/CertificateSigningRequest",
     R"({"metadata":{"creationTimestamp":null},"spec":{"request":null,"signerName":""},"status":{}})"},
    {"coordination.k8s.io/v1/Lease",
     R"({"metadata":{"creationTimestamp":null},"spec":{}})"},
    {"discovery.k8s.io/v1/EndpointSlice",
     R"({"addressType":"","endpoints":null,"metadata":{"creationTimestamp":null},"ports":null})"},
    {"events.k8s.io/v1/Event",
     R"({"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null,"deprecatedSource":{},"eventTime":null,"metadata":{"creationTimestamp":null},"regarding":{}})"},
    {"networking.k8s.io/v1/Ingress",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"loadBalancer":{}}})"},
    {"networking.k8s.io/v1/IngressClass",
     R"({"metadata":{"creationTimestamp":null},"spec":{}})"},
    {"networking.k8s.io/v1/NetworkPolicy",
     R"({"metadata":{"creationTimestamp":null},"spec":{"podSelector":{}}})"},
    {"node.k8s.io/v1/RuntimeClass",
     R"({"handler":"","metadata":{"creationTimestamp":null}})"},
    {"policy/v1/Eviction",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"policy/v1/PodDisruptionBudget",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}})"},
    {"rbac.authorization.k8s.io/v1/ClusterRole",
     R"({"metadata":{"creationTimestamp":null},"rules":null})"},
    {"rbac.authorization.k8s.io/v1/ClusterRoleBinding",
     R"({"metadata":{"creationTimestamp":null},"roleRef":{"apiGroup":"","kind":"","name":""}})"},
    {"rbac.authorization.k8s.io/v1/Role",
     R"({"metadata":{"creationTimestamp":null},"rules":null})"},
    {"rbac.authorization.k8s.io/v1/RoleBinding",
     R"({"metadata":{"creationTimestamp":null},"roleRef":{"apiGroup":"","kind":"","name":""}})"},
    {"scheduling.k8s.io/v1/PriorityClass",
     R"({"metadata":{"creationTimestamp":null},"value":0})"},
    {"storage.k8s.io/v1/CSIDriver",
     R"({"metadata":{"creationTimestamp":null},"spec":{}})"},
    {"storage.k8s.io/v1/CSINode",
     R"({"metadata":{"creationTimestamp":null},"spec":{"drivers":null}})"},
    {"storage.k8s.io/v1/StorageClass",
     R"({"metadata":{"creationTimestamp":null},"provisioner":""})"},
    {"storage.k8s.io/v1/VolumeAttachment",
     R"({"metadata":{"creationTimestamp":null},"spec":{"attacher":"","nodeName":"","source":{}},"status":{"attached":false}})"},
    {"v1/Binding",
     R"({"metadata":{"creationTimestamp":null},"target":{}})"},
    {"v1/ComponentStatus",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"v1/ConfigMap",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"v1/Endpoints",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"v1/Event",
     R"({"eventTime":null,"firstTimestamp":null,"involvedObject":{},"lastTimestamp":null,"metadata":{"creationTimestamp":null},"reportingComponent":"","reportingInstance":"","source":{}})"},
    {"v1/LimitRange",
     R"({"metadata":{"creationTimestamp":null},"spec":{"limits":null}})"},
    {"v1/Namespace",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{}})"},
    {"v1/Node",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"architecture":"","bootID":"","containerRuntimeVersion":"","kernelVersion":"","kubeProxyVersion":"","kubeletVersion":"","machineID":"","operatingSystem":"","osImage":"","systemUUID":""}}})"},
    {"v1/PersistentVolume",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{}})"},
    {"v1/PersistentVolumeClaim",
     R"({"metadata":{"creationTimestamp":null},"spec":{"resources":{}},"status":{}})"},
    {"v1/Pod",
     R"({"metadata":{"creationTimestamp":null},"spec":{"containers":null},"status":{}})"},
    {"v1/PodTemplate",
     R"({"metadata":{"creationTimestamp":null},"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}})"},
    {"v1/ReplicationController",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"replicas":0}})"},
    {"v1/ResourceQuota",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{}})"},
    {"v1/Secret",
     R"({"metadata":{"creationTimestamp":null}})"},
    {"v1/Service",
     R"({"metadata":{"creationTimestamp":null},"spec":{},"status":{"loadBalancer":{}}})"},
    {"v1/ServiceAccount",
     R"({"metadata":{"creationTimestamp":null}})"},
};

}  // namespace

const nlohmann::json& empty_object(std::string_view api_version, std::string_view kind) {
  static const auto k_table = [] {
    std::map<std::string, nlohmann::json, std::less<>> table;
    for (const auto& [key, text] : k_empty_objects) table.emplace(std::string(key), nlohmann::json::parse(text));
    return table;
  }();
  static const nlohmann::json k_metadata_only = nlohmann::json::parse(R"({"metadata":{"creationTimestamp":null}})");
  const auto found = k_table.find(std::string(api_version) + "/" + std::string(kind));
  return found == k_table.end() ? k_metadata_only : found->second;
}

}  // namespace kw::kinds
