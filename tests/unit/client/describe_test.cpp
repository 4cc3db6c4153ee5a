#include <doctest/doctest.h>

#include "cli/print/describe_kinds.hpp"
#include "cli/print/describe_parts.hpp"

using namespace kw::cli::describe;
using kw::cli::align_columns;
using nlohmann::json;

TEST_CASE("align_columns with kubectl get's settings: at least 6 wide, 3 of padding") {
  CHECK(align_columns("NAME\tREADY\tAGE\nweb\t1/1\t5m\na-longer-name\t0/1\t2d\n", 6, 3) ==
        "NAME            READY   AGE\nweb             1/1     5m\na-longer-name   0/1     2d\n");
  CHECK(align_columns("A\tB\nx\ty\n", 6, 3) == "A     B\nx     y\n");
}

TEST_CASE("align_columns aligns a column only over the lines that have a cell in it") {
  CHECK(align_columns("Name:\tweb\nNamespace:\tdefault\nContainers:\n  c:\n    Image:\tnginx\n    Port:\t<none>\n") ==
        "Name:       web\n"
        "Namespace:  default\n"
        "Containers:\n"
        "  c:\n"
        "    Image:  nginx\n"
        "    Port:   <none>\n");
  // A third cell forms its own column, over its own run of lines.
  CHECK(align_columns("Port:\t<unset>\t80/TCP\nTargetPort:\t80/TCP\n") ==
        "Port:        <unset>  80/TCP\n"
        "TargetPort:  80/TCP\n");
  // Empty cells still take the column's width; the text after the last tab is not padded.
  CHECK(align_columns("Labels:\ta=1\n\tb=2\nKind:\t\n") == "Labels:  a=1\n         b=2\nKind:    \n");
}

TEST_CASE("field labels as kubectl's generic describer writes them") {
  CHECK(field_label("apiVersion") == "API Version");
  CHECK(field_label("creationTimestamp") == "Creation Timestamp");
  CHECK(field_label("uid") == "UID");
  CHECK(field_label("matchLabels") == "Match Labels");
  CHECK(field_label("app") == "App");
  CHECK(field_label("v1") == "v1");
  CHECK(field_label("example.com/size") == "example.com/size");
}

TEST_CASE("the generic describer prints the object's fields, sorted and nested") {
  const json widget = json::parse(R"({"apiVersion": "example.com/v1", "kind": "Widget",
    "metadata": {"name": "w", "namespace": "default", "uid": "u1", "labels": {"app": "x"},
                 "managedFields": [{"manager": "kw"}]},
    "spec": {"size": 3, "tags": ["a", "b"], "items": [{"name": "i1"}], "enabled": true}})");
  Related related;
  related.events.emplace();
  CHECK(describe_object(widget, related, {}) ==
        "Name:         w\n"
        "Namespace:    default\n"
        "Labels:       app=x\n"
        "Annotations:  <none>\n"
        "API Version:  example.com/v1\n"
        "Kind:         Widget\n"
        "Metadata:\n"
        "  UID:  u1\n"
        "Spec:\n"
        "  Enabled:  true\n"
        "  Items:\n"
        "    Name:  i1\n"
        "  Size:    3\n"
        "  Tags:\n"
        "    a\n"
        "    b\n"
        "Events:  <none>\n");
}

TEST_CASE("a secret shows its values' sizes, a config map its data") {
  const json secret = json::parse(R"({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
    "metadata": {"name": "s", "namespace": "default"}, "data": {"k": "dg==", "long": "YWJjZGVm"}})");
  CHECK(describe_object(secret, {}, {}) ==
        "Name:         s\n"
        "Namespace:    default\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "\n"
        "Type:  Opaque\n"
        "\n"
        "Data\n"
        "====\n"
        "k:     1 bytes\n"
        "long:  6 bytes\n");
  const json map = json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "c", "namespace": "default"}, "data": {"a": "one"}})");
  CHECK(describe_object(map, {}, {}) ==
        "Name:         c\n"
        "Namespace:    default\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "\n"
        "Data\n"
        "====\n"
        "a:\n"
        "----\n"
        "one\n"
        "\n"
        "\n"
        "BinaryData\n"
        "====\n"
        "\n");
}

