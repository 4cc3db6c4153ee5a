#include <doctest/doctest.h>

#include "core/api/table.hpp"
#include "server/registry/kinds/kind_spec.hpp"

using kw::api::ColumnDefinition;
using kw::api::format_age;
using kw::api::ResourceInfo;
using kw::api::table_cells;
using nlohmann::json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

namespace {

// 2024-05-01T12:00:00Z
const auto k_now = std::chrono::system_clock::time_point(std::chrono::sys_days(std::chrono::year(2024) / 5 / 1)) + hours(12);

// The row of a built-in kind, as the server's Table uses it.
ResourceInfo info_for(const std::string& group, const std::string& kind) {
  for (const auto& info : kw::kinds::builtin_table().all())
    if (info.group == group && info.kind == kind) return info;
  FAIL("no row for " << group << "/" << kind);
  return {};
}

std::vector<ColumnDefinition> builtin_columns(const std::string& group, const std::string& kind) {
  return info_for(group, kind).columns;
}

json cells(std::string group, std::string kind, std::string_view object) {
  return table_cells(info_for(std::move(group), std::move(kind)), json::parse(object), k_now);
}

}  // namespace

TEST_CASE("format_age follows duration.HumanDuration") {
  CHECK(format_age(seconds(-2)) == "<invalid>");
  CHECK(format_age(seconds(-1)) == "0s");
  CHECK(format_age(seconds(0)) == "0s");
  CHECK(format_age(seconds(5)) == "5s");
  CHECK(format_age(seconds(119)) == "119s");
  CHECK(format_age(seconds(120)) == "2m");
  CHECK(format_age(seconds(182)) == "3m2s");
  CHECK(format_age(seconds(599)) == "9m59s");
  CHECK(format_age(minutes(10) + seconds(30)) == "10m");
  CHECK(format_age(minutes(59)) == "59m");
  CHECK(format_age(hours(3) - seconds(1)) == "179m");
  CHECK(format_age(hours(3)) == "3h");
  CHECK(format_age(hours(4)) == "4h");
  CHECK(format_age(hours(4) + minutes(10)) == "4h10m");
  CHECK(format_age(hours(8) + minutes(10)) == "8h");
  CHECK(format_age(hours(47)) == "47h");
  CHECK(format_age(hours(48)) == "2d");
  CHECK(format_age(hours(51)) == "2d3h");
  CHECK(format_age(hours(24 * 8)) == "8d");
  CHECK(format_age(hours(24 * 12 + 5)) == "12d");
  CHECK(format_age(hours(24 * 729)) == "729d");
  CHECK(format_age(hours(24 * 730)) == "2y");
  CHECK(format_age(hours(24 * (3 * 365 + 45))) == "3y45d");
  CHECK(format_age(hours(24 * 365 * 8)) == "8y");
  CHECK(format_age(hours(24 * 365 * 10 + 24 * 100)) == "10y");
}

TEST_CASE("age_since parses RFC 3339") {
  CHECK(kw::api::age_since(json("2024-05-01T11:59:55Z"), k_now) == "5s");
  CHECK(kw::api::age_since(json("2024-05-01T13:59:55+02:00"), k_now) == "5s");
  CHECK(kw::api::age_since(json("2024-05-01T11:59:54.999999Z"), k_now) == "5s");
  CHECK(kw::api::age_since(json(nullptr), k_now) == "<unknown>");
  CHECK(kw::api::age_since(json("yesterday"), k_now) == "<invalid>");
  CHECK(kw::api::age_since(json("2024-05-01T12:00:10Z"), k_now) == "<invalid>");
}

