// Unknown fields under each validation mode, and malformed input of every kind.
#include <doctest/doctest.h>

#include <optional>
#include <random>

#include "core/codec/json_limits.hpp"
#include "core/codec/protobuf_wire.hpp"
#include "corpus.hpp"
#include "test_support.hpp"

using nlohmann::json;
using kw::codec::FieldValidation;

namespace {

const json k_typo_pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "colour": "red"},
  "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolicyy": "Always"}]}})");

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

std::string error_of(const json& object, std::string_view message) {
  auto encoded = kw::codec::json_to_protobuf(object, message);
  return encoded ? std::string("<no error>") : encoded.error().message;
}

}  // namespace

TEST_CASE("unknown fields: Ignore drops them silently") {
  auto encoded = kw::codec::encode_object_protobuf(k_typo_pod, kw::test::k_builtin_lookup, FieldValidation::Ignore);
  REQUIRE(encoded);
  CHECK(encoded->warnings.empty());
  auto decoded = kw::codec::decode_object_protobuf(encoded->bytes, kw::test::k_builtin_lookup);
  REQUIRE(decoded);
  CHECK_FALSE((*decoded)["spec"]["containers"][0].contains("imagePullPolicyy"));
}

TEST_CASE("unknown fields: Warn drops them and names each path") {
  auto encoded = kw::codec::encode_object_protobuf(k_typo_pod, kw::test::k_builtin_lookup, FieldValidation::Warn);
  REQUIRE(encoded);
  REQUIRE(encoded->warnings.size() == 2);
  CHECK(encoded->warnings[0] == "unknown field \"metadata.colour\"");
  CHECK(encoded->warnings[1] == "unknown field \"spec.containers[0].imagePullPolicyy\"");
}

TEST_CASE("unknown fields: Strict fails naming the field") {
  auto encoded = kw::codec::encode_object_protobuf(k_typo_pod, kw::test::k_builtin_lookup, FieldValidation::Strict);
  REQUIRE_FALSE(encoded);
  CHECK(contains(encoded.error().message, "unknown field \"metadata.colour\""));
}

TEST_CASE("wrong JSON types name the field path") {
  const std::string pod = "k8s.io.api.core.v1.Pod";
  CHECK(error_of(json::parse(R"({"spec": {"containers": [{"ports": [{"containerPort": "80"}]}]}})"), pod) ==
        "spec.containers[0].ports[0].containerPort: expected an integer, got string");
  CHECK(contains(error_of(json::parse(R"({"spec": {"containers": [{"ports": [{"containerPort": 80.5}]}]}})"), pod),
                 "spec.containers[0].ports[0].containerPort: expected an integer"));
  CHECK(contains(error_of(json::parse(R"({"spec": {"containers": {"name": "c"}}})"), pod), "spec.containers: expected an array, got object"));
  CHECK(contains(error_of(json::parse(R"({"spec": {"hostNetwork": "yes"}})"), pod), "spec.hostNetwork: expected a boolean"));
  CHECK(contains(error_of(json::parse(R"({"metadata": {"labels": {"a": 1}}})"), pod), "metadata.labels[a]: expected a string, got integer"));
  CHECK(contains(error_of(json::parse(R"({"spec": {"containers": [{"livenessProbe": {"httpGet": {"port": true}}}]}})"), pod),
                 "spec.containers[0].livenessProbe.httpGet.port: expected an int32 or a string"));
  CHECK(contains(error_of(json::parse(R"({"spec": {"priority": 4294967296}})"), pod), "spec.priority: 4294967296 is out of range for int32"));
  CHECK(contains(error_of(json::parse(R"({"spec": "x"})"), pod), "spec: expected an object, got string"));
  CHECK(contains(error_of(json::parse(R"([1, 2])"), pod), "expected an object, got array"));
  CHECK(contains(error_of(json::parse(R"({"spec": {"containers": [{"resources": {"limits": {"cpu": {}}}}]}})"), pod),
                 "spec.containers[0].resources.limits[cpu]: expected a quantity string"));
}

