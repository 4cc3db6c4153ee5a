// The descriptions from the .proto comments (each names a real message or field, the kinds
// and the fields people explain most are covered) and how the schemas carry them in both
// dialects.
#include <doctest/doctest.h>
#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/codec/protobuf_mapping.hpp"
#include "core/proto/registry.hpp"
#include "core/proto/schema_notes.hpp"
#include "server/http/openapi.hpp"
#include "openapi_test_support.hpp"
#include "server/http/openapi_build.hpp"

namespace {

std::string_view description_of(std::string_view name) { return kw::proto::comment_of(name); }
using nlohmann::json;
using namespace kw::http::openapi::test;

// True when `key` is a message, or "<message>.<field>" with such a field.
bool names_message_or_field(std::string_view key) {
  if (kw::proto::find_message(key) != nullptr) return true;
  const auto dot = key.rfind('.');
  if (dot == std::string_view::npos) return false;
  const auto* message = kw::proto::find_message(key.substr(0, dot));
  return message != nullptr && message->FindFieldByName(std::string(key.substr(dot + 1))) != nullptr;
}

// Every field of `message` lacking a description.
std::vector<std::string> undescribed_fields(std::string_view message) {
  const auto* descriptor = kw::proto::find_message(message);
  REQUIRE_MESSAGE(descriptor != nullptr, message);
  std::vector<std::string> missing;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const std::string& name = descriptor->field(i)->full_name();
    if (description_of(name).empty()) missing.push_back(name);
  }
  return missing;
}

}  // namespace

TEST_CASE("every comment of the .proto files belongs to a message or field and reads as help text") {
  const auto all = kw::proto::all_comments();
  CHECK(all.size() > 600);
  for (const auto& [name, text] : all) {
    CHECK_MESSAGE(names_message_or_field(name), name << " is neither a message nor a field");
    CHECK_MESSAGE(!text.empty(), name);
    CHECK_MESSAGE(text.size() < 300, name << " is too long");
    CHECK_MESSAGE(text.ends_with('.'), name << " does not end a sentence");
    CHECK_MESSAGE(text.find("  ") == std::string_view::npos, name << " has a line break left in it");
  }
}

TEST_CASE("description_of finds messages and fields, and nothing else") {
  CHECK(description_of("k8s.io.api.core.v1.Pod").starts_with("A group of"));
  CHECK(description_of("k8s.io.api.core.v1.Container.image").find("image") != std::string_view::npos);
  CHECK(description_of("k8s.io.api.apps.v1.DeploymentStrategy.type").find("Recreate") != std::string_view::npos);
  CHECK(description_of("k8s.io.api.core.v1.NoSuchMessage").empty());
  CHECK(description_of("k8s.io.api.core.v1.Pod.nosuchfield").empty());
  CHECK(description_of("").empty());
}

TEST_CASE("every served kind and list has a description, and so do their top-level fields") {
  int kinds = 0;
  for (const auto& resource : table().all()) {
    if (resource.proto_message.empty()) continue;
    ++kinds;
    const std::string package = resource.proto_message.substr(0, resource.proto_message.rfind('.') + 1);
    // Kinds that are answered, never listed (reviews, Binding), have no list message.
    const bool listed = std::find(resource.verbs.begin(), resource.verbs.end(), "list") != resource.verbs.end();
    for (const std::string& message : {resource.proto_message, listed ? package + resource.list_kind : resource.proto_message}) {
      CHECK_MESSAGE(!description_of(message).empty(), message);
      CHECK_MESSAGE(undescribed_fields(message).empty(), message);
    }
  }
  CHECK(kinds >= 13);
}

TEST_CASE("the fields people explain most are all described") {
  for (const char* message : {"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                              "k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta",
                              "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
                              "k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference",
                              "k8s.io.api.core.v1.PodSpec",
                              "k8s.io.api.core.v1.Container",
                              "k8s.io.api.core.v1.ContainerPort",
                              "k8s.io.api.core.v1.EnvVar",
                              "k8s.io.api.core.v1.EnvVarSource",
                              "k8s.io.api.core.v1.ResourceRequirements",
                              "k8s.io.api.core.v1.VolumeMount",
                              "k8s.io.api.core.v1.ServiceSpec",
                              "k8s.io.api.core.v1.ServicePort",
                              "k8s.io.api.core.v1.NamespaceSpec",
                              "k8s.io.api.core.v1.NamespaceStatus",
                              "k8s.io.api.core.v1.NodeSpec",
                              "k8s.io.api.core.v1.Event",
                              "k8s.io.api.core.v1.PersistentVolumeClaimSpec",
                              "k8s.io.api.apps.v1.DeploymentSpec",
                              "k8s.io.api.apps.v1.DeploymentStrategy",
                              "k8s.io.api.apps.v1.RollingUpdateDeployment",
                              "k8s.io.api.apps.v1.DeploymentStatus",
                              "k8s.io.api.apps.v1.ReplicaSetSpec",
                              "k8s.io.api.apps.v1.StatefulSetSpec",
                              "k8s.io.api.apps.v1.DaemonSetSpec"}) {
    CHECK_MESSAGE(undescribed_fields(message).empty(), message);
  }
  // Probe's and Volume's inline members are described under the inlined messages.
  CHECK_FALSE(description_of("k8s.io.api.core.v1.ProbeHandler.httpGet").empty());
  CHECK_FALSE(description_of("k8s.io.api.core.v1.VolumeSource.configMap").empty());
}

