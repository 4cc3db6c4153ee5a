// JSON -> protobuf -> JSON must give back the manifest unchanged.
#include <doctest/doctest.h>

#include "corpus.hpp"
#include "test_support.hpp"

using nlohmann::json;

TEST_CASE("protobuf round trip keeps every manifest of the corpus identical") {
  for (std::string_view text : kw::test::k_corpus) {
    const json manifest = json::parse(text);
    CAPTURE(manifest["kind"].get<std::string>());
    auto encoded = kw::codec::encode_object_protobuf(manifest, kw::test::k_builtin_lookup, kw::codec::FieldValidation::Strict);
    REQUIRE_MESSAGE(encoded, (encoded ? "" : encoded.error().message));
    CHECK(encoded->warnings.empty());
    auto decoded = kw::codec::decode_object_protobuf(encoded->bytes, kw::test::k_builtin_lookup);
    REQUIRE_MESSAGE(decoded, (decoded ? "" : decoded.error().message));
    if (*decoded != manifest) {
      MESSAGE("diff: " << json::diff(manifest, *decoded).dump());
    }
    CHECK(*decoded == manifest);
  }
}

TEST_CASE("deployment intOrString fields keep their JSON type") {
  const json deployment = json::parse(kw::test::k_deployment);
  auto decoded = kw::codec::decode_object_protobuf(*kw::codec::encode_object_protobuf(deployment, kw::test::k_builtin_lookup),
                                                   kw::test::k_builtin_lookup);
  REQUIRE(decoded);
  const json& rolling = (*decoded)["spec"]["strategy"]["rollingUpdate"];
  CHECK(rolling["maxSurge"] == "25%");
  CHECK(rolling["maxUnavailable"].is_number_integer());
  CHECK(rolling["maxUnavailable"] == 1);
}

TEST_CASE("map fields come out sorted by key and bytes as base64") {
  const json configmap = json::parse(kw::test::k_configmap);
  auto decoded = kw::codec::decode_object_protobuf(*kw::codec::encode_object_protobuf(configmap, kw::test::k_builtin_lookup),
                                                   kw::test::k_builtin_lookup);
  REQUIRE(decoded);
  const std::string dumped = (*decoded)["data"].dump();
  CHECK(dumped.find("\"emoji\"") < dumped.find("\"empty\""));
  CHECK(dumped.find("\"empty\"") < dumped.find("\"hello\""));
  CHECK((*decoded)["data"]["japanese"] == "こんにちは世界");
  CHECK((*decoded)["binaryData"]["logo.bin"] == "AAEC/f7/");
}

TEST_CASE("times: Time at second precision, MicroTime with six digits, Duration as Go text") {
  auto bytes = kw::codec::json_to_protobuf(json::parse(R"({"metadata": {"creationTimestamp": "2024-01-02T05:04:05.987+02:00"}})"),
                                           "k8s.io.api.core.v1.Pod");
  REQUIRE(bytes);
  auto pod = kw::codec::protobuf_to_json(*bytes, "k8s.io.api.core.v1.Pod");
  REQUIRE(pod);
  CHECK((*pod)["metadata"]["creationTimestamp"] == "2024-01-02T03:04:05Z");

  bytes = kw::codec::json_to_protobuf(json::parse(R"({"eventTime": "2024-01-02T03:04:05.1Z"})"), "k8s.io.api.core.v1.Event");
  REQUIRE(bytes);
  auto event = kw::codec::protobuf_to_json(*bytes, "k8s.io.api.core.v1.Event");
  REQUIRE(event);
  CHECK((*event)["eventTime"] == "2024-01-02T03:04:05.100000Z");

  for (const char* text : {"1h0m0s", "1m30s", "1.5s", "250ms", "1.5µs", "15ns", "0s", "-2m0.5s", "26h3m4.000000005s"}) {
    CAPTURE(text);
    auto duration = kw::codec::json_to_protobuf(json(text), "k8s.io.apimachinery.pkg.apis.meta.v1.Duration");
    REQUIRE(duration);
    auto back = kw::codec::protobuf_to_json(*duration, "k8s.io.apimachinery.pkg.apis.meta.v1.Duration");
    REQUIRE(back);
    CHECK(*back == text);
  }
  auto minutes = kw::codec::json_to_protobuf(json("90m"), "k8s.io.apimachinery.pkg.apis.meta.v1.Duration");
  REQUIRE(minutes);
  CHECK(*kw::codec::protobuf_to_json(*minutes, "k8s.io.apimachinery.pkg.apis.meta.v1.Duration") == "1h30m0s");
}

