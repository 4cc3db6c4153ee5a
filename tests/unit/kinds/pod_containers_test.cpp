// A pod spec's containers (server/registry/kinds/pod_containers.cpp): validateContainers,
// validateInitContainers and validateContainerCommon, through the Pod and Deployment rows as
// the registry calls them. Expected texts are kube-apiserver's.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

const KindSpec& ctr_row(const char* group, const char* plural) {
  const KindSpec* found = find_kind(group, "v1", plural);
  REQUIRE(found != nullptr);
  return *found;
}

// A pod whose spec is `spec` over one container "web" running nginx.
json ctr_pod(const json& spec) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  pod["spec"].update(spec, true);
  default_object(ctr_row("", "pods"), pod);
  return pod;
}

// A pod with one container "web" (nginx) that also has `fields`.
json ctr_pod_with(const json& fields) {
  json container = {{"name", "web"}, {"image", "nginx"}};
  container.update(fields, true);
  return ctr_pod({{"containers", json::array({container})}});
}

// A create's causes as "field|message" lines.
std::string ctr_causes(json pod) {
  const Strategy& strategy = ctr_row("", "pods").strategy;
  strategy.prepare_create(pod);
  Causes causes = json::array();
  strategy.validate_create(pod, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

// A Deployment's causes, its template's spec being `spec`.
std::string ctr_template_causes(const json& spec) {
  const KindSpec& row = ctr_row("apps", "deployments");
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "d"}, {"namespace", "default"}}},
                     {"spec",
                      {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                       {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", spec}}}}}};
  default_object(row, deployment);
  Causes causes = json::array();
  if (row.strategy.validate_create)
    row.strategy.validate_create(deployment, causes);
  else
    row.strategy.validate(deployment, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("pod containers: a valid pod has no causes") { CHECK(ctr_causes(ctr_pod(json::object())).empty()); }

TEST_CASE("pod containers: at least one container") {
  CHECK(ctr_causes(ctr_pod({{"containers", json::array()}})) == "spec.containers|Required value\n");
}

TEST_CASE("pod containers: names are DNS labels, unique among init and regular containers") {
  CHECK(ctr_causes(ctr_pod({{"containers", {{{"image", "x"}}, {{"image", "x"}}}}})) ==
        "spec.containers[0].name|Required value\n"
        "spec.containers[1].name|Required value\n"
        "spec.containers[1].name|Duplicate value: \"\"\n");
  CHECK(ctr_causes(ctr_pod({{"containers", {{{"name", "Web"}, {"image", "x"}}, {{"name", "a"}}}}})) ==
        std::string("spec.containers[0].name|Invalid value: \"Web\": ") + k_label_help +
            "\nspec.containers[1].image|Required value\n");
  CHECK(ctr_causes(ctr_pod({{"initContainers", {{{"name", "web"}, {"image", "x"}}}}})) ==
        "spec.initContainers[0].name|Duplicate value: \"web\"\n");
}

TEST_CASE("pod containers: termination message and pull policies") {
  CHECK(ctr_causes(ctr_pod_with({{"terminationMessagePolicy", "Bad"}, {"imagePullPolicy", "Sometimes"}})) ==
        "spec.containers[0].terminationMessagePolicy|Unsupported value: \"Bad\": supported values: \"File\", "
        "\"FallbackToLogsOnError\"\n"
        "spec.containers[0].imagePullPolicy|Unsupported value: \"Sometimes\": supported values: \"Always\", "
        "\"IfNotPresent\", \"Never\"\n");
}

TEST_CASE("pod containers: ports") {
  const json ports = {{{"containerPort", 80}, {"name", "http"}},
                      {{"containerPort", 0}, {"name", "http"}},
                      {{"containerPort", 70000}, {"hostPort", 70000}, {"protocol", "ICMP"}, {"name", "Bad_Name"}}};
  CHECK(ctr_causes(ctr_pod_with({{"ports", ports}})) ==
        "spec.containers[0].ports[1].name|Duplicate value: \"http\"\n"
        "spec.containers[0].ports[1].containerPort|Required value\n"
        "spec.containers[0].ports[2].name|Invalid value: \"Bad_Name\": must contain only alpha-numeric characters "
        "(a-z, 0-9), and hyphens (-)\n"
        "spec.containers[0].ports[2].containerPort|Invalid value: 70000: must be between 1 and 65535, inclusive\n"
        "spec.containers[0].ports[2].hostPort|Invalid value: 70000: must be between 1 and 65535, inclusive\n"
        "spec.containers[0].ports[2].protocol|Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", "
        "\"UDP\"\n");
}

TEST_CASE("pod containers: host ports conflict across containers, and within each init container") {
  const json port = {{"containerPort", 80}, {"hostPort", 8080}};
  const json init_ports = {{{"containerPort", 80}, {"hostPort", 9090}}, {{"containerPort", 81}, {"hostPort", 9090}}};
  CHECK(ctr_causes(ctr_pod(
            {{"containers",
              {{{"name", "a"}, {"image", "x"}, {"ports", {port}}}, {{"name", "b"}, {"image", "x"}, {"ports", {port}}}}},
             {"initContainers",
              {{{"name", "i0"}, {"image", "x"}, {"ports", {port}}},
               {{"name", "i1"}, {"image", "x"}, {"ports", init_ports}}}}})) ==
        "spec.containers[1].ports[0].hostPort|Duplicate value: \"TCP//8080\"\n"
        "spec.initContainers[0].ports[1].hostPort|Duplicate value: \"TCP//9090\"\n");
}

TEST_CASE("pod containers: hostNetwork needs host ports equal to container ports") {
  const json spec = {
      {"hostNetwork", true},
      {"containers", {{{"name", "web"}, {"image", "x"}, {"ports", {{{"containerPort", 80}, {"hostPort", 81}}}}}}},
      {"initContainers", {{{"name", "web"}, {"image", "x"}}}}};
  CHECK(ctr_causes(ctr_pod(spec)) ==
        "spec.initContainers[0].name|Duplicate value: \"web\"\n"
        "spec.containers[0].ports[0].hostPort|Invalid value: 81: must match `containerPort` when `hostNetwork` is "
        "true\n");
  CHECK(ctr_template_causes({{"hostNetwork", true},
                             {"containers", {{{"name", "web"}, {"image", "x"}, {"ports", {{{"containerPort", 80}}}}}}}})
            .empty());
}

TEST_CASE("pod containers: env") {
  const json env = {
      {{"name", ""}},
      {{"name", "A=B"}, {"value", "x"}},
      {{"name", "X"}, {"valueFrom", json::object()}},
      {{"name", "Y"}, {"value", "v"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}},
      {{"name", "Z"},
       {"valueFrom",
        {{"configMapKeyRef", {{"name", "Bad"}, {"key", ""}}}, {"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}}};
  const std::string p = "spec.containers[0].env";
  CHECK(ctr_causes(ctr_pod_with({{"env", env}})) ==
        p + "[0].name|Required value\n" + p +
            "[1].name|Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII "
            "characters other than '='\n" +
            p +
            "[2].valueFrom|Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, "
            "`configMapKeyRef` or `secretKeyRef`\n" +
            p + "[3].valueFrom|Invalid value: \"\": may not be specified when `value` is not empty\n" + p +
            "[4].valueFrom.configMapKeyRef.name|Invalid value: \"Bad\": " + k_subdomain_help + "\n" + p +
            "[4].valueFrom.configMapKeyRef.key|Required value\n" + p +
            "[4].valueFrom|Invalid value: \"\": may not have more than one field specified at a time\n");
}

TEST_CASE("pod containers: envFrom") {
  const json sources = {
      {{"prefix", "1="}, {"configMapRef", {{"name", "cm-"}}}}, json::object(), {{"secretRef", {{"name", ""}}}}};
  const std::string p = "spec.containers[0].envFrom";
  CHECK(ctr_causes(ctr_pod_with({{"envFrom", sources}})) ==
        p +
            "[0].prefix|Invalid value: \"1=\": a valid environment variable name must consist only of printable "
            "ASCII characters other than '='\n" +
            p + "|Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`\n" + p +
            "[2].secretRef.name|Required value\n");
}

TEST_CASE("pod containers: volume mounts and devices") {
  const json volumes = {{{"name", "data"}, {"emptyDir", json::object()}},
                        {{"name", "claim"}, {"persistentVolumeClaim", {{"claimName", "c"}}}}};
  const json mounts = {
      {{"name", "data"}, {"mountPath", "/d"}, {"subPath", "/abs"}, {"mountPropagation", "Bidirectional"}},
      {{"name", "missing"}, {"mountPath", "/d"}, {"subPath", "a"}, {"subPathExpr", "b"}},
      {{"name", "data"}, {"mountPath", "/r"}, {"recursiveReadOnly", "Enabled"}}};
  const json devices = {{{"name", "data"}, {"devicePath", "/d"}}, {{"name", "claim"}, {"devicePath", "/x/../y"}}};
  const json container = {{"name", "web"}, {"image", "x"}, {"volumeMounts", mounts}, {"volumeDevices", devices}};
  const std::string m = "spec.containers[0].volumeMounts";
  const std::string d = "spec.containers[0].volumeDevices";
  CHECK(ctr_causes(ctr_pod({{"volumes", volumes}, {"containers", {container}}})) ==
        m + "[0].name|Invalid value: \"data\": must not already exist in volumeDevices\n" + m +
            "[0].mountPath|Invalid value: \"/d\": must not already exist as a path in volumeDevices\n" + m +
            ".subPath|Invalid value: \"/abs\": must be a relative path\n" + m +
            ".mountPropagation|Forbidden: Bidirectional mount propagation is available only to privileged "
            "containers\n" +
            m + "[1].name|Not found: \"missing\"\n" + m + "[1].mountPath|Invalid value: \"/d\": must be unique\n" + m +
            "[1].mountPath|Invalid value: \"/d\": must not already exist as a path in volumeDevices\n" + m +
            "[1].subPathExpr|Invalid value: \"b\": subPathExpr and subPath are mutually exclusive\n" + m +
            "[2].name|Invalid value: \"data\": must not already exist in volumeDevices\n" + m +
            ".recursiveReadOnly|Forbidden: may only be specified when readOnly is true\n" + d +
            "[0].name|Invalid value: \"data\": can only use volume source type of PersistentVolumeClaim or Ephemeral "
            "for block mode\n" +
            d + "[0].name|Invalid value: \"data\": must not already exist in volumeMounts\n" + d +
            "[0].devicePath|Invalid value: \"/d\": must not already exist as a path in volumeMounts\n" + d +
            "[1].devicePath|Invalid value: \"/x/../y\": can not contain backsteps ('..')\n");
}

TEST_CASE("pod containers: mount propagation and recursive read-only values") {
  const json volumes = {{{"name", "data"}, {"emptyDir", json::object()}}};
  const json mounts = {{{"name", "data"}, {"mountPath", "/a"}, {"mountPropagation", "Sideways"}},
                       {{"name", "data"},
                        {"mountPath", "/b"},
                        {"readOnly", true},
                        {"mountPropagation", "HostToContainer"},
                        {"recursiveReadOnly", "IfPossible"}},
                       {{"name", "data"}, {"mountPath", "/c"}, {"recursiveReadOnly", "Sometimes"}}};
  const json container = {{"name", "web"}, {"image", "x"}, {"volumeMounts", mounts}};
  const std::string m = "spec.containers[0].volumeMounts";
  CHECK(ctr_causes(ctr_pod({{"volumes", volumes}, {"containers", {container}}})) ==
        m +
            ".mountPropagation|Unsupported value: \"Sideways\": supported values: \"Bidirectional\", "
            "\"HostToContainer\", \"None\"\n" +
            m + ".recursiveReadOnly|Forbidden: may only be specified when mountPropagation is None or not specified\n" +
            m +
            ".recursiveReadOnly|Unsupported value: \"Sometimes\": supported values: \"Disabled\", \"Enabled\", "
            "\"IfPossible\"\n");
}

TEST_CASE("pod containers: resources") {
  // Requests default to the limits, so both carry the bad hugepages quantity.
  CHECK(ctr_causes(ctr_pod_with({{"resources", {{"limits", {{"hugepages-2Mi", "3Mi"}}}}}})) ==
        "spec.containers[0].resources.limits[hugepages-2Mi]|Invalid value: \"3Mi\": 3Mi is not positive integer "
        "multiple of hugepages-2Mi\n"
        "spec.containers[0].resources.requests[hugepages-2Mi]|Invalid value: \"3Mi\": 3Mi is not positive integer "
        "multiple of hugepages-2Mi\n"
        "spec.containers[0].resources|Forbidden: HugePages require cpu or memory\n");
  CHECK(ctr_causes(ctr_pod_with({{"resources", {{"requests", {{"cpu", "2"}}}, {"limits", {{"cpu", "1"}}}}}})) ==
        "spec.containers[0].resources.requests|Invalid value: \"2\": must be less than or equal to cpu limit of 1\n");
  CHECK(ctr_causes(ctr_pod_with({{"resources", {{"claims", {{{"name", "gpu"}}, {{"name", ""}}}}}}})) ==
        "spec.containers[0].resources.claims[0]|Not found: \"gpu\": must be one of the names in "
        "pod.spec.resourceClaims which is empty\n"
        "spec.containers[0].resources.claims[1]|Required value\n");
}

TEST_CASE("pod containers: resize policy") {
  const json policies = {{{"resourceName", "cpu"}, {"restartPolicy", "RestartContainer"}},
                         {{"resourceName", "cpu"}, {"restartPolicy", "Maybe"}},
                         {{"resourceName", "gpu"}, {"restartPolicy", "NotRequired"}}};
  CHECK(ctr_causes(ctr_pod_with({{"resizePolicy", policies}})) ==
        "spec.containers[0].resizePolicy[1]|Duplicate value: \"cpu\"\n"
        "spec.containers[0].resizePolicy|Unsupported value: \"Maybe\": supported values: \"NotRequired\", "
        "\"RestartContainer\"\n"
        "spec.containers[0].resizePolicy|Unsupported value: \"gpu\": supported values: \"cpu\", \"memory\"\n");
  const json restart = {{{"resourceName", "cpu"}, {"restartPolicy", "RestartContainer"}}};
  CHECK(ctr_causes(ctr_pod({{"restartPolicy", "Never"},
                            {"containers", {{{"name", "web"}, {"image", "x"}, {"resizePolicy", restart}}}}})) ==
        "spec.containers[0].resizePolicy|Invalid value: \"RestartContainer\": must be 'NotRequired' when "
        "`restartPolicy` is 'Never'\n");
  // Init containers may carry one too (InPlacePodVerticalScaling is on), held to the same rules.
  const json init = {{{"name", "init"},
                      {"image", "x"},
                      {"resizePolicy", {{{"resourceName", "gpu"}, {"restartPolicy", "NotRequired"}}}}}};
  CHECK(ctr_causes(ctr_pod({{"initContainers", init}})) ==
        "spec.initContainers[0].resizePolicy|Unsupported value: \"gpu\": supported values: \"cpu\", \"memory\"\n");
}

TEST_CASE("pod containers: security context") {
  const json sc = {{"runAsUser", -1},
                   {"runAsGroup", 2147483648},
                   {"procMount", "Unmasked"},
                   {"seccompProfile", {{"type", "RuntimeDefault"}, {"localhostProfile", "x"}}},
                   {"windowsOptions", {{"runAsUserName", "a\\b\\c"}, {"gmsaCredentialSpec", ""}}}};
  const std::string p = "spec.containers[0].securityContext";
  CHECK(ctr_causes(ctr_pod_with({{"securityContext", sc}})) ==
        p + ".runAsUser|Invalid value: -1: must be between 0 and 2147483647, inclusive\n" + p +
            ".runAsGroup|Invalid value: 2147483648: must be between 0 and 2147483647, inclusive\n" + p +
            ".procMount|Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`\n" + p +
            ".seccompProfile.localhostProfile|Invalid value: core.SeccompProfile{Type:\"RuntimeDefault\", "
            "LocalhostProfile:(*string)(0xc000010000)}: can only be set when seccomp type is Localhost\n" +
            p +
            ".windowsOptions.gmsaCredentialSpec|Invalid value: \"\": gmsaCredentialSpec cannot be an empty string\n" +
            p +
            ".windowsOptions.runAsUserName|Invalid value: \"a\\\\b\\\\c\": runAsUserName cannot contain more than one "
            "backslash\n");
  CHECK(ctr_causes(ctr_pod_with(
            {{"securityContext", {{"procMount", "Masked"}, {"seccompProfile", {{"type", "Localhost"}}}}}})) ==
        p + ".procMount|Unsupported value: \"Masked\": supported values: \"Default\", \"Unmasked\"\n" + p +
            ".seccompProfile.localhostProfile|Required value: must be set when seccomp type is Localhost\n");
  CHECK(ctr_causes(ctr_pod({{"hostUsers", false},
                            {"containers",
                             {{{"name", "web"}, {"image", "x"}, {"securityContext", {{"procMount", "Unmasked"}}}}}}}))
            .empty());
}

TEST_CASE("pod containers: privilege escalation switched off") {
  const json sc = {{"allowPrivilegeEscalation", false}, {"capabilities", {{"add", {"CAP_SYS_ADMIN"}}}}};
  CHECK(ctr_causes(ctr_pod_with({{"securityContext", sc}})) ==
        "spec.containers[0].securityContext|Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)("
        "0xc000010000), Privileged:(*bool)(nil), SELinuxOptions:(*core.SELinuxOptions)(nil), "
        "WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(nil), "
        "RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), "
        "AllowPrivilegeEscalation:(*bool)(0xc000010000), ProcMount:(*core.ProcMountType)(nil), "
        "SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set "
        "`allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN\n");
}

TEST_CASE("pod containers: Windows user names") {
  const std::string p = "spec.containers[0].securityContext.windowsOptions.runAsUserName";
  const auto causes_for = [](const std::string& user) {
    return ctr_causes(ctr_pod_with({{"securityContext", {{"windowsOptions", {{"runAsUserName", user}}}}}}));
  };
  CHECK(causes_for("DOMAIN\\us:er") ==
        p + "|Invalid value: \"DOMAIN\\\\us:er\": runAsUserName's User cannot contain the following characters: "
            "\"/\\:;|=,+*?<>@[]\n");
  CHECK(causes_for("..") == p + "|Invalid value: \"..\": runAsUserName's User cannot contain only periods or spaces\n");
  CHECK(causes_for("bad*domain\\user") ==
        p + "|Invalid value: \"bad*domain\\\\user\": runAsUserName's Domain doesn't match the NetBios nor the DNS "
            "format\n");
  CHECK(causes_for("example.com\\user").empty());
}

TEST_CASE("pod containers: probes") {
  const json liveness = {{"exec", {{"command", {"true"}}}},
                         {"httpGet", {{"port", 80}}},
                         {"successThreshold", 2},
                         {"initialDelaySeconds", -1}};
  const json readiness = {{"tcpSocket", {{"port", "Bad Name"}}}, {"terminationGracePeriodSeconds", 0}};
  const std::string p = "spec.containers[0]";
  CHECK(ctr_causes(ctr_pod_with(
            {{"livenessProbe", liveness}, {"readinessProbe", readiness}, {"startupProbe", json::object()}})) ==
        p + ".livenessProbe.httpGet|Forbidden: may not specify more than 1 handler type\n" + p +
            ".livenessProbe.initialDelaySeconds|Invalid value: -1: must be greater than or equal to 0\n" + p +
            ".livenessProbe.successThreshold|Invalid value: 2: must be 1\n" + p +
            ".readinessProbe.tcpSocket.port|Invalid value: \"Bad Name\": must contain only alpha-numeric characters "
            "(a-z, 0-9), and hyphens (-)\n" +
            p + ".readinessProbe.terminationGracePeriodSeconds|Invalid value: 0: must be greater than 0\n" + p +
            ".readinessProbe.terminationGracePeriodSeconds|Invalid value: 0: must not be set for readinessProbes\n" +
            p + ".startupProbe|Required value: must specify a handler type\n");
  CHECK(ctr_causes(ctr_pod_with({{"startupProbe", {{"grpc", {{"port", 0}}}}}})) ==
        p + ".startupProbe.grpc.port|Invalid value: 0: must be between 1 and 65535, inclusive\n");
}

TEST_CASE("pod containers: lifecycle hooks") {
  const json lifecycle = {
      {"postStart",
       {{"httpGet", {{"port", 8080}, {"scheme", "FTP"}, {"httpHeaders", {{{"name", "Bad Header"}, {"value", "x"}}}}}}}},
      {"preStop", {{"sleep", {{"seconds", 31}}}}}};
  const std::string p = "spec.containers[0].lifecycle";
  CHECK(
      ctr_causes(ctr_pod_with({{"lifecycle", lifecycle}})) ==
      p + ".postStart.httpGet.scheme|Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\"\n" + p +
          ".postStart.httpGet.httpHeaders|Invalid value: \"Bad Header\": a valid HTTP header must consist of "
          "alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')\n" +
          p +
          ".preStop.sleep|Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)\n");
  CHECK(ctr_causes(ctr_pod_with({{"lifecycle", {{"preStop", {{"sleep", {{"seconds", 0}}}}}}}})).empty());
  CHECK(ctr_causes(ctr_pod_with({{"lifecycle", {{"preStop", {{"exec", json::object()}}}}}})) ==
        p + ".preStop.exec.command|Required value\n");
}

TEST_CASE("pod containers: restartPolicy, probes and hooks of init containers and sidecars") {
  const json init = {
      {{"name", "init"},
       {"image", "x"},
       {"restartPolicy", "Never"},
       {"lifecycle", {{"preStop", {{"exec", {{"command", {"x"}}}}}}}},
       {"livenessProbe", {{"exec", {{"command", {"x"}}}}}}},
      {{"name", "web"}, {"image", "x"}},
      {{"name", "side"}, {"image", "x"}, {"restartPolicy", "Always"}, {"readinessProbe", {{"exec", json::object()}}}}};
  const json containers = {{{"name", "web"}, {"image", "x"}, {"restartPolicy", "Always"}}};
  CHECK(ctr_causes(ctr_pod({{"containers", containers}, {"initContainers", init}})) ==
        "spec.containers[0].restartPolicy|Forbidden: may not be set for non-init containers\n"
        "spec.initContainers[0].restartPolicy|Unsupported value: \"Never\": supported values: \"Always\"\n"
        "spec.initContainers[0].lifecycle|Forbidden: may not be set for init containers without restartPolicy=Always\n"
        "spec.initContainers[0].livenessProbe|Forbidden: may not be set for init containers without "
        "restartPolicy=Always\n"
        "spec.initContainers[1].name|Duplicate value: \"web\"\n"
        "spec.initContainers[2].readinessProbe.exec.command|Required value\n");
}

TEST_CASE("pod containers: pod templates are held to the same rules") {
  CHECK(ctr_template_causes({{"containers", {{{"name", "web"}, {"image", "x"}, {"imagePullPolicy", "Sometimes"}}}}}) ==
        "spec.template.spec.containers[0].imagePullPolicy|Unsupported value: \"Sometimes\": supported values: "
        "\"Always\", \"IfNotPresent\", \"Never\"\n");
}
