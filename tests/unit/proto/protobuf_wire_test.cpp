// Exact bytes: envelope, a small Pod and its watch event built by hand from
// the field numbers, and a cross-check with the real protoc.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/codec/protobuf_wire.hpp"
#include "test_support.hpp"

using nlohmann::json;
using kw::test::hex;
using kw::test::ld;

namespace {

const json k_small_pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "default"},
  "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}})");

// Pod{metadata=1 ObjectMeta{name=1, namespace=3}, spec=2 PodSpec{containers=2 Container{name=1, image=2}}}
std::string small_pod_bytes() {
  const std::string meta = ld(0x0a, "web") + ld(0x1a, "default");
  const std::string container = ld(0x0a, "nginx") + ld(0x12, "nginx:1.25");
  const std::string spec = ld(0x12, container);
  return ld(0x0a, meta) + ld(0x12, spec);
}

// "k8s\0" + Unknown{typeMeta=1 {apiVersion=1, kind=2}, raw=2, contentEncoding=3 "", contentType=4 ""}
std::string small_pod_envelope() {
  return std::string("k8s\0", 4) + ld(0x0a, ld(0x0a, "v1") + ld(0x12, "Pod")) + ld(0x12, small_pod_bytes()) +
         std::string("\x1a\x00\x22\x00", 4);
}

struct CommandResult {
  int status = -1;
  std::string output;
};

CommandResult run(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  result.status = ::pclose(pipe);
  return result;
}

}  // namespace

TEST_CASE("small Pod encodes to the hand-built bytes") {
  auto bytes = kw::codec::json_to_protobuf(k_small_pod, "k8s.io.api.core.v1.Pod");
  REQUIRE(bytes);
  CHECK(hex(*bytes) == hex(small_pod_bytes()));
  CHECK(bytes->size() == 39);
}

TEST_CASE("envelope is k8s\\0 + runtime.Unknown with empty contentEncoding and contentType") {
  auto enveloped = kw::codec::encode_object_protobuf(k_small_pod, kw::test::k_builtin_lookup);
  REQUIRE(enveloped);
  CHECK(hex(*enveloped) == hex(small_pod_envelope()));
  CHECK(enveloped->substr(0, 4) == std::string("k8s\0", 4));
  CHECK(enveloped->substr(enveloped->size() - 4) == std::string("\x1a\x00\x22\x00", 4));

  CHECK(kw::codec::encode_envelope("v1", "Pod", "") == std::string("k8s\0", 4) + ld(0x0a, ld(0x0a, "v1") + ld(0x12, "Pod")) +
                                                          std::string("\x12\x00\x1a\x00\x22\x00", 6));

  auto envelope = kw::codec::decode_envelope(small_pod_envelope());
  REQUIRE(envelope);
  CHECK(envelope->api_version == "v1");
  CHECK(envelope->kind == "Pod");
  CHECK(envelope->raw == small_pod_bytes());

  auto decoded = kw::codec::decode_object_protobuf(small_pod_envelope(), kw::test::k_builtin_lookup);
  REQUIRE(decoded);
  CHECK(*decoded == k_small_pod);
}

TEST_CASE("envelope decoding rejects data without the magic and garbage after it") {
  auto no_magic = kw::codec::decode_envelope(small_pod_envelope().substr(4));
  REQUIRE_FALSE(no_magic);
  CHECK(no_magic.error().message.find("k8s") != std::string::npos);
  CHECK_FALSE(kw::codec::decode_envelope("{\"kind\":\"Pod\"}"));
  CHECK_FALSE(kw::codec::decode_envelope(std::string("k8s\0\x0a\x7f", 6)));
  CHECK_FALSE(kw::codec::decode_envelope(""));
  // A gzip'd payload is refused with a reason rather than misread.
  std::string gzip = std::string("k8s\0", 4) + ld(0x12, "xx") + ld(0x1a, "gzip");
  auto encoded = kw::codec::decode_envelope(gzip);
  REQUIRE_FALSE(encoded);
  CHECK(encoded.error().message.find("gzip") != std::string::npos);
}