TEST_CASE("schemas carry descriptions and a referencing field keeps its $ref in both dialects") {
  const json& pod_v3 = schema(core_v3(), "io.k8s.api.core.v1.Pod");
  CHECK(pod_v3["description"] == description_of("k8s.io.api.core.v1.Pod"));
  // v3: the reference is wrapped, with the field's own description beside the allOf.
  CHECK(pod_v3["properties"]["spec"] ==
        json{{"allOf", json::array({{{"$ref", "#/components/schemas/io.k8s.api.core.v1.PodSpec"}}})},
             {"description", description_of("k8s.io.api.core.v1.Pod.spec")}});
  // v2: the description sits beside the reference.
  CHECK(schema(v2(), "io.k8s.api.core.v1.Pod")["properties"]["spec"] ==
        json{{"$ref", "#/definitions/io.k8s.api.core.v1.PodSpec"},
             {"description", description_of("k8s.io.api.core.v1.Pod.spec")}});
  const json& strategy = schema(apps_v3(), "io.k8s.api.apps.v1.DeploymentSpec")["properties"]["strategy"];
  CHECK(strategy["allOf"][0]["$ref"] == "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy");
  CHECK(strategy["description"] == description_of("k8s.io.api.apps.v1.DeploymentSpec.strategy"));
  CHECK(schema(apps_v3(), "io.k8s.api.apps.v1.DeploymentStrategy")["description"] ==
        description_of("k8s.io.api.apps.v1.DeploymentStrategy"));

  // Scalars, arrays and maps get the description directly, next to their markers.
  const json& container = schema(core_v3(), "io.k8s.api.core.v1.Container");
  CHECK(container["properties"]["image"] ==
        json{{"type", "string"}, {"description", description_of("k8s.io.api.core.v1.Container.image")}});
  CHECK(container["required"] == json{"name"});
  const json& containers = schema(v2(), "io.k8s.api.core.v1.PodSpec")["properties"]["containers"];
  CHECK(containers["items"]["$ref"] == "#/definitions/io.k8s.api.core.v1.Container");
  CHECK(containers["x-kubernetes-patch-merge-key"] == "name");
  CHECK(containers["description"] == description_of("k8s.io.api.core.v1.PodSpec.containers"));
  const json& labels = schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["properties"]["labels"];
  CHECK(labels["additionalProperties"] == json{{"type", "string"}});
  CHECK_FALSE(labels["description"].get<std::string>().empty());

  // Inline members (Probe's handler) and special types.
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.Probe")["properties"]["httpGet"]["description"] ==
        description_of("k8s.io.api.core.v1.ProbeHandler.httpGet"));
  CHECK(schema(apps_v3(), "io.k8s.apimachinery.pkg.util.intstr.IntOrString")["description"] ==
        description_of("k8s.io.apimachinery.pkg.util.intstr.IntOrString"));
  // A field without a description stays a bare reference.
  const json& terminated = schema(core_v3(), "io.k8s.api.core.v1.ContainerStateTerminated")["properties"];
  REQUIRE(description_of("k8s.io.api.core.v1.ContainerStateTerminated.finishedAt").empty());
  CHECK(terminated["finishedAt"] == json{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}});
}

TEST_CASE("the v2 protobuf form carries descriptions, beside references too") {
  kw::http::OpenApiDocuments documents;
  const std::string& document = documents.documents(table())->v2_protobuf.body;
  const auto definitions = fields(fields(document, 9).at(0), 1);
  const std::string pod = named(definitions, "io.k8s.api.core.v1.Pod");
  CHECK(fields(pod, 4) == std::vector<std::string>{std::string(description_of("k8s.io.api.core.v1.Pod"))});
  const std::string spec = named(fields(fields(pod, 25).at(0), 1), "spec");
  CHECK(fields(spec, 1) == std::vector<std::string>{"#/definitions/io.k8s.api.core.v1.PodSpec"});
  CHECK(fields(spec, 4) == std::vector<std::string>{std::string(description_of("k8s.io.api.core.v1.Pod.spec"))});
  const std::string container = named(definitions, "io.k8s.api.core.v1.Container");
  const std::string image = named(fields(fields(container, 25).at(0), 1), "image");
  CHECK(fields(image, 4) ==
        std::vector<std::string>{std::string(description_of("k8s.io.api.core.v1.Container.image"))});
}