TEST_CASE("bad base64, bad times and bad durations are errors") {
  CHECK(contains(error_of(json::parse(R"({"data": {"k": "not base64!"}})"), "k8s.io.api.core.v1.Secret"), "data[k]: invalid base64"));
  CHECK(contains(error_of(json::parse(R"({"data": {"k": "YWJj="}})"), "k8s.io.api.core.v1.Secret"), "data[k]: invalid base64"));
  CHECK(contains(error_of(json::parse(R"({"binaryData": {"k": "QQ=A"}})"), "k8s.io.api.core.v1.ConfigMap"), "binaryData[k]: invalid base64"));
  for (const char* time : {"yesterday", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-01-02 03:04:05Z", "2024-01-02T03:04:05",
                           "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+0200"}) {
    CAPTURE(time);
    CHECK(contains(error_of(json{{"metadata", {{"creationTimestamp", time}}}}, "k8s.io.api.core.v1.Pod"),
                   "metadata.creationTimestamp: invalid RFC 3339 time"));
  }
  CHECK(contains(error_of(json{{"metadata", {{"creationTimestamp", 17}}}}, "k8s.io.api.core.v1.Pod"), "expected an RFC 3339 time string"));
  // Go's time.ParseDuration words, as metav1.Duration's decoder gives them.
  for (const auto& [duration, why] : std::vector<std::pair<std::string, std::string>>{
           {"", R"(time: invalid duration "")"},
           {"5", R"(time: missing unit in duration "5")"},
           {"1x", R"(time: unknown unit "x" in duration "1x")"},
           {"h", R"(time: invalid duration "h")"},
           {"1..5s", R"(time: missing unit in duration "1..5s")"}}) {
    CAPTURE(duration);
    CHECK(contains(error_of(json(duration), "k8s.io.apimachinery.pkg.apis.meta.v1.Duration"), why));
  }
  CHECK(contains(error_of(json::parse(R"({"metadata": {"managedFields": [{"fieldsV1": [1]}]}})"), "k8s.io.api.core.v1.Pod"),
                 "metadata.managedFields[0].fieldsV1: expected an object"));
}

TEST_CASE("unknown messages and kinds are reported, not guessed") {
  CHECK(contains(error_of(json::object(), "k8s.io.api.core.v1.Nope"), "no protobuf message \"k8s.io.api.core.v1.Nope\""));
  auto encoded = kw::codec::encode_object_protobuf(json::parse(R"({"apiVersion": "example.com/v1", "kind": "Widget"})"), kw::test::k_builtin_lookup);
  REQUIRE_FALSE(encoded);
  CHECK(contains(encoded.error().message, "Widget"));
  CHECK_FALSE(kw::codec::encode_object_protobuf(json::parse(R"({"kind": "Pod"})"), kw::test::k_builtin_lookup));
  CHECK_FALSE(kw::codec::encode_object_protobuf(json::parse(R"({"apiVersion": "v1"})"), kw::test::k_builtin_lookup));
  CHECK(kw::codec::builtin_message_for("v1", "PodList") == "k8s.io.api.core.v1.PodList");
  CHECK(kw::codec::builtin_message_for("apps/v1", "DeploymentList") == "k8s.io.api.apps.v1.DeploymentList");
  CHECK_FALSE(kw::codec::builtin_message_for("apps/v1", "Pod"));
}

TEST_CASE("malformed protobuf bytes give errors") {
  const std::string pod = "k8s.io.api.core.v1.Pod";
  CHECK_FALSE(kw::codec::protobuf_to_json(std::string("\xff\xff\xff", 3), pod));
  CHECK_FALSE(kw::codec::protobuf_to_json(std::string("\x0a\x20\x0a", 3), pod));  // truncated metadata
  auto invalid_utf8 = kw::codec::protobuf_to_json(kw::test::ld(0x0a, kw::test::ld(0x0a, "\xc3\x28")), pod);
  REQUIRE_FALSE(invalid_utf8);
  CHECK(contains(invalid_utf8.error().message, "metadata.name: string is not valid UTF-8"));
  // RawExtension whose raw bytes are not JSON.
  auto raw = kw::codec::protobuf_to_json(kw::test::ld(0x12, kw::test::ld(0x0a, "\x01\x02not json")),
                                         "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent");
  REQUIRE_FALSE(raw);
  CHECK(contains(raw.error().message, "object: embedded object (10 bytes) cannot be read: parse error at line 1, column 1"));
}