TEST_CASE("watch event is a bare WatchEvent whose object.raw holds the enveloped object") {
  const std::string event = kw::codec::encode_watch_event_protobuf("ADDED", small_pod_envelope());
  const std::string expected = ld(0x0a, "ADDED") + ld(0x12, ld(0x0a, small_pod_envelope()));
  CHECK(hex(event) == hex(expected));
  CHECK(event.substr(0, 7) == std::string("\x0a\x05" "ADDED", 7));
  CHECK(small_pod_envelope().size() == 60);
  CHECK(event.size() == 71);

  auto decoded = kw::codec::decode_watch_event_protobuf(event);
  REQUIRE(decoded);
  CHECK(decoded->type == "ADDED");
  CHECK(decoded->object == small_pod_envelope());
  auto object = kw::codec::decode_object_protobuf(decoded->object, kw::test::k_builtin_lookup);
  REQUIRE(object);
  CHECK(*object == k_small_pod);

  CHECK_FALSE(kw::codec::decode_watch_event_protobuf(std::string("\x0a\x09" "ADD", 5)));
  CHECK_FALSE(kw::codec::decode_watch_event_protobuf(ld(0x12, ld(0x0a, "x"))));
}

TEST_CASE("ERROR watch event carries a Status") {
  const json status = json::parse(R"js({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
    "message": "too old resource version: 123 (456)", "reason": "Expired", "code": 410})js");
  auto object = kw::codec::encode_object_protobuf(status, kw::test::k_builtin_lookup);
  REQUIRE(object);
  auto event = kw::codec::decode_watch_event_protobuf(kw::codec::encode_watch_event_protobuf("ERROR", *object));
  REQUIRE(event);
  CHECK(event->type == "ERROR");
  CHECK(*kw::codec::decode_object_protobuf(event->object, kw::test::k_builtin_lookup) == status);
}

TEST_CASE("protoc --decode reads the bytes we produce") {
  const json pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}, "creationTimestamp": "2024-01-02T03:04:05Z"},
    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
      "resources": {"limits": {"cpu": "500m"}}, "livenessProbe": {"httpGet": {"path": "/", "port": "http"}}}]}})");
  auto bytes = kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod");
  REQUIRE(bytes);
  const auto path = std::filesystem::temp_directory_path() / ("kw-proto-test-" + std::to_string(::getpid()) + ".bin");
  {
    std::ofstream out(path, std::ios::binary);
    out << *bytes;
  }
  const std::string command = std::string("timeout 20 ") + KW_PROTOC + " --decode=k8s.io.api.core.v1.Pod -I " + KW_PROTO_DIR + " " +
                              KW_PROTO_DIR + "/k8s.io/api/core/v1/generated.proto < " + path.string() + " 2>&1";
  const CommandResult result = run(command);
  std::filesystem::remove(path);
  CAPTURE(result.output);
  REQUIRE(result.status == 0);
  CHECK(result.output.find("name: \"web\"") != std::string::npos);
  CHECK(result.output.find("namespace: \"shop\"") != std::string::npos);
  CHECK(result.output.find("seconds: 1704164645") != std::string::npos);
  CHECK(result.output.find("containerPort: 80") != std::string::npos);
  CHECK(result.output.find("string: \"500m\"") != std::string::npos);
  CHECK(result.output.find("strVal: \"http\"") != std::string::npos);
  CHECK(result.output.find("key: \"app\"") != std::string::npos);

  // And the other way round: protoc --encode output decodes to the same JSON.
  const auto text_path = std::filesystem::temp_directory_path() / ("kw-proto-test-" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream out(text_path);
    out << "metadata { name: \"from-protoc\" generation: 7 }\n"
           "spec { containers { name: \"c\" image: \"i\" } }\n";
  }
  const CommandResult encoded = run(std::string("timeout 20 ") + KW_PROTOC + " --encode=k8s.io.api.core.v1.Pod -I " + KW_PROTO_DIR + " " +
                                    KW_PROTO_DIR + "/k8s.io/api/core/v1/generated.proto < " + text_path.string());
  std::filesystem::remove(text_path);
  REQUIRE(encoded.status == 0);
  auto decoded = kw::codec::protobuf_to_json(encoded.output, "k8s.io.api.core.v1.Pod");
  REQUIRE(decoded);
  CHECK(*decoded == json::parse(R"({"metadata": {"name": "from-protoc", "generation": 7}, "spec": {"containers": [{"name": "c", "image": "i"}]}})"));
}

