#pragma once
// Realistic manifests for the protobuf round-trip tests, as the API server
// would return them (status filled in, timestamps at second precision).
#include <array>
#include <string_view>

namespace kw::test {

inline constexpr std::string_view k_pod_full = R"json({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "web-7d4b9c-x2x9z", "generateName": "web-7d4b9c-", "namespace": "shop",
    "uid": "3f1c2a8e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", "resourceVersion": "123456", "generation": 1,
    "creationTimestamp": "2024-01-02T03:04:05Z",
    "labels": {"app": "web", "pod-template-hash": "7d4b9c", "tier": "frontend"},
    "annotations": {"kubectl.kubernetes.io/restartedAt": "2024-01-01T00:00:00Z", "note": ""},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c",
      "uid": "aa11bb22-cc33-dd44-ee55-ff6677889900", "controller": true, "blockOwnerDeletion": true}],
    "finalizers": ["example.com/cleanup"],
    "managedFields": [{"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
      "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1",
      "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {"k:{\"name\":\"nginx\"}": {".": {}}}}}}]
  },
  "spec": {
    "volumes": [
      {"name": "data", "persistentVolumeClaim": {"claimName": "web-data", "readOnly": false}},
      {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}},
      {"name": "scratch", "emptyDir": {}},
      {"name": "config", "configMap": {"name": "web-config", "items": [{"key": "nginx.conf", "path": "nginx.conf", "mode": 420}], "defaultMode": 420, "optional": true}},
      {"name": "tls", "secret": {"secretName": "web-tls", "defaultMode": 256}},
      {"name": "podinfo", "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}},
        {"path": "cpu_limit", "resourceFieldRef": {"containerName": "nginx", "resource": "limits.cpu", "divisor": "1m"}}]}},
      {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}},
      {"name": "host-logs", "hostPath": {"path": "/var/log", "type": "Directory"}},
      {"name": "nfs-share", "nfs": {"server": "10.0.0.5", "path": "/exports", "readOnly": true}},
      {"name": "csi-vol", "csi": {"driver": "secrets-store.csi.k8s.io", "readOnly": true, "volumeAttributes": {"secretProviderClass": "vault", "b": "2"}}},
      {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": {"type": "eph"}}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "resources": {"requests": {"storage": "1Gi"}}}}}},
      {"name": "img", "image": {"reference": "registry.example/tools:1.0", "pullPolicy": "IfNotPresent"}}
    ],
    "initContainers": [{"name": "init-db", "image": "busybox:1.36", "command": ["sh", "-c", "until nslookup db; do sleep 2; done"],
      "restartPolicy": "Always", "resources": {"requests": {"cpu": "10m"}}}],
    "containers": [{
      "name": "nginx", "image": "nginx:1.25.3", "imagePullPolicy": "IfNotPresent", "workingDir": "/usr/share/nginx",
      "command": ["nginx"], "args": ["-g", "daemon off;"],
      "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}, {"name": "metrics", "containerPort": 9113, "hostPort": 19113, "hostIP": "0.0.0.0", "protocol": "TCP"}],
      "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "web-env", "optional": true}}, {"secretRef": {"name": "web-secrets"}}],
      "env": [{"name": "MODE", "value": "production"}, {"name": "EMPTY", "value": ""},
        {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password", "optional": false}}},
        {"name": "MEM", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
        {"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "level"}}}],
      "resources": {"limits": {"cpu": "500m", "memory": "512Mi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "250m", "memory": "256Mi", "ephemeral-storage": "2Gi"}},
      "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
      "volumeMounts": [{"name": "config", "mountPath": "/etc/nginx/nginx.conf", "subPath": "nginx.conf", "readOnly": true},
        {"name": "data", "mountPath": "/data", "mountPropagation": "HostToContainer"}],
      "volumeDevices": [{"name": "raw", "devicePath": "/dev/xvda"}],
      "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP", "httpHeaders": [{"name": "X-Probe", "value": "1"}]},
        "initialDelaySeconds": 10, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3, "terminationGracePeriodSeconds": 15},
      "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 5},
      "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]}, "failureThreshold": 30},
      "lifecycle": {"preStop": {"exec": {"command": ["nginx", "-s", "quit"]}}, "postStart": {"sleep": {"seconds": 2}}},
      "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "FallbackToLogsOnError",
      "securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]}, "privileged": false, "runAsUser": 101,
        "runAsGroup": 101, "runAsNonRoot": true, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false,
        "seccompProfile": {"type": "RuntimeDefault"}, "appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-nginx"},
        "seLinuxOptions": {"level": "s0:c123,c456"}},
      "stdin": false, "tty": false
    }, {
      "name": "grpc-sidecar", "image": "example/grpc:2", "livenessProbe": {"grpc": {"port": 9090, "service": "health"}}
    }],
    "ephemeralContainers": [{"name": "debugger", "image": "busybox", "targetContainerName": "nginx", "stdin": true, "tty": true}],
    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "activeDeadlineSeconds": 86400, "dnsPolicy": "ClusterFirst",
    "nodeSelector": {"kubernetes.io/os": "linux", "disktype": "ssd"},
    "serviceAccountName": "web", "serviceAccount": "web", "automountServiceAccountToken": false, "nodeName": "node-1",
    "hostNetwork": false, "shareProcessNamespace": true,
    "securityContext": {"runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000, "supplementalGroups": [4000, 5000],
      "fsGroupChangePolicy": "OnRootMismatch", "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}],
      "seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/audit.json"}},
    "imagePullSecrets": [{"name": "regcred"}], "hostname": "web-0", "subdomain": "web",
    "affinity": {
      "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a", "eu-west-1b"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": [{"key": "node-type", "operator": "NotIn", "values": ["spot"]}]}}]},
      "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname", "namespaces": ["shop"]}]},
      "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}, "topologyKey": "kubernetes.io/hostname",
        "namespaceSelector": {"matchLabels": {"team": "shop"}}, "matchLabelKeys": ["pod-template-hash"]}}]}},
    "schedulerName": "default-scheduler",
    "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
    "hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local", "bar.local"]}],
    "priorityClassName": "high", "priority": 1000000,
    "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["shop.svc.cluster.local"], "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]},
    "readinessGates": [{"conditionType": "example.com/ready"}], "runtimeClassName": "gvisor", "enableServiceLinks": false,
    "preemptionPolicy": "PreemptLowerPriority", "overhead": {"cpu": "250m"},
    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
      "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 2, "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore", "matchLabelKeys": ["pod-template-hash"]}],
    "setHostnameAsFQDN": false, "os": {"name": "linux"}, "hostUsers": false,
    "schedulingGates": [{"name": "example.com/quota"}],
    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
  },
  "status": {
    "phase": "Running",
    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-02T03:05:00Z"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "", "message": ""}],
    "hostIP": "10.0.1.7", "hostIPs": [{"ip": "10.0.1.7"}], "podIP": "10.244.1.23", "podIPs": [{"ip": "10.244.1.23"}, {"ip": "fd00::17"}],
    "startTime": "2024-01-02T03:04:06Z", "qosClass": "Burstable",
    "initContainerStatuses": [{"name": "init-db", "ready": true, "restartCount": 0, "image": "busybox:1.36", "imageID": "docker.io/library/busybox@sha256:abc",
      "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": "2024-01-02T03:04:07Z", "finishedAt": "2024-01-02T03:04:09Z", "containerID": "containerd://111"}}}],
    "containerStatuses": [{"name": "nginx", "ready": true, "started": true, "restartCount": 2, "image": "docker.io/library/nginx:1.25.3",
      "imageID": "docker.io/library/nginx@sha256:def", "containerID": "containerd://222",
      "state": {"running": {"startedAt": "2024-01-02T03:04:10Z"}},
      "lastState": {"terminated": {"exitCode": 137, "signal": 9, "reason": "OOMKilled", "message": "out of memory", "startedAt": "2024-01-02T03:00:00Z", "finishedAt": "2024-01-02T03:04:00Z"}},
      "allocatedResources": {"cpu": "250m", "memory": "256Mi"},
      "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": false, "recursiveReadOnly": "Disabled"},
        {"name": "img", "mountPath": "/tools", "readOnly": true, "image": {"imageRef": "registry.example/tools@sha256:0123"}}],
      "user": {"linux": {"uid": 101, "gid": 101, "supplementalGroups": [101, 4000]}}},
      {"name": "grpc-sidecar", "ready": false, "restartCount": 0, "image": "example/grpc:2", "imageID": "",
       "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}}}]
  }
})json";