TEST_CASE("embedded JSON nests no deeper than a JSON request body") {
  // A ControllerRevision's data (a RawExtension) holding [[[...]]] at the limit and past it.
  auto revision = [](std::size_t depth) {
    std::string raw_extension;
    kw::codec::append_bytes_field(raw_extension, 1, std::string(depth, '[') + std::string(depth, ']'));
    std::string message;
    kw::codec::append_bytes_field(message, 2, raw_extension);
    return kw::codec::protobuf_to_json(message, "k8s.io.api.apps.v1.ControllerRevision");
  };
  const std::size_t limit = kw::codec::k_max_json_depth;
  auto at_limit = revision(limit);
  REQUIRE(at_limit);
  CHECK((*at_limit)["data"].is_array());
  auto past_limit = revision(limit + 1);
  REQUIRE_FALSE(past_limit);
  CHECK(contains(past_limit.error().message, "data: embedded object (20002 bytes) cannot be read: exceeded max depth"));
}

TEST_CASE("a RawExtension on the wire without raw decodes to null, which encodes as absent") {
  std::string message;
  kw::codec::append_bytes_field(message, 2, {});
  auto decoded = kw::codec::protobuf_to_json(message, "k8s.io.api.apps.v1.ControllerRevision");
  REQUIRE(decoded);
  CHECK((*decoded)["data"].is_null());
  auto encoded = kw::codec::json_to_protobuf(*decoded, "k8s.io.api.apps.v1.ControllerRevision");
  REQUIRE(encoded);
  CHECK(encoded->empty());
}

TEST_CASE("quantities on the wire are parsed as Go's Quantity.Unmarshal parses them") {
  // ResourceRequirements{limits: {cpu: Quantity{string}}}; no string at all is Go's zero Quantity.
  auto limits = [](std::optional<std::string_view> quantity) {
    std::string value;
    if (quantity) kw::codec::append_bytes_field(value, 1, *quantity);
    std::string entry;
    kw::codec::append_bytes_field(entry, 1, "cpu");
    kw::codec::append_bytes_field(entry, 2, value);
    std::string message;
    kw::codec::append_bytes_field(message, 1, entry);
    return kw::codec::protobuf_to_json(message, "k8s.io.api.core.v1.ResourceRequirements");
  };
  auto canonical = limits("0.5");
  REQUIRE(canonical);
  CHECK((*canonical)["limits"]["cpu"] == "500m");
  auto zero = limits(std::nullopt);
  REQUIRE(zero);
  CHECK((*zero)["limits"]["cpu"] == "0");
  auto invalid = limits("apn");
  REQUIRE_FALSE(invalid);
  CHECK(contains(invalid.error().message, "limits[cpu]"));
  CHECK(contains(invalid.error().message, "quantities must match the regular expression"));
}

TEST_CASE("an enveloped object without apiVersion or kind is refused") {
  auto no_version = kw::codec::decode_object_protobuf(kw::codec::encode_envelope("", "Status", ""), kw::test::k_builtin_lookup);
  REQUIRE_FALSE(no_version);
  CHECK(no_version.error().message == "protobuf object has no apiVersion or no kind in its envelope");
  CHECK_FALSE(kw::codec::decode_object_protobuf(kw::codec::encode_envelope("v1", "", ""), kw::test::k_builtin_lookup));
  CHECK(kw::codec::decode_object_protobuf(kw::codec::encode_envelope("v1", "Status", ""), kw::test::k_builtin_lookup));
}

TEST_CASE("random corruption of valid encodings never crashes the decoders") {
  std::mt19937 random(12345);
  for (std::string_view text : kw::test::k_corpus) {
    const std::string good = *kw::codec::encode_object_protobuf(json::parse(text), kw::test::k_builtin_lookup);
    const std::string event = kw::codec::encode_watch_event_protobuf("MODIFIED", good);
    for (int round = 0; round < 200; ++round) {
      std::string bad = round % 2 == 0 ? good : event;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int i = 0; i < flips; ++i) bad[random() % bad.size()] = static_cast<char>(random() & 0xff);
      if (round % 7 == 0) bad.resize(random() % bad.size());
      auto object = kw::codec::decode_object_protobuf(bad, kw::test::k_builtin_lookup);
      if (object) (void)object->dump(-1, ' ', false, json::error_handler_t::strict);
      auto watch = kw::codec::decode_watch_event_protobuf(bad);
      if (watch) (void)kw::codec::decode_object_protobuf(watch->object, kw::test::k_builtin_lookup);
    }
  }
  CHECK(true);
}
