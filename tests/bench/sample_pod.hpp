#pragma once
// The object every benchmark moves around: a typical Pod as the apiserver stores it
// (about 3 KB of compact JSON: two containers with probes, resources and mounts,
// volumes, an owner reference, tolerations and a running status).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::bench {

inline constexpr std::string_view k_sample_pod_json = R"({
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {
    "name": "web-7d9f8b6c5d-x2x4k",
    "generateName": "web-7d9f8b6c5d-",
    "namespace": "shop",
    "uid": "5f0c6a9e-3b1d-4c8e-9a51-2f7d6e8b4c10",
    "resourceVersion": "184467",
    "creationTimestamp": "2024-05-14T09:21:37Z",
    "labels": {"app": "web", "pod-template-hash": "7d9f8b6c5d", "tier": "frontend"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8b6c5d",
      "uid": "0b7e4c2a-6d3f-4e1a-8b9c-1a2b3c4d5e6f", "controller": true, "blockOwnerDeletion": true}]
  },
  "spec": {
    "volumes": [
      {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
      {"name": "cache", "emptyDir": {"sizeLimit": "512Mi"}}
    ],
    "containers": [
      {"name": "web", "image": "registry.example.com/shop/web:1.24.3",
       "command": ["/usr/local/bin/web"], "args": ["--listen=:8080", "--config=/etc/web/config.yaml"],
       "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
       "resources": {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "250m", "memory": "256Mi"}},
       "volumeMounts": [{"name": "config", "mountPath": "/etc/web", "readOnly": true},
                        {"name": "cache", "mountPath": "/var/cache/web"}],
       "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"},
                         "initialDelaySeconds": 10, "timeoutSeconds": 1, "periodSeconds": 10,
                         "successThreshold": 1, "failureThreshold": 3},
       "readinessProbe": {"httpGet": {"path": "/ready", "port": "http", "scheme": "HTTP"},
                          "timeoutSeconds": 1, "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
       "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
       "imagePullPolicy": "IfNotPresent"},
      {"name": "proxy", "image": "registry.example.com/infra/envoy:1.29.1",
       "ports": [{"name": "admin", "containerPort": 9901, "protocol": "TCP"}],
       "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "50m", "memory": "64Mi"}},
       "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
       "imagePullPolicy": "IfNotPresent"}
    ],
    "restartPolicy": "Always",
    "terminationGracePeriodSeconds": 30,
    "dnsPolicy": "ClusterFirst",
    "serviceAccountName": "web",
    "serviceAccount": "web",
    "nodeName": "node-17",
    "securityContext": {"runAsNonRoot": true, "fsGroup": 2000},
    "schedulerName": "default-scheduler",
    "tolerations": [
      {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    ],
    "priority": 0,
    "enableServiceLinks": true,
    "preemptionPolicy": "PreemptLowerPriority"
  },
  "status": {
    "phase": "Running",
    "conditions": [
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2024-05-14T09:21:37Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-14T09:21:49Z"}
    ],
    "hostIP": "10.0.3.17",
    "podIP": "10.244.5.31",
    "podIPs": [{"ip": "10.244.5.31"}],
    "startTime": "2024-05-14T09:21:37Z",
    "containerStatuses": [
      {"name": "proxy", "state": {"running": {"startedAt": "2024-05-14T09:21:40Z"}}, "lastState": {},
       "ready": true, "restartCount": 0, "image": "registry.example.com/infra/envoy:1.29.1",
       "imageID": "registry.example.com/infra/envoy@sha256:3c1f0b2a9d8e7f6a",
       "containerID": "containerd://8e2f4b6a1c3d5e7f", "started": true},
      {"name": "web", "state": {"running": {"startedAt": "2024-05-14T09:21:39Z"}}, "lastState": {},
       "ready": true, "restartCount": 0, "image": "registry.example.com/shop/web:1.24.3",
       "imageID": "registry.example.com/shop/web@sha256:9a8b7c6d5e4f3a2b",
       "containerID": "containerd://1a3c5e7f9b2d4f6a", "started": true}
    ],
    "qosClass": "Burstable"
  }
})";

// The sample pod, compact (as stored and as sent on the wire).
inline std::string sample_pod_compact() { return nlohmann::json::parse(k_sample_pod_json).dump(); }

// The sample pod renamed (and moved to `namespace_` when not empty), compact.
inline std::string sample_pod_named(const std::string& name, const std::string& namespace_ = "") {
  nlohmann::json pod = nlohmann::json::parse(k_sample_pod_json);
  pod["metadata"]["name"] = name;
  if (!namespace_.empty()) pod["metadata"]["namespace"] = namespace_;
  return pod.dump();
}

}  // namespace kw::bench