TEST_CASE("the kw.api options of the .proto files: merge keys, patch strategies, required fields") {
  using kw::proto::field_notes;
  const auto* containers = field_notes("k8s.io.api.core.v1.PodSpec.containers");
  REQUIRE(containers != nullptr);
  CHECK(containers->merge_key == "name");
  CHECK(containers->patch_strategy == "merge");
  CHECK(containers->required);
  CHECK(field_notes("k8s.io.api.core.v1.PodSpec.volumes")->patch_strategy == "merge,retainKeys");
  const auto* finalizers = field_notes("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.finalizers");
  REQUIRE(finalizers != nullptr);
  CHECK(finalizers->merge_key.empty());
  CHECK(finalizers->patch_strategy == "merge");
  CHECK(field_notes("k8s.io.api.core.v1.EphemeralContainerCommon.name")->required);
  CHECK(field_notes("k8s.io.api.core.v1.PodSpec.priority") == nullptr);  // a Go pointer: no notes
  // Plain Go scalars: omitempty ones drop their zero value, the others always have one.
  CHECK(field_notes("k8s.io.api.core.v1.PodSpec.nodeName")->go_zero == kw::proto::GoZero::omit);
  CHECK(field_notes("k8s.io.api.core.v1.ContainerPort.containerPort")->go_zero == kw::proto::GoZero::keep);
  CHECK(field_notes("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.generation")->go_zero == kw::proto::GoZero::omit);

  // Every merging list is a list, and its merge key names a field of the items. The walk
  // covers every message the served kinds reach.
  int merged = 0;
  std::set<const google::protobuf::Descriptor*> seen;
  std::vector<const google::protobuf::Descriptor*> pending;
  for (const auto& resource : table().all())
    if (const auto* message = kw::proto::find_message(resource.proto_message)) pending.push_back(message);
  while (!pending.empty()) {
    const auto* message = pending.back();
    pending.pop_back();
    if (!seen.insert(message).second) continue;
    for (int i = 0; i < message->field_count(); ++i) {
      const auto* field = message->field(i);
      if (field->message_type() != nullptr) pending.push_back(field->message_type());
      const auto* notes = field_notes(field->full_name());
      if (notes == nullptr || notes->patch_strategy.empty()) continue;
      ++merged;
      const std::string& name = field->full_name();
      const bool object_strategy = notes->patch_strategy == "replace" || notes->patch_strategy == "retainKeys";
      CHECK_MESSAGE((field->is_repeated() || (object_strategy && field->message_type() != nullptr)),
                    name << " merges but is not a list (an object may only be replaced whole or retain keys)");
      if (!notes->merge_key.empty()) {
        REQUIRE_MESSAGE(field->message_type() != nullptr, name);
        CHECK_MESSAGE(kw::codec::json_field(*field->message_type(), notes->merge_key) != nullptr,
                      name << ": no field " << notes->merge_key << " in the items");
      }
    }
  }
  CHECK(merged >= 32);
}

TEST_CASE("list, map and struct types from the .proto options become x-kubernetes markers") {
  const auto* ports = kw::proto::field_notes("k8s.io.api.core.v1.Container.ports");
  REQUIRE(ports != nullptr);
  CHECK(ports->list_type == "map");
  CHECK(ports->list_map_keys == std::vector<std::string>{"containerPort", "protocol"});
  CHECK(kw::proto::struct_type_of("k8s.io.api.core.v1.LocalObjectReference") == "atomic");
  CHECK(kw::proto::struct_type_of("k8s.io.api.core.v1.PodSpec").empty());

  const json& container = schema(core_v3(), "io.k8s.api.core.v1.Container")["properties"]["ports"];
  CHECK(container["x-kubernetes-list-type"] == "map");
  CHECK(container["x-kubernetes-list-map-keys"] == json{"containerPort", "protocol"});
  CHECK(container["x-kubernetes-patch-merge-key"] == "containerPort");
  const json& service = schema(v2(), "io.k8s.api.core.v1.ServiceSpec")["properties"];
  CHECK(service["selector"]["x-kubernetes-map-type"] == "atomic");
  CHECK(service["ipFamilies"]["x-kubernetes-list-type"] == "atomic");
  CHECK(schema(v2(), "io.k8s.api.core.v1.LocalObjectReference")["x-kubernetes-map-type"] == "atomic");
  CHECK_FALSE(schema(v2(), "io.k8s.api.core.v1.PodSpec").contains("x-kubernetes-map-type"));
}