inline constexpr std::string_view k_deployment = R"json({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop", "generation": 4, "labels": {"app": "web"},
    "annotations": {"deployment.kubernetes.io/revision": "3"}, "creationTimestamp": "2023-12-31T23:59:59Z"},
  "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
    "minReadySeconds": 5, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600, "paused": false,
    "template": {"metadata": {"labels": {"app": "web"}, "annotations": {"prometheus.io/scrape": "true"}},
      "spec": {"containers": [{"name": "web", "image": "example/web:3", "ports": [{"containerPort": 8080}],
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}}}]}}},
  "status": {"observedGeneration": 4, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
    "conditions": [{"type": "Available", "status": "True", "lastUpdateTime": "2024-01-02T03:04:05Z",
      "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."}]}
})json";

inline constexpr std::string_view k_configmap = R"json({
  "apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "greetings", "namespace": "default", "resourceVersion": "42"},
  "data": {"hello": "héllo wörld", "japanese": "こんにちは世界", "emoji": "🚀✨", "multi": "line1\nline2\ttab \"quoted\"", "empty": ""},
  "binaryData": {"logo.bin": "AAEC/f7/", "zeros": "AAAAAA=="},
  "immutable": true
})json";

inline constexpr std::string_view k_secret = R"json({
  "apiVersion": "v1", "kind": "Secret",
  "metadata": {"name": "db", "namespace": "shop"},
  "type": "kubernetes.io/basic-auth",
  "data": {"password": "czNjcjN0IQ==", "username": "YWRtaW4=", "blob": "/wD+AQ=="}
})json";