TEST_CASE("builtin_columns match kube-apiserver") {
  auto pod = builtin_columns("", "Pod");
  REQUIRE(pod.size() == 9);
  std::vector<std::string> names;
  for (const auto& c : pod) names.push_back(c.name);
  CHECK(names == std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"});
  CHECK(pod[0].format == "name");
  CHECK(pod[0].priority == 0);
  CHECK(pod[4].priority == 0);
  CHECK(pod[5].priority == 1);
  CHECK(pod[1].description == "The aggregate readiness state of this pod for accepting traffic.");
  auto rs = builtin_columns("apps", "ReplicaSet");
  CHECK(rs[1].name == "Desired");
  CHECK(rs[1].type == "integer");
  auto deploy = builtin_columns("apps", "Deployment");
  CHECK(deploy[2].name == "Up-to-date");
  CHECK(deploy[2].type == "string");
  CHECK(deploy[7].priority == 1);
  auto event = builtin_columns("", "Event");
  CHECK(event[0].name == "Last Seen");
  CHECK(event[9].format == "name");
  auto other = kw::api::default_columns();
  REQUIRE(other.size() == 2);
  CHECK(other[1].name == "Created At");
  CHECK(other[1].type == "date");
  CHECK(static_cast<bool>(info_for("apps", "DaemonSet").printer));
}

TEST_CASE("pod rows: crash loop with restarts") {
  auto row = cells("", "Pod", R"({"metadata":{"name":"web","creationTimestamp":"2024-05-01T11:55:00Z"},
    "spec":{"nodeName":"node-1","containers":[{"name":"app"},{"name":"helper"}]},
    "status":{"phase":"Running","podIP":"10.1.2.3","podIPs":[{"ip":"10.1.2.3"}],"containerStatuses":[
      {"name":"app","ready":true,"restartCount":0,"state":{"running":{"startedAt":"2024-05-01T11:55:10Z"}}},
      {"name":"helper","ready":false,"restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
       "lastState":{"terminated":{"exitCode":1,"finishedAt":"2024-05-01T11:58:00Z"}}}]}})");
  CHECK(row == json::array({"web", "1/2", "CrashLoopBackOff", "4 (2m ago)", "5m", "10.1.2.3", "node-1", "<none>", "<none>"}));
}

TEST_CASE("pod rows: init containers") {
  auto waiting = cells("", "Pod", R"({"metadata":{"name":"init","creationTimestamp":"2024-04-28T08:00:00Z"},
    "spec":{"initContainers":[{"name":"a"},{"name":"b"}],"containers":[{"name":"app"}]},
    "status":{"phase":"Pending","initContainerStatuses":[
      {"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
      {"name":"b","state":{"waiting":{"reason":"PodInitializing"}}}],
     "containerStatuses":[{"name":"app","state":{"waiting":{"reason":"PodInitializing"}}}]}})");
  CHECK(waiting == json::array({"init", "0/1", "Init:1/2", "0", "3d4h", "<none>", "<none>", "<none>", "<none>"}));

  auto failed = cells("", "Pod", R"({"metadata":{"name":"f"},"spec":{"initContainers":[{"name":"a"}],"containers":[{"name":"app"}]},
    "status":{"phase":"Pending","initContainerStatuses":[{"name":"a","restartCount":2,"state":{"terminated":{"exitCode":1}}}]}})");
  CHECK(failed[2] == "Init:ExitCode:1");
  CHECK(failed[3] == "2");
  CHECK(failed[4] == "<unknown>");

  auto signal = cells("", "Pod", R"({"metadata":{"name":"s"},"spec":{"initContainers":[{"name":"a"}],"containers":[{"name":"app"}]},
    "status":{"initContainerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}}]}})");
  CHECK(signal[2] == "Init:Signal:9");

  auto crash = cells("", "Pod", R"({"metadata":{"name":"c"},"spec":{"initContainers":[{"name":"a"}],"containers":[{"name":"app"}]},
    "status":{"initContainerStatuses":[{"name":"a","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})");
  CHECK(crash[2] == "Init:CrashLoopBackOff");
}

TEST_CASE("pod rows: sidecars count as containers") {
  auto row = cells("", "Pod", R"({"metadata":{"name":"side"},
    "spec":{"initContainers":[{"name":"proxy","restartPolicy":"Always"}],"containers":[{"name":"app"}]},
    "status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"}],
     "initContainerStatuses":[{"name":"proxy","ready":true,"started":true,"restartCount":1,"state":{"running":{}},
       "lastState":{"terminated":{"exitCode":2,"finishedAt":"2024-05-01T10:00:00Z"}}}],
     "containerStatuses":[{"name":"app","ready":true,"state":{"running":{}}}]}})");
  CHECK(row[1] == "2/2");
  CHECK(row[2] == "Running");
  CHECK(row[3] == "1 (120m ago)");
}