TEST_CASE("events: kubectl's table, oldest first, repeated ones with their count") {
  const auto now = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 50);
  const auto at = [&](int hours_ago) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now - std::chrono::hours(hours_ago));
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(text);
  };
  // The message is trimmed; kubectl (1.30 to 1.33) does not put the involved field's path before it.
  std::vector<json> events = {{{"type", "Warning"},
                               {"reason", "BackOff"},
                               {"message", " restarting\n"},
                               {"count", 3},
                               {"firstTimestamp", at(30)},
                               {"lastTimestamp", at(2)},
                               {"source", {{"component", "kubelet"}}},
                               {"involvedObject", {{"fieldPath", "spec.containers{c}"}}}},
                              {{"type", "Normal"},
                               {"reason", "Scheduled"},
                               {"message", "assigned"},
                               {"firstTimestamp", at(50)},
                               {"lastTimestamp", at(50)},
                               {"reportingComponent", "scheduler"}}};
  Writer w;
  write_events(w, events, now);
  CHECK(align_columns(w.take()) ==
        "Events:\n"
        "  Type     Reason     Age                 From       Message\n"
        "  ----     ------     ----                ----       -------\n"
        "  Normal   Scheduled  2d2h                scheduler  assigned\n"
        "  Warning  BackOff    120m (x3 over 30h)  kubelet    restarting\n");
}

TEST_CASE("a role's rules: one resource each, verbs of the same resource merged, sorted as kubectl sorts them") {
  const json role = json::parse(R"({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
    "metadata": {"name": "r1", "namespace": "default"},
    "rules": [{"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list"]},
              {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a", "b"], "verbs": ["get"]},
              {"apiGroups": [""], "resources": ["pods"], "verbs": ["watch"]},
              {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]})");
  CHECK(describe_object(role, {}, {}) ==
        "Name:         r1\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "PolicyRule:\n"
        "  Resources         Non-Resource URLs  Resource Names  Verbs\n"
        "  ---------         -----------------  --------------  -----\n"
        "  pods              []                 []              [get list watch]\n"
        "  pods/log          []                 []              [get list]\n"
        "                    [/healthz]         []              [get]\n"
        "  deployments.apps  []                 [a]             [get]\n"
        "  deployments.apps  []                 [b]             [get]\n");
}

TEST_CASE("a service's endpoints: its EndpointSlices' ready addresses on the port's name, three then a count") {
  const json service = json::parse(R"({"apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"type": "ClusterIP", "clusterIP": "10.0.0.1", "sessionAffinity": "None", "internalTrafficPolicy": "Local",
             "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"},
                       {"name": "admin", "port": 81, "targetPort": 81, "protocol": "TCP"}]}})");
  Related related;
  const auto slice = [](const std::string& service_name, const json& endpoints) {
    return json{{"metadata", {{"labels", {{"kubernetes.io/service-name", service_name}}}}},
                {"ports", json::array({{{"name", "http"}, {"port", 8080}}})},
                {"endpoints", endpoints}};
  };
  related.endpoint_slices = {
      slice("web",
            json::parse(R"([{"addresses": ["10.1.0.1"]}, {"addresses": ["10.1.0.2"], "conditions": {"ready": false}},
                                   {"addresses": ["fd00::3"], "conditions": {"ready": true}}])")),
      slice("web", json::parse(R"([{"addresses": ["10.1.0.4"]}, {"addresses": ["10.1.0.5"]}])")),
      slice("other", json::parse(R"([{"addresses": ["10.9.9.9"]}])"))};
  const std::string text = describe_object(service, related, {});
  CHECK(text.find("Endpoints:                10.1.0.1:8080,[fd00::3]:8080,10.1.0.4:8080 + 1 more...\n") !=
        std::string::npos);
  // The second port has no slice port of its name: an empty list, not <none>.
  CHECK(text.find("Endpoints:                \nSession Affinity:") != std::string::npos);
  CHECK(text.find("Internal Traffic Policy:  Local\n") != std::string::npos);
  related.endpoint_slices.clear();
  CHECK(describe_object(service, related, {}).find("Endpoints:                <none>\n") != std::string::npos);
}
