// Pod specs (server/registry/kinds/pod_spec.hpp): SetDefaults_PodSpec and nested defaults, applied
// alike to a pod and to every pod template a row carries, and the template checks.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/registry/kinds/kind_spec.hpp"
#include "server/registry/kinds/pod_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

json bare_template() {
  return {
      {"metadata", {{"labels", {{"app", "web"}}}}},
      {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx:1.25"}, {"ports", {{{"containerPort", 80}}}}}}}}}};
}

// What SetDefaults_PodSpec and SetDefaults_Container give a bare template's spec.
void check_defaulted_spec(const json& spec) {
  CHECK(spec["dnsPolicy"] == "ClusterFirst");
  CHECK(spec["restartPolicy"] == "Always");
  CHECK(spec["schedulerName"] == "default-scheduler");
  CHECK(spec["securityContext"] == json::object());
  CHECK(spec["terminationGracePeriodSeconds"] == 30);
  const json& c = spec["containers"][0];
  CHECK(c["imagePullPolicy"] == "IfNotPresent");
  CHECK(c["terminationMessagePath"] == "/dev/termination-log");
  CHECK(c["terminationMessagePolicy"] == "File");
  CHECK(c["ports"][0]["protocol"] == "TCP");
  CHECK_FALSE(spec.contains("enableServiceLinks"));  // SetDefaults_Pod's, not a template's
}

json defaulted(const std::string& group, const std::string& plural, json object) {
  const KindSpec* row = find_kind(group, "v1", plural);
  REQUIRE(row != nullptr);
  default_object(*row, object);
  return object;
}

}  // namespace

TEST_CASE("container defaults: the pull policy follows the tag") {
  json c = {{"name", "c"}, {"image", "nginx"}};
  default_container(c);
  CHECK(c["imagePullPolicy"] == "Always");
  c = {{"name", "c"}, {"image", "registry:5000/nginx:latest"}};
  default_container(c);
  CHECK(c["imagePullPolicy"] == "Always");
  c = {{"name", "c"}, {"image", "registry:5000/nginx"}};
  default_container(c);
  CHECK(c["imagePullPolicy"] == "Always");
  c = {{"name", "c"}, {"image", "nginx@sha256:abc"}};
  default_container(c);
  CHECK(c["imagePullPolicy"] == "IfNotPresent");
  c = {{"name", "c"}, {"image", "nginx:1.25"}, {"imagePullPolicy", "Never"}};
  default_container(c);
  CHECK(c["imagePullPolicy"] == "Never");
}

TEST_CASE("volume defaults") {
  json v = {{"name", "scratch"}};
  default_volume(v);
  CHECK(v["emptyDir"] == json::object());
  v = {{"name", "cfg"}, {"configMap", {{"name", "cfg"}}}};
  default_volume(v);
  CHECK(v["configMap"]["defaultMode"] == 420);
  CHECK_FALSE(v.contains("emptyDir"));
  v = {{"name", "disk"}, {"rbd", {{"image", "i"}}}};
  default_volume(v);
  CHECK(v["rbd"] == json{{"image", "i"}, {"pool", "rbd"}, {"user", "admin"}, {"keyring", "/etc/ceph/keyring"}});
}

TEST_CASE("claim defaults, of a claim and of a StatefulSet's claim templates") {
  json claim = {{"metadata", {{"name", "data"}}}, {"spec", {{"accessModes", {"ReadWriteOnce"}}}}};
  default_persistent_volume_claim(claim);
  CHECK(claim["spec"]["volumeMode"] == "Filesystem");
  CHECK(claim["status"]["phase"] == "Pending");
}

TEST_CASE("every pod template gets the pod spec's defaults") {
  SUBCASE("apps/v1") {
    for (const char* plural : {"deployments", "replicasets", "statefulsets", "daemonsets"}) {
      CAPTURE(plural);
      const json object = defaulted("apps", plural, {{"spec", {{"template", bare_template()}}}});
      check_defaulted_spec(object["spec"]["template"]["spec"]);
    }
  }
  SUBCASE("batch/v1 Job and CronJob") {
    json job = defaulted("batch", "jobs", {{"spec", {{"template", bare_template()}}}});
    check_defaulted_spec(job["spec"]["template"]["spec"]);
    json cron =
        defaulted("batch", "cronjobs", {{"spec", {{"jobTemplate", {{"spec", {{"template", bare_template()}}}}}}}});
    check_defaulted_spec(cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]);
    CHECK_FALSE(cron["spec"]["jobTemplate"]["spec"].contains("backoffLimit"));  // the job spec is not defaulted
  }
  SUBCASE("core/v1 ReplicationController, PodTemplate and Pod") {
    json rc = defaulted("", "replicationcontrollers", {{"spec", {{"template", bare_template()}}}});
    check_defaulted_spec(rc["spec"]["template"]["spec"]);
    json pt = defaulted("", "podtemplates", {{"template", bare_template()}});
    check_defaulted_spec(pt["template"]["spec"]);
    json pod = defaulted("", "pods", bare_template());
    CHECK(pod["spec"]["enableServiceLinks"] == true);
    CHECK(pod["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent");
  }
  SUBCASE("a StatefulSet's claim templates") {
    json sts =
        defaulted("apps", "statefulsets",
                  {{"spec",
                    {{"template", bare_template()},
                     {"volumeClaimTemplates", {{{"metadata", {{"name", "data"}}}, {"spec", json::object()}}}}}}});
    CHECK(sts["spec"]["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem");
    CHECK(sts["spec"]["volumeClaimTemplates"][0]["status"]["phase"] == "Pending");
  }
}

TEST_CASE("with hostNetwork a pod's unset host ports become its container ports, a template's do not") {
  json pod = bare_template();
  pod["spec"]["hostNetwork"] = true;
  pod["spec"]["containers"][0]["ports"].push_back({{"containerPort", 9090}, {"hostPort", 9090}});
  pod["spec"]["initContainers"] = {{{"name", "init"}, {"image", "busybox"}, {"ports", {{{"containerPort", 53}}}}}};
  json deployment = defaulted("apps", "deployments", {{"spec", {{"template", pod}}}});
  pod = defaulted("", "pods", pod);
  CHECK(pod["spec"]["containers"][0]["ports"][0]["hostPort"] == 80);
  CHECK(pod["spec"]["containers"][0]["ports"][1]["hostPort"] == 9090);
  CHECK(pod["spec"]["initContainers"][0]["ports"][0]["hostPort"] == 53);
  CHECK_FALSE(deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0].contains("hostPort"));

  json plain = defaulted("", "pods", bare_template());
  CHECK_FALSE(plain["spec"]["containers"][0]["ports"][0].contains("hostPort"));
}

TEST_CASE("template checks") {
  Causes causes = Causes::array();
  json tmpl = bare_template();
  default_pod_template(tmpl);
  validate_pod_template(causes, tmpl, "spec.template");
  CHECK(causes.empty());

  tmpl["spec"]["containers"][0]["name"] = "web.1";
  tmpl["spec"]["volumes"] = {{{"name", "a.b"}, {"emptyDir", json::object()}}};
  validate_pod_template(causes, tmpl, "spec.template");
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["field"] == "spec.template.spec.volumes[0].name");
  CHECK(causes[0]["message"] == "Invalid value: \"a.b\": must not contain dots");
  CHECK(causes[1]["field"] == "spec.template.spec.containers[0].name");

  causes = Causes::array();
  const auto selector = workload_selector({{"matchLabels", {{"app", "db"}}}});
  REQUIRE(selector);
  selector_matches_template(causes, *selector, tmpl, "spec.template");
  REQUIRE(causes.size() == 1);
  CHECK(causes[0]["field"] == "spec.template.metadata.labels");
  CHECK(causes[0]["message"] ==
        "Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`");
}