TEST_CASE("pod rows: terminating, completed, node lost, gates") {
  auto terminating = cells("", "Pod", R"({"metadata":{"name":"t","deletionTimestamp":"2024-05-01T11:59:00Z"},
    "spec":{"containers":[{"name":"app"}],"readinessGates":[{"conditionType":"example.com/ready"}]},
    "status":{"phase":"Running","conditions":[{"type":"example.com/ready","status":"True"}],
     "containerStatuses":[{"name":"app","ready":true,"state":{"running":{}}}]}})");
  CHECK(terminating[1] == "1/1");
  CHECK(terminating[2] == "Terminating");
  CHECK(terminating[8] == "1/1");

  auto done = cells("", "Pod", R"({"metadata":{"name":"job"},"spec":{"containers":[{"name":"app"}]},
    "status":{"phase":"Succeeded","containerStatuses":[{"name":"app","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})");
  CHECK(done[1] == "0/1");
  CHECK(done[2] == "Completed");

  auto lost = cells("", "Pod", R"({"metadata":{"name":"l","deletionTimestamp":"2024-05-01T11:00:00Z"},"spec":{"containers":[]},
    "status":{"phase":"Running","reason":"NodeLost"}})");
  CHECK(lost[2] == "Unknown");

  auto gated = cells("", "Pod", R"({"metadata":{"name":"g"},"spec":{"containers":[{"name":"a"}]},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}})");
  CHECK(gated[2] == "SchedulingGated");

  auto oomkilled = cells("", "Pod", R"({"metadata":{"name":"o"},"spec":{"containers":[{"name":"a"}]},
    "status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}})");
  CHECK(oomkilled[2] == "OOMKilled");
}

TEST_CASE("rows for the other built-in kinds") {
  CHECK(cells("", "Namespace", R"({"metadata":{"name":"default","creationTimestamp":"2024-04-01T12:00:00Z"},"status":{"phase":"Active"}})") ==
        json::array({"default", "Active", "30d"}));
  CHECK(cells("", "Service", R"({"metadata":{"name":"web","creationTimestamp":"2024-05-01T11:00:00Z"},
      "spec":{"type":"ClusterIP","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"selector":{"tier":"fe","app":"web"},
       "ports":[{"port":80,"protocol":"TCP"},{"port":443,"name":"https"}]}})") ==
        json::array({"web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,443/TCP", "60m", "app=web,tier=fe"}));
  auto node_port = cells("", "Service", R"({"metadata":{"name":"np"},"spec":{"type":"NodePort","clusterIP":"10.0.0.1",
      "externalIPs":["1.1.1.1"],"ports":[{"port":80,"nodePort":30080,"protocol":"UDP"}]}})");
  CHECK(node_port[3] == "1.1.1.1");
  CHECK(node_port[4] == "80:30080/UDP");
  CHECK(node_port[6] == "<none>");
  auto lb = cells("", "Service", R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"},{"hostname":"lb.example.com"}]}}})");
  CHECK(lb[3] == "1.2.3.4,lb.example.com");
  CHECK(cells("", "Service", R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer"}})")[3] == "<pending>");
  CHECK(cells("", "Service", R"({"metadata":{"name":"x"},"spec":{"type":"ExternalName","externalName":"db.example.com"}})")[3] == "db.example.com");

  CHECK(cells("", "ConfigMap", R"({"metadata":{"name":"cm","creationTimestamp":"2024-05-01T11:59:00Z"},"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}})") ==
        json::array({"cm", 3, "60s"}));
  CHECK(cells("", "Secret", R"({"metadata":{"name":"s"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}})") ==
        json::array({"s", "kubernetes.io/tls", 2, "<unknown>"}));
  CHECK(cells("", "ServiceAccount", R"({"metadata":{"name":"default"},"secrets":[{"name":"t"}]})") == json::array({"default", 1, "<unknown>"}));
  CHECK(cells("", "Endpoints", R"({"metadata":{"name":"web"},"subsets":[
      {"addresses":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"ports":[{"port":80}]},
      {"addresses":[{"ip":"fd00::1"},{"ip":"10.0.0.4"}],"ports":[{"port":8080}]}]})")[1] ==
        "10.0.0.1:80,10.0.0.2:80,[fd00::1]:8080 + 1 more...");
  CHECK(cells("", "Endpoints", R"({"metadata":{"name":"none"}})")[1] == "<none>");
  CHECK(cells("", "Endpoints", R"({"metadata":{"name":"headless"},"subsets":[{"addresses":[{"ip":"10.0.0.9"}]}]})")[1] == "10.0.0.9");

  CHECK(cells("", "Event", R"({"metadata":{"name":"web.17a"},"type":"Warning","reason":"BackOff",
      "involvedObject":{"kind":"Pod","name":"web","fieldPath":"spec.containers{app}"},"source":{"component":"kubelet","host":"node-1"},
      "message":"  Back-off restarting failed container\n","firstTimestamp":"2024-05-01T11:50:00Z","lastTimestamp":"2024-05-01T11:59:00Z","count":5})") ==
        json::array({"60s", "Warning", "BackOff", "pod/web", "spec.containers{app}", "kubelet, node-1", "Back-off restarting failed container", "10m", 5, "web.17a"}));
  auto series = cells("", "Event", R"({"metadata":{"name":"e"},"eventTime":"2024-05-01T11:00:00.000000Z","reportingComponent":"sched",
      "series":{"count":7,"lastObservedTime":"2024-05-01T11:58:00.123456Z"},"involvedObject":{"kind":"Node"}})");
  CHECK(series[0] == "119s");  // 119.88 s truncates, as Go does
  CHECK(series[3] == "node");
  CHECK(series[5] == "sched");
  CHECK(series[7] == "60m");
  CHECK(series[8] == 7);

  CHECK(cells("", "Node", R"({"metadata":{"name":"n1","creationTimestamp":"2024-04-30T12:00:00Z",
      "labels":{"node-role.kubernetes.io/control-plane":"","kubernetes.io/role":"master","node-role.kubernetes.io/":"x"}},
      "spec":{"unschedulable":true},"status":{"conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
      "addresses":[{"type":"Hostname","address":"n1"},{"type":"InternalIP","address":"192.168.1.10"}],
      "nodeInfo":{"kubeletVersion":"v1.29.0","osImage":"Debian GNU/Linux 12 bookworm","containerRuntimeVersion":"containerd://1.7.0"}}})") ==
        json::array({"n1", "Ready,SchedulingDisabled", "control-plane,master", "24h", "v1.29.0", "192.168.1.10", "<none>",
                     "Debian GNU/Linux 12 bookworm", "<unknown>", "containerd://1.7.0"}));
  CHECK(cells("", "Node", R"({"metadata":{"name":"n2"},"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}})")[1] == "NotReady");
  CHECK(cells("", "Node", R"({"metadata":{"name":"n3"}})")[1] == "Unknown");
}