inline constexpr std::string_view k_service = R"json({
  "apiVersion": "v1", "kind": "Service",
  "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
  "spec": {"type": "LoadBalancer", "selector": {"app": "web"}, "clusterIP": "10.96.12.34", "clusterIPs": ["10.96.12.34", "fd00:10:96::1234"],
    "ipFamilies": ["IPv4", "IPv6"], "ipFamilyPolicy": "PreferDualStack",
    "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": "http", "nodePort": 30080, "appProtocol": "http"},
      {"name": "metrics", "protocol": "TCP", "port": 9113, "targetPort": 9113}],
    "sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
    "externalTrafficPolicy": "Local", "healthCheckNodePort": 32000, "allocateLoadBalancerNodePorts": true,
    "internalTrafficPolicy": "Cluster", "loadBalancerSourceRanges": ["10.0.0.0/8"], "trafficDistribution": "PreferClose"},
  "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.10", "ipMode": "VIP", "ports": [{"port": 80, "protocol": "TCP"}]}]},
    "conditions": [{"type": "LoadBalancerReady", "status": "True", "observedGeneration": 1, "lastTransitionTime": "2024-01-02T03:04:05Z", "reason": "Provisioned", "message": "ok"}]}
})json";

inline constexpr std::string_view k_namespace = R"json({
  "apiVersion": "v1", "kind": "Namespace",
  "metadata": {"name": "shop", "labels": {"kubernetes.io/metadata.name": "shop"}, "deletionTimestamp": "2024-02-03T04:05:06Z", "deletionGracePeriodSeconds": 0},
  "spec": {"finalizers": ["kubernetes"]},
  "status": {"phase": "Terminating", "conditions": [{"type": "NamespaceDeletionContentFailure", "status": "False", "lastTransitionTime": "2024-02-03T04:05:07Z", "reason": "ContentDeleted", "message": "All content successfully deleted"}]}
})json";

