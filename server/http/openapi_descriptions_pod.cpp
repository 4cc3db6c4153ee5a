// Descriptions of Pod, PodSpec, Container and the small types they hold directly.
#include <array>

#include "server/http/openapi_descriptions.hpp"

namespace kw::http::openapi {
namespace {

constexpr std::array k_pod{
    // Pod and its list
    Description{"k8s.io.api.core.v1.Pod",
                "A group of one or more containers scheduled together on one node, sharing network and storage. "
                "Usually created by a workload controller (Deployment, StatefulSet, DaemonSet, Job)."},
    Description{"k8s.io.api.core.v1.Pod.metadata", "Standard object metadata: name, namespace, labels, annotations."},
    Description{"k8s.io.api.core.v1.Pod.spec", "Desired state of the pod: its containers, volumes and scheduling."},
    Description{"k8s.io.api.core.v1.Pod.status",
                "Most recently observed state of the pod, written by the kubelet. Read-only, may lag behind."},
    Description{"k8s.io.api.core.v1.PodList", "A list of pods."},
    Description{"k8s.io.api.core.v1.PodList.metadata", "Standard list metadata."},
    Description{"k8s.io.api.core.v1.PodList.items", "The pods."},
    Description{"k8s.io.api.core.v1.PodTemplateSpec",
                "Template from which a controller creates pods: pod metadata plus a pod spec."},
    Description{"k8s.io.api.core.v1.PodTemplateSpec.metadata",
                "Metadata of the pods created; their labels must match the controller's selector."},
    Description{"k8s.io.api.core.v1.PodTemplateSpec.spec", "Spec of the pods created."},
    // PodSpec
    Description{"k8s.io.api.core.v1.PodSpec", "Desired state of a pod."},
    Description{"k8s.io.api.core.v1.PodSpec.volumes",
                "Volumes the pod's containers can mount, each named and backed by a source."},
    Description{"k8s.io.api.core.v1.PodSpec.initContainers",
                "Containers run one after another, each to completion, before the app containers start. An init "
                "container with restartPolicy Always is a sidecar that keeps running."},
    Description{"k8s.io.api.core.v1.PodSpec.containers",
                "The application containers of the pod; at least one. Containers cannot be added or removed after "
                "creation."},
    Description{"k8s.io.api.core.v1.PodSpec.ephemeralContainers",
                "Temporary containers added to a running pod for debugging (kubectl debug), through the "
                "ephemeralcontainers subresource."},
    Description{"k8s.io.api.core.v1.PodSpec.restartPolicy",
                "When containers are restarted after they exit: Always (default), OnFailure or Never."},
    Description{"k8s.io.api.core.v1.PodSpec.terminationGracePeriodSeconds",
                "Seconds between the termination signal and the forced kill on deletion; 0 kills at once. "
                "Defaults to 30."},
    Description{"k8s.io.api.core.v1.PodSpec.activeDeadlineSeconds",
                "Seconds after start the pod may run before it is marked Failed and its containers are killed. "
                "Must be positive."},
    Description{"k8s.io.api.core.v1.PodSpec.dnsPolicy",
                "How DNS is set up in the pod: ClusterFirst (default), ClusterFirstWithHostNet, Default (the "
                "node's settings) or None (only dnsConfig)."},
    Description{"k8s.io.api.core.v1.PodSpec.nodeSelector",
                "Labels a node must carry for the pod to be scheduled there."},
    Description{"k8s.io.api.core.v1.PodSpec.serviceAccountName",
                "Service account the pod runs as. Defaults to \"default\"."},
    Description{"k8s.io.api.core.v1.PodSpec.serviceAccount", "Deprecated alias of serviceAccountName."},
    Description{"k8s.io.api.core.v1.PodSpec.automountServiceAccountToken",
                "Whether an API token of the service account is mounted into the containers. Overrides the "
                "service account's own setting."},
    Description{"k8s.io.api.core.v1.PodSpec.nodeName",
                "Node the pod is bound to. Setting it on create skips the scheduler."},
    Description{"k8s.io.api.core.v1.PodSpec.hostNetwork",
                "Use the node's network namespace instead of a pod network. Defaults to false."},
    Description{"k8s.io.api.core.v1.PodSpec.hostPID", "Use the node's process ID namespace. Defaults to false."},
    Description{"k8s.io.api.core.v1.PodSpec.hostIPC", "Use the node's IPC namespace. Defaults to false."},
    Description{"k8s.io.api.core.v1.PodSpec.shareProcessNamespace",
                "Put all containers of the pod in one process ID namespace, so they see and can signal each "
                "other's processes. Defaults to false."},
    Description{"k8s.io.api.core.v1.PodSpec.securityContext",
                "Security settings for the whole pod (user and group IDs, fsGroup, seccomp, sysctls); container "
                "settings override them."},
    Description{"k8s.io.api.core.v1.PodSpec.imagePullSecrets",
                "Secrets in the pod's namespace holding registry credentials for pulling the images."},
    Description{"k8s.io.api.core.v1.PodSpec.hostname", "Host name of the pod. Defaults to the pod's name."},
    Description{"k8s.io.api.core.v1.PodSpec.subdomain",
                "With a headless service of this name, gives the pod the DNS name "
                "<hostname>.<subdomain>.<namespace>.svc.<cluster domain>."},
    Description{"k8s.io.api.core.v1.PodSpec.affinity", "Node affinity and pod (anti-)affinity rules for scheduling."},
    Description{"k8s.io.api.core.v1.PodSpec.schedulerName",
                "Scheduler responsible for the pod. Defaults to default-scheduler."},
    Description{"k8s.io.api.core.v1.PodSpec.tolerations",
                "Taints the pod tolerates, so it may be scheduled on (or stay on) nodes carrying them."},
    Description{"k8s.io.api.core.v1.PodSpec.hostAliases", "Extra entries written into the pod's /etc/hosts."},
    Description{"k8s.io.api.core.v1.PodSpec.priorityClassName",
                "PriorityClass that sets the pod's priority; system-node-critical and system-cluster-critical "
                "are the highest built-in ones."},
    Description{"k8s.io.api.core.v1.PodSpec.priority",
                "Scheduling priority, filled in from priorityClassName on create; higher values schedule first and "
                "may preempt lower ones."},
    Description{"k8s.io.api.core.v1.PodSpec.dnsConfig",
                "Extra DNS servers, search domains and resolver options, merged with those dnsPolicy gives."},
    Description{"k8s.io.api.core.v1.PodSpec.readinessGates",
                "Extra pod conditions that must be True, besides all containers being ready, for the pod to count "
                "as ready."},
    Description{"k8s.io.api.core.v1.PodSpec.runtimeClassName",
                "RuntimeClass selecting the container runtime handler; empty uses the node's default."},
    Description{"k8s.io.api.core.v1.PodSpec.enableServiceLinks",
                "Whether the services of the namespace are injected as environment variables (Docker links "
                "style). Defaults to true."},
    Description{"k8s.io.api.core.v1.PodSpec.preemptionPolicy",
                "Whether this pod may evict lower-priority pods to get scheduled: PreemptLowerPriority (default) "
                "or Never."},
    Description{"k8s.io.api.core.v1.PodSpec.overhead",
                "Resources the pod's sandbox itself uses, added to the containers' requests; set from the "
                "RuntimeClass on create."},
    Description{"k8s.io.api.core.v1.PodSpec.topologySpreadConstraints",
                "How the pods of a group are spread across zones, nodes or other topology domains."},
    Description{"k8s.io.api.core.v1.PodSpec.setHostnameAsFQDN",
                "Set the container host name to the pod's fully qualified domain name instead of the short name. "
                "Defaults to false."},
    Description{"k8s.io.api.core.v1.PodSpec.os",
                "Operating system the pod needs (linux or windows); restricts which fields are allowed."},
    Description{"k8s.io.api.core.v1.PodSpec.hostUsers",
                "Whether the pod uses the node's user namespace. false runs it in its own user namespace. "
                "Defaults to true."},
    Description{"k8s.io.api.core.v1.PodSpec.schedulingGates",
                "While any gate is listed the pod is not scheduled; controllers remove their gate when ready."},
    Description{"k8s.io.api.core.v1.PodSpec.resourceClaims",
                "Dynamic resource claims the pod uses, referenced by name from containers' resources.claims."},
    Description{"k8s.io.api.core.v1.PodSpec.resources",
                "Resource requests and limits for the whole pod (cpu, memory, hugepages), shared by its "
                "containers."},
    Description{"k8s.io.api.core.v1.PodSpec.hostnameOverride",
                "Host name to give the pod instead of the one derived from hostname and subdomain (alpha)."},
    Description{"k8s.io.api.core.v1.PodSpec.workloadRef",
                "The workload object this pod belongs to, for scheduling the pods of a workload as a group "
                "(alpha)."},
    // Container
    Description{"k8s.io.api.core.v1.Container", "One container of a pod: an image and how to run it."},
    Description{"k8s.io.api.core.v1.Container.name",
                "Name of the container, a DNS label unique within the pod. Cannot be changed."},
    Description{"k8s.io.api.core.v1.Container.image",
                "Container image to run, such as nginx:1.25 or registry.example.com/app@sha256:<digest>. A "
                "tag-less name means :latest."},
    Description{"k8s.io.api.core.v1.Container.command",
                "Entrypoint, replacing the image's ENTRYPOINT; not run in a shell. $(VAR) expands environment "
                "variables, $$ escapes a dollar."},
    Description{"k8s.io.api.core.v1.Container.args",
                "Arguments to the entrypoint, replacing the image's CMD. $(VAR) expands environment variables."},
    Description{"k8s.io.api.core.v1.Container.workingDir",
                "Working directory of the process. Defaults to the image's."},
    Description{"k8s.io.api.core.v1.Container.ports",
                "Ports the container listens on. Mostly informational: a port not listed is still reachable."},
    Description{"k8s.io.api.core.v1.Container.envFrom",
                "ConfigMaps or Secrets whose keys all become environment variables; env wins on duplicate names."},
    Description{"k8s.io.api.core.v1.Container.env", "Environment variables of the container."},
    Description{"k8s.io.api.core.v1.Container.resources",
                "CPU, memory and other resources the container requests (for scheduling) and may use at most "
                "(limits)."},
    Description{"k8s.io.api.core.v1.Container.resizePolicy",
                "Per resource, whether an in-place resize needs a container restart: NotRequired (default) or "
                "RestartContainer."},
    Description{"k8s.io.api.core.v1.Container.restartPolicy",
                "Restart policy of this container, overriding the pod's. On an init container only Always is "
                "allowed, making it a sidecar that runs for the life of the pod."},
    Description{"k8s.io.api.core.v1.Container.restartPolicyRules",
                "Rules matching exit codes that decide whether the container is restarted, checked before "
                "restartPolicy (alpha)."},
    Description{"k8s.io.api.core.v1.Container.volumeMounts", "Pod volumes mounted into the container's filesystem."},
    Description{"k8s.io.api.core.v1.Container.volumeDevices",
                "Block-mode volumes exposed to the container as raw devices."},
    Description{"k8s.io.api.core.v1.Container.livenessProbe",
                "Periodic check that the container is alive; the container is restarted when it fails."},
    Description{"k8s.io.api.core.v1.Container.readinessProbe",
                "Periodic check that the container can serve; while it fails the pod receives no Service "
                "traffic."},
    Description{"k8s.io.api.core.v1.Container.startupProbe",
                "Check that the container has started; the other probes wait until it succeeds, and failing it "
                "restarts the container."},
    Description{"k8s.io.api.core.v1.Container.lifecycle",
                "Hooks run right after the container starts (postStart) and before it is stopped (preStop)."},
    Description{"k8s.io.api.core.v1.Container.terminationMessagePath",
                "File whose content becomes the termination message. Defaults to /dev/termination-log."},
    Description{"k8s.io.api.core.v1.Container.terminationMessagePolicy",
                "File (default) reads only terminationMessagePath; FallbackToLogsOnError uses the end of the log "
                "when that file is empty and the container failed."},
    Description{"k8s.io.api.core.v1.Container.imagePullPolicy",
                "Always, IfNotPresent or Never. Defaults to Always for :latest or tag-less images, otherwise "
                "IfNotPresent."},
    Description{"k8s.io.api.core.v1.Container.securityContext",
                "Security settings of this container (user, capabilities, privileged, read-only root); they "
                "override the pod's."},
    Description{"k8s.io.api.core.v1.Container.stdin",
                "Keep a stdin buffer open for the container (kubectl attach). Defaults to false."},
    Description{"k8s.io.api.core.v1.Container.stdinOnce",
                "Close stdin after the first attached client disconnects. Defaults to false."},
    Description{"k8s.io.api.core.v1.Container.tty",
                "Allocate a terminal for the container; needs stdin. Defaults to false."},
    // ContainerPort
    Description{"k8s.io.api.core.v1.ContainerPort", "A network port of a container."},
    Description{"k8s.io.api.core.v1.ContainerPort.name",
                "Name of the port (at most 15 characters, unique in the pod), usable by Services as targetPort."},
    Description{"k8s.io.api.core.v1.ContainerPort.hostPort",
                "Port on the node forwarded to this one (1-65535); limits the pod to nodes where it is free."},
    Description{"k8s.io.api.core.v1.ContainerPort.containerPort", "Port number on the pod's IP address (1-65535)."},
    Description{"k8s.io.api.core.v1.ContainerPort.protocol", "TCP (default), UDP or SCTP."},
    Description{"k8s.io.api.core.v1.ContainerPort.hostIP", "Node address hostPort binds to."},
    // EnvVar
    Description{"k8s.io.api.core.v1.EnvVar", "An environment variable of a container."},
    Description{"k8s.io.api.core.v1.EnvVar.name", "Name of the variable."},
    Description{"k8s.io.api.core.v1.EnvVar.value",
                "Literal value; $(VAR) expands variables defined earlier in the list, $$ escapes. Defaults to \"\"."},
    Description{"k8s.io.api.core.v1.EnvVar.valueFrom",
                "Where the value comes from instead (a ConfigMap or Secret key, a pod field, a resource); not "
                "allowed together with a non-empty value."},
    // ResourceRequirements
    Description{"k8s.io.api.core.v1.ResourceRequirements", "Resource requests and limits."},
    Description{"k8s.io.api.core.v1.ResourceRequirements.limits",
                "Most of each resource that may be used, e.g. cpu: 500m, memory: 256Mi. Going over the memory limit "
                "gets the container killed; CPU is throttled."},
    Description{"k8s.io.api.core.v1.ResourceRequirements.requests",
                "Amount of each resource reserved for scheduling. Defaults to the limit when only a limit is set."},
    Description{"k8s.io.api.core.v1.ResourceRequirements.claims",
                "Names of entries in the pod's resourceClaims this container uses."},
    // VolumeMount
    Description{"k8s.io.api.core.v1.VolumeMount", "Where and how a pod volume is mounted in a container."},
    Description{"k8s.io.api.core.v1.VolumeMount.name", "Name of the pod volume to mount."},
    Description{"k8s.io.api.core.v1.VolumeMount.readOnly", "Mount read-only. Defaults to false."},
    Description{"k8s.io.api.core.v1.VolumeMount.recursiveReadOnly",
                "Whether a read-only mount is read-only in its submounts too: Disabled (default), IfPossible or "
                "Enabled."},
    Description{"k8s.io.api.core.v1.VolumeMount.mountPath", "Path in the container to mount at; must not contain ':'."},
    Description{"k8s.io.api.core.v1.VolumeMount.subPath",
                "Path inside the volume to mount instead of its root. Defaults to \"\" (the root)."},
    Description{"k8s.io.api.core.v1.VolumeMount.mountPropagation",
                "How mounts propagate between node and container: None (default), HostToContainer or "
                "Bidirectional."},
    Description{"k8s.io.api.core.v1.VolumeMount.subPathExpr",
                "Like subPath, with $(VAR) expanded from the container's environment; excludes subPath."},
    // References
    Description{"k8s.io.api.core.v1.LocalObjectReference", "Names an object in the same namespace."},
    Description{"k8s.io.api.core.v1.LocalObjectReference.name", "Name of the object."},
    Description{"k8s.io.api.core.v1.EphemeralContainer",
                "A temporary container added to a running pod for debugging; it has no ports, probes or resources "
                "and is never restarted."},
};

}  // namespace

std::span<const Description> pod_descriptions() { return k_pod; }

}  // namespace kw::http::openapi