TEST_CASE("rows for workloads") {
  CHECK(cells("apps", "Deployment", R"({"metadata":{"name":"web","creationTimestamp":"2024-05-01T07:50:00Z"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[
        {"name":"nginx","image":"nginx:1.25"},{"name":"log","image":"busybox"}]}}},
      "status":{"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}})") ==
        json::array({"web", "2/3", 3, 2, "4h10m", "nginx,log", "nginx:1.25,busybox", "app=web"}));
  CHECK(cells("apps", "Deployment", R"({"metadata":{"name":"d"},"spec":{"selector":{}}})")[1] == "0/1");
  CHECK(cells("apps", "ReplicaSet", R"({"metadata":{"name":"web-5d4"},"spec":{"replicas":2,
      "selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"pod-template-hash","operator":"In","values":["5d4"]}]},
      "template":{"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}},"status":{"replicas":2,"readyReplicas":1}})") ==
        json::array({"web-5d4", 2, 2, 1, "<unknown>", "nginx", "nginx", "app=web,pod-template-hash in (5d4)"}));
  CHECK(cells("apps", "StatefulSet", R"({"metadata":{"name":"db"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"pg","image":"postgres:16"}]}}},
      "status":{"readyReplicas":3}})") == json::array({"db", "3/3", "<unknown>", "pg", "postgres:16"}));
  CHECK(cells("apps", "DaemonSet", R"({"metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"app":"agent"}},
      "template":{"spec":{"nodeSelector":{"kubernetes.io/os":"linux"},"containers":[{"name":"a","image":"agent:1"}]}}},
      "status":{"desiredNumberScheduled":4,"currentNumberScheduled":4,"numberReady":3,"updatedNumberScheduled":4,"numberAvailable":3}})") ==
        json::array({"agent", 4, 4, 3, 4, 3, "kubernetes.io/os=linux", "<unknown>", "a", "agent:1", "app=agent"}));
}