inline constexpr std::string_view k_node = R"json({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1", "node-role.kubernetes.io/worker": ""}},
  "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"], "providerID": "aws:///eu-west-1a/i-0abc", "unschedulable": true,
    "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": "2024-01-02T03:04:05Z"}]},
  "status": {
    "capacity": {"cpu": "8", "memory": "32833940Ki", "pods": "110", "ephemeral-storage": "101430960Ki", "hugepages-2Mi": "0"},
    "allocatable": {"cpu": "7910m", "memory": "31682964Ki", "pods": "110"},
    "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-01-02T03:04:05Z", "lastTransitionTime": "2024-01-01T00:00:00Z",
      "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
    "addresses": [{"type": "InternalIP", "address": "10.0.1.7"}, {"type": "Hostname", "address": "node-1"}],
    "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
    "nodeInfo": {"machineID": "m1", "systemUUID": "u1", "bootID": "b1", "kernelVersion": "6.1.0-18-amd64", "osImage": "Debian GNU/Linux 12 (bookworm)",
      "containerRuntimeVersion": "containerd://1.7.13", "kubeletVersion": "v1.29.2", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64",
      "swap": {"capacity": 4294967296}},
    "images": [{"names": ["docker.io/library/nginx@sha256:def", "docker.io/library/nginx:1.25.3"], "sizeBytes": 70544635}],
    "volumesInUse": ["kubernetes.io/csi/ebs.csi.aws.com^vol-1"],
    "volumesAttached": [{"name": "kubernetes.io/csi/ebs.csi.aws.com^vol-1", "devicePath": ""}],
    "runtimeHandlers": [{"name": "runc", "features": {"recursiveReadOnlyMounts": true, "userNamespaces": true}}],
    "features": {"supplementalGroupsPolicy": true}
  }
})json";

inline constexpr std::string_view k_event = R"json({
  "apiVersion": "v1", "kind": "Event",
  "metadata": {"name": "web-7d4b9c-x2x9z.17a8b9c0d1e2f3a4", "namespace": "shop"},
  "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "web-7d4b9c-x2x9z", "uid": "3f1c2a8e", "apiVersion": "v1", "resourceVersion": "123", "fieldPath": "spec.containers{nginx}"},
  "reason": "Pulled", "message": "Successfully pulled image \"nginx:1.25.3\" in 1.2s",
  "source": {"component": "kubelet", "host": "node-1"},
  "firstTimestamp": "2024-01-02T03:04:05Z", "lastTimestamp": "2024-01-02T03:04:08Z", "count": 3, "type": "Normal",
  "eventTime": "2024-01-02T03:04:05.123456Z",
  "series": {"count": 2, "lastObservedTime": "2024-01-02T03:04:08.654321Z"},
  "action": "Pulling", "reportingComponent": "kubelet", "reportingInstance": "node-1",
  "related": {"kind": "Node", "name": "node-1"}
})json";

inline constexpr std::string_view k_endpoints = R"json({
  "apiVersion": "v1", "kind": "Endpoints",
  "metadata": {"name": "web", "namespace": "shop"},
  "subsets": [{"addresses": [{"ip": "10.244.1.23", "nodeName": "node-1", "targetRef": {"kind": "Pod", "namespace": "shop", "name": "web-1", "uid": "u1"}},
      {"ip": "10.244.2.5", "hostname": "web-2"}],
    "notReadyAddresses": [{"ip": "10.244.3.9"}],
    "ports": [{"name": "http", "port": 80, "protocol": "TCP", "appProtocol": "http"}]}]
})json";