TEST_CASE("presence: absent fields stay absent, empty strings and empty objects stay present, nulls are absent") {
  const json pod = json::parse(R"({"metadata": {"name": "", "labels": {"a": ""}},
    "spec": {"nodeName": null, "volumes": [{"name": "v", "emptyDir": {}}]}})");
  auto decoded = kw::codec::protobuf_to_json(*kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod"), "k8s.io.api.core.v1.Pod");
  REQUIRE(decoded);
  CHECK(*decoded == json::parse(R"({"metadata": {"name": "", "labels": {"a": ""}}, "spec": {"volumes": [{"name": "v", "emptyDir": {}}]}})"));
}

TEST_CASE("embedded objects keep TypeMeta out of the wire and 64-bit numbers stay numbers") {
  const json set = json::parse(R"({"apiVersion": "apps/v1", "kind": "StatefulSet", "spec": {"volumeClaimTemplates": [
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "d"}}]}})");
  auto encoded = kw::codec::encode_object_protobuf(set, kw::test::k_builtin_lookup, kw::codec::FieldValidation::Strict);
  REQUIRE(encoded);
  auto decoded = kw::codec::decode_object_protobuf(encoded->bytes, kw::test::k_builtin_lookup);
  REQUIRE(decoded);
  CHECK((*decoded)["spec"]["volumeClaimTemplates"][0] == json::parse(R"({"metadata": {"name": "d"}})"));

  const json big = json::parse(R"({"metadata": {"generation": 9007199254740993}, "spec": {"activeDeadlineSeconds": 9223372036854775807}})");
  auto pod = kw::codec::protobuf_to_json(*kw::codec::json_to_protobuf(big, "k8s.io.api.core.v1.Pod"), "k8s.io.api.core.v1.Pod");
  REQUIRE(pod);
  CHECK((*pod)["metadata"]["generation"].get<std::int64_t>() == 9007199254740993);
  CHECK((*pod)["spec"]["activeDeadlineSeconds"].get<std::int64_t>() == 9223372036854775807);
}

TEST_CASE("Go-written bytes: an empty Time message reads back as null") {
  // ObjectMeta{name "x", creationTimestamp (field 8) present but empty}, as Go writes an unset time.
  const std::string meta = kw::test::ld(0x0a, "x") + std::string("\x42\x00", 2);
  auto pod = kw::codec::protobuf_to_json(kw::test::ld(0x0a, meta), "k8s.io.api.core.v1.Pod");
  REQUIRE(pod);
  CHECK(*pod == json::parse(R"({"metadata": {"name": "x", "creationTimestamp": null}})"));
}

