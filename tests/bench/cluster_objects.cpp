#include "bench/cluster_objects.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "core/codec/protobuf_scalars.hpp"

namespace kw::bench::cluster {

using nlohmann::json;

namespace {

codec::scalars::Timestamp now_timestamp() {
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since);
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(since - seconds);
  return {seconds.count(), static_cast<std::int32_t>(nanos.count())};
}

json node_conditions(const std::string& now) {
  struct Condition {
    const char* type;
    const char* status;
    const char* reason;
    const char* message;
  };
  static constexpr Condition k_conditions[] = {
      {"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
      {"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
      {"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
  };
  json out = json::array();
  for (const auto& c : k_conditions)
    out.push_back({{"type", c.type},
                   {"status", c.status},
                   {"lastHeartbeatTime", now},
                   {"lastTransitionTime", "2026-01-01T00:00:00Z"},
                   {"reason", c.reason},
                   {"message", c.message}});
  return out;
}

json node_images(int index) {
  static constexpr const char* k_images[] = {
      "registry.k8s.io/kube-proxy",   "registry.k8s.io/pause",          "docker.io/calico/node",
      "docker.io/calico/cni",         "registry.k8s.io/coredns/coredns", "quay.io/prometheus/node-exporter",
      "docker.io/library/nginx",      "docker.io/library/redis",         "docker.io/library/postgres",
      "quay.io/jetstack/cert-manager", "ghcr.io/fluxcd/source-controller", "docker.io/grafana/grafana",
      "registry.example.com/shop/web", "registry.example.com/infra/envoy", "docker.io/library/busybox",
  };
  // Every image by tag, every third also by digest, as a kubelet lists what it pulled.
  json out = json::array();
  for (int i = 0; i < 30; ++i) {
    const std::string repo = k_images[i % 15];
    json names = json::array({repo + ":v1." + std::to_string(20 + i / 15) + "." + std::to_string((index + i) % 9)});
    if (i % 3 == 0) {
      std::string digest = std::to_string(1000003L * (index + 1) + i);
      digest.resize(64, static_cast<char>('a' + i % 6));
      names.insert(names.begin(), repo + "@sha256:" + digest);
    }
    out.push_back({{"names", std::move(names)}, {"sizeBytes", 10'000'000 + i * 1'234'567}});
  }
  return out;
}

}  // namespace

std::string now_rfc3339() { return codec::scalars::format_rfc3339({now_timestamp().seconds, 0}, 0); }
std::string now_rfc3339_micro() { return codec::scalars::format_rfc3339(now_timestamp(), 6); }

std::string node_body(std::string_view name, int index) {
  const std::string node(name);
  const std::string ip = "10." + std::to_string(64 + index / 65536) + "." + std::to_string(index / 256 % 256) + "." +
                         std::to_string(index % 256);
  const json resources = {{"cpu", "16"}, {"memory", "65842276Ki"}, {"pods", "110"},
                          {"ephemeral-storage", "203070420Ki"}, {"hugepages-1Gi", "0"}, {"hugepages-2Mi", "0"}};
  const json allocatable = {{"cpu", "15890m"}, {"memory", "64691300Ki"}, {"pods", "110"},
                            {"ephemeral-storage", "187149698763"}, {"hugepages-1Gi", "0"}, {"hugepages-2Mi", "0"}};
  json body = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", node},
        {"labels",
         {{"kubernetes.io/hostname", node},
          {"kubernetes.io/os", "linux"},
          {"kubernetes.io/arch", "amd64"},
          {"beta.kubernetes.io/os", "linux"},
          {"beta.kubernetes.io/arch", "amd64"},
          {"node.kubernetes.io/instance-type", "m5.4xlarge"},
          {"topology.kubernetes.io/region", "eu-west-1"},
          {"topology.kubernetes.io/zone", "eu-west-1" + std::string(1, static_cast<char>('a' + index % 3))}}},
        {"annotations",
         {{"node.alpha.kubernetes.io/ttl", "0"}, {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
      {"spec", {{"podCIDR", "10.244." + std::to_string(index % 256) + ".0/24"}, {"providerID", "sim://" + node}}},
      {"status",
       {{"capacity", resources},
        {"allocatable", allocatable},
        {"conditions", node_conditions(now_rfc3339())},
        {"addresses",
         {{{"type", "InternalIP"}, {"address", ip}},
          {{"type", "Hostname"}, {"address", node}},
          {{"type", "InternalDNS"}, {"address", node + ".eu-west-1.compute.internal"}}}},
        {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
        {"nodeInfo",
         {{"machineID", "ec2" + std::to_string(1000000 + index)},
          {"systemUUID", "ec2" + std::to_string(2000000 + index)},
          {"bootID", "boot-" + std::to_string(index)},
          {"kernelVersion", "6.1.0-18-cloud-amd64"},
          {"osImage", "Debian GNU/Linux 12 (bookworm)"},
          {"containerRuntimeVersion", "containerd://1.7.13"},
          {"kubeletVersion", "v1.33.0"},
          {"kubeProxyVersion", "v1.33.0"},
          {"operatingSystem", "linux"},
          {"architecture", "amd64"}}},
        {"images", node_images(index)}}}};
  return body.dump();
}

std::string node_status_patch() { return json{{"status", {{"conditions", node_conditions(now_rfc3339())}}}}.dump(); }

std::string lease_body(std::string_view name) {
  return json{{"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata", {{"name", name}, {"namespace", k_lease_namespace}}},
              {"spec", {{"holderIdentity", name}, {"leaseDurationSeconds", 40}, {"renewTime", now_rfc3339_micro()}}}}
      .dump();
}

std::string lease_renew_patch() { return json{{"spec", {{"renewTime", now_rfc3339_micro()}}}}.dump(); }

std::string pod_body(std::string_view name, std::string_view namespace_name, long index, std::string_view node) {
  const std::string app = "app-" + std::to_string(index % 50);
  auto container = [&](const char* cname, const std::string& image, int port, const char* cpu, const char* memory) {
    return json{{"name", cname},
                {"image", image},
                {"args", {"--listen=:" + std::to_string(port), "--config=/etc/app/config.yaml", "--log-level=info"}},
                {"ports", {{{"name", "http"}, {"containerPort", port}, {"protocol", "TCP"}}}},
                {"env",
                 {{{"name", "APP_NAME"}, {"value", app}},
                  {{"name", "POD_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
                  {{"name", "POD_IP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}},
                  {{"name", "GOMAXPROCS"}, {"value", "2"}}}},
                {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}, {"limits", {{"memory", memory}}}}},
                {"volumeMounts",
                 {{{"name", "config"}, {"mountPath", "/etc/app"}, {"readOnly", true}},
                  {{"name", "data"}, {"mountPath", "/var/lib/app"}}}},
                {"readinessProbe",
                 {{"httpGet", {{"path", "/ready"}, {"port", port}}}, {"periodSeconds", 5}, {"failureThreshold", 3}}},
                {"imagePullPolicy", "IfNotPresent"}};
  };
  json body = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", namespace_name},
        {"labels", {{"app", app}, {"pod-template-hash", "5d4f8c7b9"}, {"tier", "backend"}}},
        {"annotations", {{"prometheus.io/scrape", "true"}, {"prometheus.io/port", "9090"}}}}},
      {"spec",
       {{"containers",
         {container("main", "registry.example.com/shop/" + app + ":1.24." + std::to_string(index % 7), 8080, "250m",
                    "256Mi"),
          container("sidecar", "registry.example.com/infra/envoy:1.29.1", 9901, "50m", "64Mi")}},
        {"volumes",
         {{{"name", "config"}, {"configMap", {{"name", app + "-config"}}}},
          {{"name", "data"}, {"emptyDir", {{"sizeLimit", "1Gi"}}}}}},
        {"tolerations",
         {{{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"effect", "NoExecute"},
           {"tolerationSeconds", 300}}}},
        {"terminationGracePeriodSeconds", 30},
        {"serviceAccountName", "default"}}}};
  if (!node.empty()) body["spec"]["nodeName"] = node;
  return body.dump();
}

std::string pod_running_patch(std::string_view name, long index) {
  const std::string now = now_rfc3339();
  const std::string ip = "10.244." + std::to_string(index / 256 % 256) + "." + std::to_string(index % 256);
  auto condition = [&](const char* type) {
    return json{{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}};
  };
  auto status = [&](const char* cname) {
    return json{{"name", cname},
                {"ready", true},
                {"restartCount", 0},
                {"started", true},
                {"image", "registry.example.com/" + std::string(cname)},
                {"imageID", "registry.example.com/" + std::string(cname) + "@sha256:" + std::string(64, 'e')},
                {"containerID", "containerd://" + std::string(name) + "-" + cname},
                {"state", {{"running", {{"startedAt", now}}}}}};
  };
  return json{{"status",
               {{"phase", "Running"},
                {"conditions",
                 {condition("PodReadyToStartContainers"), condition("Initialized"), condition("Ready"),
                  condition("ContainersReady")}},
                {"hostIP", "10.64.0.1"},
                {"podIP", ip},
                {"podIPs", {{{"ip", ip}}}},
                {"startTime", now},
                {"containerStatuses", {status("main"), status("sidecar")}}}}}
      .dump();
}

std::string binding_body(std::string_view pod, std::string_view namespace_name, std::string_view node) {
  return json{{"apiVersion", "v1"},
              {"kind", "Binding"},
              {"metadata", {{"name", pod}, {"namespace", namespace_name}}},
              {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}}
      .dump();
}

std::string namespace_body(std::string_view name) {
  return json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump();
}

}  // namespace kw::bench::cluster