TEST_CASE("a stored object's resourceVersion is set on the wire as encoding it with one would") {
  json pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "generation": 3,
                 "labels": {"app": "web"}, "finalizers": ["f"]},
    "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}})");
  auto stored = kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod");
  REQUIRE(stored);
  pod["metadata"]["resourceVersion"] = "42";
  auto expected = kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod");
  REQUIRE(expected);
  auto served = kw::codec::with_resource_version(*stored, "42");
  REQUIRE(served);
  CHECK(hex(*served) == hex(*expected));  // field 6 between uid (5) and generation (7)
  auto again = kw::codec::with_resource_version(*served, "43");  // replaced, not repeated
  REQUIRE(again);
  pod["metadata"]["resourceVersion"] = "43";
  CHECK(hex(*again) == hex(*kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod")));

  // An object with no metadata at all gets one holding only the resourceVersion, first.
  auto bare = kw::codec::with_resource_version(ld(0x12, ""), "7");
  REQUIRE(bare);
  CHECK(hex(*bare) == hex(ld(0x0a, ld(0x32, "7")) + ld(0x12, "")));
}

TEST_CASE("malformed stored bytes are an error, never a guess") {
  CHECK_FALSE(kw::codec::with_resource_version(std::string("\x0a\x05" "ab", 4), "1"));   // truncated metadata
  CHECK_FALSE(kw::codec::with_resource_version(std::string("\x08", 1), "1"));          // a key with no value
  CHECK_FALSE(kw::codec::with_resource_version(std::string("\x0b\x00", 2), "1"));     // a group
  CHECK_FALSE(kw::codec::with_resource_version(std::string("\x08\x01", 2), "1"));     // metadata as a varint
}

TEST_CASE("a List joined from stored messages is byte for byte the encoded JSON list") {
  const json a = json::parse(R"({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "5"},
    "spec": {"containers": [{"name": "c", "image": "i"}]}})");
  const json b = json::parse(R"({"metadata": {"name": "b", "namespace": "ns", "resourceVersion": "6"}})");
  std::vector<std::string> raws;
  for (const auto& item : {a, b}) raws.push_back(*kw::codec::json_to_protobuf(item, "k8s.io.api.core.v1.Pod"));
  for (const bool paged : {false, true}) {
    json list = {{"apiVersion", "v1"}, {"kind", "PodList"}, {"metadata", {{"resourceVersion", "9"}}}, {"items", {a, b}}};
    kw::codec::ListMetaFields meta{.resource_version = "9", .continue_token = {}, .remaining_item_count = {}};
    if (paged) {
      list["metadata"]["continue"] = "token";
      list["metadata"]["remainingItemCount"] = 12;
      meta.continue_token = "token";
      meta.remaining_item_count = 12;
    }
    auto expected = kw::codec::encode_object_protobuf(list, kw::codec::builtin_message_for);
    REQUIRE(expected);
    const auto joined = kw::codec::encode_list_protobuf("v1", "PodList", meta, {raws[0], raws[1]});
    CHECK(hex(joined) == hex(*expected));
  }
}