inline constexpr std::string_view k_statefulset = R"json({
  "apiVersion": "apps/v1", "kind": "StatefulSet",
  "metadata": {"name": "db", "namespace": "shop"},
  "spec": {"replicas": 3, "serviceName": "db", "podManagementPolicy": "Parallel", "selector": {"matchLabels": {"app": "db"}},
    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1, "maxUnavailable": "50%"}},
    "revisionHistoryLimit": 5, "minReadySeconds": 10,
    "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Retain"}, "ordinals": {"start": 1},
    "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "postgres", "image": "postgres:16",
      "volumeMounts": [{"name": "pgdata", "mountPath": "/var/lib/postgresql/data"}]}]}},
    "volumeClaimTemplates": [{"metadata": {"name": "pgdata"},
      "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "volumeMode": "Filesystem",
        "resources": {"requests": {"storage": "10Gi"}, "limits": {"storage": "20Gi"}},
        "selector": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
        "dataSource": {"kind": "VolumeSnapshot", "name": "snap-1", "apiGroup": "snapshot.storage.k8s.io"}},
      "status": {"phase": "Pending"}}]},
  "status": {"observedGeneration": 2, "replicas": 3, "readyReplicas": 2, "currentReplicas": 3, "updatedReplicas": 3,
    "currentRevision": "db-5d8f", "updateRevision": "db-5d8f", "collisionCount": 0, "availableReplicas": 2}
})json";

inline constexpr std::string_view k_daemonset = R"json({
  "apiVersion": "apps/v1", "kind": "DaemonSet",
  "metadata": {"name": "node-exporter", "namespace": "monitoring"},
  "spec": {"selector": {"matchLabels": {"app": "node-exporter"}},
    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
    "template": {"metadata": {"labels": {"app": "node-exporter"}}, "spec": {"hostNetwork": true, "hostPID": true,
      "tolerations": [{"operator": "Exists"}],
      "containers": [{"name": "node-exporter", "image": "prom/node-exporter:v1.7.0", "args": ["--path.rootfs=/host"],
        "ports": [{"containerPort": 9100, "hostPort": 9100, "name": "metrics"}]}]}}},
  "status": {"currentNumberScheduled": 3, "numberMisscheduled": 0, "desiredNumberScheduled": 3, "numberReady": 3,
    "observedGeneration": 1, "updatedNumberScheduled": 3, "numberAvailable": 3}
})json";

inline constexpr std::string_view k_service_account = R"json({
  "apiVersion": "v1", "kind": "ServiceAccount",
  "metadata": {"name": "web", "namespace": "shop"},
  "secrets": [{"name": "web-token"}], "imagePullSecrets": [{"name": "regcred"}], "automountServiceAccountToken": false
})json";

inline constexpr std::string_view k_replicaset = R"json({
  "apiVersion": "apps/v1", "kind": "ReplicaSet",
  "metadata": {"name": "web-7d4b9c", "namespace": "shop", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]},
  "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "example/web:2"}]}}},
  "status": {"replicas": 0, "observedGeneration": 3}
})json";

inline constexpr std::string_view k_pod_list = R"json({
  "apiVersion": "v1", "kind": "PodList",
  "metadata": {"resourceVersion": "999", "continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 12},
  "items": [{"metadata": {"name": "a", "namespace": "default"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    {"metadata": {"name": "b", "namespace": "default"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}]
})json";

inline constexpr std::string_view k_status = R"json({
  "apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
  "message": "too old resource version: 123 (456)", "reason": "Expired", "code": 410,
  "details": {"name": "web", "kind": "pods", "causes": [{"reason": "FieldValueInvalid", "message": "bad", "field": "spec.containers[0].image"}], "retryAfterSeconds": 1}
})json";

inline constexpr std::array k_corpus{k_pod_full, k_deployment, k_configmap, k_secret, k_service, k_namespace, k_node, k_event,
                                     k_endpoints, k_statefulset, k_daemonset, k_service_account, k_replicaset, k_pod_list, k_status};

}  // namespace kw::test