TEST_CASE("discovery documents and other meta/v1 kinds round trip") {
  const json resources = json::parse(R"({"apiVersion": "v1", "kind": "APIResourceList", "groupVersion": "apps/v1", "resources": [
    {"name": "deployments", "singularName": "deployment", "namespaced": true, "kind": "Deployment",
     "verbs": ["create", "delete", "get", "list", "watch"], "shortNames": ["deploy"], "categories": ["all"], "storageVersionHash": "8aSe+NMegvE="},
    {"name": "deployments/scale", "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch"]}]})");
  auto bytes = kw::codec::json_to_protobuf(resources, "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList");
  REQUIRE(bytes);
  auto back = kw::codec::protobuf_to_json(*bytes, "k8s.io.apimachinery.pkg.apis.meta.v1.APIResourceList");
  REQUIRE(back);
  json expected = resources;
  expected.erase("apiVersion");
  expected.erase("kind");
  CHECK(*back == expected);

  const json groups = json::parse(R"({"groups": [{"name": "apps", "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
    "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"},
    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "10.0.0.1:6443"}]}]})");
  auto group_bytes = kw::codec::json_to_protobuf(groups, "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList");
  REQUIRE(group_bytes);
  CHECK(*kw::codec::protobuf_to_json(*group_bytes, "k8s.io.apimachinery.pkg.apis.meta.v1.APIGroupList") == groups);

  const json options = json::parse(R"({"labelSelector": "app=web", "watch": true, "allowWatchBookmarks": true, "resourceVersion": "0",
    "resourceVersionMatch": "NotOlderThan", "timeoutSeconds": 300, "limit": 500, "sendInitialEvents": true})");
  auto option_bytes = kw::codec::json_to_protobuf(options, "k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions");
  REQUIRE(option_bytes);
  CHECK(*kw::codec::protobuf_to_json(*option_bytes, "k8s.io.apimachinery.pkg.apis.meta.v1.ListOptions") == options);

  const json partial = json::parse(R"({"metadata": {"resourceVersion": "7"}, "items": [{"metadata": {"name": "a", "uid": "u"}}]})");
  auto partial_bytes = kw::codec::json_to_protobuf(partial, "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList");
  REQUIRE(partial_bytes);
  CHECK(*kw::codec::protobuf_to_json(*partial_bytes, "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList") == partial);
}

TEST_CASE("inline Go structs are flat in JSON and nested on the wire") {
  const json pod = json::parse(R"({"spec": {"volumes": [{"name": "cfg", "configMap": {"name": "web-config"}}],
    "containers": [{"name": "c", "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 3}}]}})");
  auto bytes = kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod", kw::codec::FieldValidation::Strict);
  REQUIRE(bytes);
  // Volume{name=1, volumeSource=2{configMap=19{localObjectReference=1{name=1}}}}; tag of field 19 is 9a 01.
  const std::string config_map = kw::test::ld(0x0a, kw::test::ld(0x0a, "web-config"));
  const std::string volume_source = std::string("\x9a\x01", 2) + static_cast<char>(config_map.size()) + config_map;
  const std::string volume = kw::test::ld(0x0a, "cfg") + kw::test::ld(0x12, volume_source);
  CHECK(bytes->bytes.find(kw::test::ld(0x0a, volume)) != std::string::npos);
  CHECK(*kw::codec::protobuf_to_json(bytes->bytes, "k8s.io.api.core.v1.Pod") == pod);
  // The wrapper names themselves are not JSON keys.
  auto wrapped = kw::codec::json_to_protobuf(json::parse(R"({"handler": {}})"), "k8s.io.api.core.v1.Probe", kw::codec::FieldValidation::Strict);
  CHECK_FALSE(wrapped);
}

TEST_CASE("a go-shaped decode fills in what Go's JSON of the typed object always has") {
  const json deployment = {{"apiVersion", "apps/v1"},
                           {"kind", "Deployment"},
                           {"metadata", {{"name", "d"}}},
                           {"spec",
                            {{"selector", {{"matchLabels", {{"app", "d"}}}}},
                             {"template",
                              {{"metadata", {{"labels", {{"app", "d"}}}}},
                               {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}}};
  auto encoded = kw::codec::encode_object_protobuf(deployment, kw::test::k_builtin_lookup);
  REQUIRE(encoded);
  auto plain = kw::codec::decode_object_protobuf(*encoded, kw::test::k_builtin_lookup);
  auto shaped = kw::codec::decode_object_protobuf_go_shaped(*encoded, kw::test::k_builtin_lookup);
  REQUIRE(plain);
  REQUIRE(shaped);
  CHECK_FALSE((*plain)["spec"]["template"]["metadata"].contains("creationTimestamp"));
  CHECK((*shaped)["spec"]["template"]["metadata"]["creationTimestamp"].is_null());
  CHECK((*shaped)["spec"]["template"]["spec"]["containers"][0]["resources"] == json::object());
  CHECK((*shaped)["status"] == json::object());
  CHECK((*shaped)["kind"] == "Deployment");
}