TEST_CASE("workload selectors as LabelSelectorAsSelector reads them") {
  const json labels = {{"app", "web"}, {"tier", "db"}};
  const auto absent = workload_selector(nullptr);
  REQUIRE(absent);
  CHECK_FALSE(absent->empty());  // nothing: not empty, and matches no labels
  CHECK_FALSE(absent->matches(labels));
  const auto everything = workload_selector(json::object());
  REQUIRE(everything);
  CHECK(everything->empty());
  CHECK(everything->matches(labels));
  const auto expressions = workload_selector(
      {{"matchExpressions", {{{"key", "app"}, {"operator", "In"}, {"values", {"web", "api"}}},
                             {{"key", "tier"}, {"operator", "NotIn"}, {"values", {"cache"}}}}}});
  REQUIRE(expressions);
  CHECK(expressions->matches(labels));
  CHECK_FALSE(expressions->matches(json{{"app", "db"}}));
  CHECK_FALSE(workload_selector({{"matchExpressions", {{{"key", "app"}, {"operator", "Near"}}}}}));
  CHECK_FALSE(workload_selector({{"matchExpressions", {{{"key", "app"}, {"operator", "In"}}}}}));

  Causes causes = Causes::array();
  always_restarting(causes, {{"restartPolicy", "Never"}, {"activeDeadlineSeconds", 5}}, "spec.template.spec",
                    "DaemonSet");
  REQUIRE(causes.size() == 2);
  CHECK(causes[0]["message"] == "Unsupported value: \"Never\": supported values: \"Always\"");
  CHECK(causes[1]["message"] == "Forbidden: activeDeadlineSeconds in DaemonSet is not Supported");
}