TEST_CASE("columns past a printer's cells, or with a JSONPath, are read generically") {
  ResourceInfo info = info_for("", "ConfigMap");
  info.columns.push_back(ColumnDefinition{"Key", "string", "", "", 0, ".data.a"});
  info.columns[1].json_path = ".metadata.namespace";
  auto row = table_cells(info, json::parse(R"({"metadata":{"name":"cm","namespace":"ns"},"data":{"a":"1"}})"), k_now);
  CHECK(row == json::array({"cm", "ns", "<unknown>", "1"}));
}

TEST_CASE("custom resources: JSONPath columns") {
  ResourceInfo info;
  info.group = "example.com";
  info.kind = "Widget";
  info.columns = {
      ColumnDefinition{"Name", "string", "name", "", 0, ""},
      ColumnDefinition{"Replicas", "integer", "", "", 0, ".spec.replicas"},
      ColumnDefinition{"Phase", "string", "", "", 0, ".status.phase"},
      ColumnDefinition{"Ready", "boolean", "", "", 0, ".status.ready"},
      ColumnDefinition{"Image", "string", "", "", 1, ".spec.containers[0].image"},
      ColumnDefinition{"Last", "string", "", "", 1, ".spec.containers[-1]['name']"},
      ColumnDefinition{"Ratio", "number", "", "", 1, ".status.ratio"},
      ColumnDefinition{"Obj", "string", "", "", 1, ".spec.selector"},
      ColumnDefinition{"Missing", "string", "", "", 1, ".status.nothing"},
      ColumnDefinition{"Age", "date", "", "", 0, ".metadata.creationTimestamp"},
  };
  auto row = table_cells(info, json::parse(R"({"metadata":{"name":"w1","creationTimestamp":"2024-05-01T11:00:00Z"},
      "spec":{"replicas":3.0,"containers":[{"name":"a","image":"img:1"},{"name":"b"}],"selector":{"k":"v"}},
      "status":{"phase":"Ready","ready":true,"ratio":2}})"),
                         k_now);
  CHECK(row == json::array({"w1", 3, "Ready", true, "img:1", "b", 2.0, R"({"k":"v"})", nullptr, "60m"}));

  ResourceInfo bare;
  bare.group = "example.com";
  bare.kind = "Gadget";
  CHECK(table_cells(bare, json::parse(R"({"metadata":{"name":"g","creationTimestamp":"2024-05-01T11:59:30Z"}})"), k_now) ==
        json::array({"g", "30s"}));
}