TEST_CASE("ValidateTolerations") {
  Causes causes = Causes::array();
  validate_tolerations(causes,
                       json::array({{{"key", "k"}, {"operator", "Exists"}, {"value", "v"}},
                                    {{"operator", "Equal"}, {"effect", "Sometimes"}}}),
                       "spec.tolerations");
  REQUIRE(causes.size() == 3);
  CHECK(causes[0]["message"] ==
        "Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", Value:\"v\", Effect:\"\", "
        "TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'");
  CHECK(causes[1]["field"] == "spec.tolerations[1].operator");
  CHECK(causes[2]["message"] ==
        "Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
}

namespace {

// The messages ValidatePodSpec gives a defaulted spec, one per line.
std::vector<std::string> pod_spec_errors(json spec) {
  default_pod_spec(spec);
  Causes causes = json::array();
  validate_pod_spec(causes, spec, "spec");
  std::vector<std::string> out;
  for (const auto& cause : causes) out.push_back(cause["field"].get<std::string>() + ": " + cause["message"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("pod specs: container names are unique across containers and init containers") {
  const auto errors = pod_spec_errors({{"containers", {{{"name", "a"}, {"image", "x"}}, {{"name", "a"}, {"image", "x"}}}},
                                       {"initContainers", {{{"name", "a"}, {"image", "x"}}}}});
  CHECK(errors == std::vector<std::string>{"spec.containers[1].name: Duplicate value: \"a\"",
                                           "spec.initContainers[0].name: Duplicate value: \"a\""});
}

TEST_CASE("pod specs: volume mounts name a volume, once per path") {
  const auto errors = pod_spec_errors(
      {{"volumes", {{{"name", "data"}, {"emptyDir", json::object()}}}},
       {"containers",
        {{{"name", "a"},
          {"image", "x"},
          {"volumeMounts", {{{"name", "data"}, {"mountPath", "/d"}}, {{"name", "logs"}, {"mountPath", "/d"}}}}}}}});
  CHECK(errors == std::vector<std::string>{"spec.containers[0].volumeMounts[1].name: Not found: \"logs\"",
                                           "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/d\": must be unique"});
}

TEST_CASE("pod specs: requests stay within limits, hugepages and extended resources need equal ones") {
  auto errors = pod_spec_errors(
      {{"containers",
        {{{"name", "a"},
          {"image", "x"},
          {"resources", {{"limits", {{"cpu", "500m"}}}, {"requests", {{"cpu", "1"}, {"example.com/gpu", "1"}}}}}}}}});
  CHECK(errors == std::vector<std::string>{
                      "spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu "
                      "limit of 500m",
                      "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable "
                      "resources"});
  errors = pod_spec_errors(
      {{"containers",
        {{{"name", "a"},
          {"image", "x"},
          {"resources", {{"limits", {{"hugepages-2Mi", "4Mi"}, {"memory", "1Gi"}}},
                         {"requests", {{"hugepages-2Mi", "2Mi"}, {"memory", "512Mi"}}}}}}}}});
  CHECK(errors == std::vector<std::string>{"spec.containers[0].resources.requests: Invalid value: \"2Mi\": must be "
                                           "equal to hugepages-2Mi limit of 4Mi"});
}
