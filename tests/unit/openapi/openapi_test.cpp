// The OpenAPI documents: schemas derived from the descriptors, Kubernetes' extensions,
// the paths kubectl inspects, and how they are served (ETag, ?hash=, Accept).
#include <doctest/doctest.h>

#include <memory>
#include <mutex>
#include <string>

#include "core/codec/protobuf.hpp"
#include "server/http/openapi.hpp"
#include "openapi_test_support.hpp"
#include "server/registry/kinds/kind_spec.hpp"
#include "support/recording_stream.hpp"

namespace {

using nlohmann::json;
using namespace kw::http::openapi::test;

using kw::testing::RecordingStream;

kw::net::Request get(std::string path, std::string query = "", kw::net::Headers headers = {}) {
  kw::net::Request request;
  request.method = "GET";
  request.path = std::move(path);
  request.query = std::move(query);
  request.headers = std::move(headers);
  return request;
}

// The reference a property points at: its "$ref", or the one in its allOf wrapper (v3).
std::string ref_of(const json& property) {
  if (property.contains("$ref")) return property["$ref"];
  REQUIRE_MESSAGE(property.contains("allOf"), property.dump());
  return property["allOf"][0]["$ref"];
}

// `property` without its help text.
json undescribed(json property) {
  property.erase("description");
  return property;
}

bool has_query_param(const json& operation, std::string_view name) {
  for (const auto& p : operation.value("parameters", json::array())) {
    if (p.value("name", "") == name && p.value("in", "") == "query") return true;
  }
  return false;
}

}  // namespace

TEST_CASE("key schemas are present under Kubernetes' definition names") {
  for (const auto* doc : {&v2(), &core_v3()}) {
    for (const char* name :
         {"io.k8s.api.core.v1.Pod", "io.k8s.api.core.v1.PodList", "io.k8s.api.core.v1.PodSpec",
          "io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.ConfigMap",
          "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
          "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
          "io.k8s.apimachinery.pkg.apis.meta.v1.Patch", "io.k8s.apimachinery.pkg.api.resource.Quantity"}) {
      CHECK_MESSAGE(schema(*doc, name).is_object(), name);
    }
  }
  CHECK(schema(apps_v3(), "io.k8s.api.apps.v1.Deployment").is_object());
  CHECK(schema(v2(), "io.k8s.api.apps.v1.DeploymentStrategy").is_object());
  // A group version's document carries only its own kinds.
  CHECK_FALSE(core_v3()["components"]["schemas"].contains("io.k8s.api.apps.v1.Deployment"));
  CHECK(kw::http::openapi_v3_document(table(), "apis/example.com/v1").is_null());
}

TEST_CASE("kinds carry x-kubernetes-group-version-kind, apiVersion and kind") {
  const json& pod = schema(core_v3(), "io.k8s.api.core.v1.Pod");
  CHECK(pod["x-kubernetes-group-version-kind"] == json::parse(R"([{"group":"","kind":"Pod","version":"v1"}])"));
  CHECK(pod["properties"]["apiVersion"]["type"] == "string");
  CHECK(pod["properties"]["kind"]["type"] == "string");
  CHECK(ref_of(pod["properties"]["metadata"]) ==
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(ref_of(pod["properties"]["spec"]) == "#/components/schemas/io.k8s.api.core.v1.PodSpec");
  CHECK(schema(v2(), "io.k8s.api.core.v1.Pod")["properties"]["spec"]["$ref"] ==
        "#/definitions/io.k8s.api.core.v1.PodSpec");
  const json& deployment = schema(apps_v3(), "io.k8s.api.apps.v1.Deployment");
  CHECK(deployment["x-kubernetes-group-version-kind"][0] ==
        json{{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}});
  CHECK(schema(apps_v3(), "io.k8s.api.apps.v1.DeploymentList")["x-kubernetes-group-version-kind"][0]["kind"] ==
        "DeploymentList");
  // Templates are embedded without TypeMeta.
  CHECK_FALSE(schema(apps_v3(), "io.k8s.api.core.v1.PodTemplateSpec")["properties"].contains("kind"));
}

TEST_CASE("object fields carry the strategy strategic merge patch gives them, as kube publishes it") {
  // OpenAPI v3: the reference inside an allOf, the strategy beside it.
  const json& strategy = schema(apps_v3(), "io.k8s.api.apps.v1.DeploymentSpec")["properties"]["strategy"];
  CHECK(ref_of(strategy) == "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy");
  CHECK(strategy["x-kubernetes-patch-strategy"] == "retainKeys");
  CHECK(strategy.contains("description"));
  // OpenAPI v2: beside the reference.
  const json& v2_strategy = schema(v2(), "io.k8s.api.apps.v1.DeploymentSpec")["properties"]["strategy"];
  CHECK(v2_strategy["$ref"] == "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy");
  CHECK(v2_strategy["x-kubernetes-patch-strategy"] == "retainKeys");
  CHECK(schema(v2(), "io.k8s.api.policy.v1.PodDisruptionBudgetSpec")["properties"]["selector"]
            ["x-kubernetes-patch-strategy"] == "replace");
  CHECK_FALSE(schema(v2(), "io.k8s.api.apps.v1.DeploymentSpec")["properties"]["template"].contains(
      "x-kubernetes-patch-strategy"));
}

TEST_CASE("lists strategic merge patch merges carry merge key and strategy") {
  const json& spec = schema(core_v3(), "io.k8s.api.core.v1.PodSpec")["properties"];
  CHECK(spec["containers"]["type"] == "array");
  CHECK(spec["containers"]["items"]["$ref"] == "#/components/schemas/io.k8s.api.core.v1.Container");
  CHECK(spec["containers"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(spec["containers"]["x-kubernetes-patch-strategy"] == "merge");
  CHECK(spec["initContainers"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(spec["volumes"]["x-kubernetes-patch-strategy"] == "merge,retainKeys");
  CHECK_FALSE(spec["tolerations"].contains("x-kubernetes-patch-merge-key"));
  const json& container = schema(core_v3(), "io.k8s.api.core.v1.Container")["properties"];
  CHECK(container["volumeMounts"]["x-kubernetes-patch-merge-key"] == "mountPath");
  CHECK(container["ports"]["x-kubernetes-patch-merge-key"] == "containerPort");
  CHECK(container["env"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.ServiceSpec")["properties"]["ports"]["x-kubernetes-patch-merge-key"] ==
        "port");
  CHECK(schema(apps_v3(),
               "io.k8s.api.apps.v1.DeploymentStatus")["properties"]["conditions"]["x-kubernetes-patch-merge-key"] ==
        "type");
  // Inline structs: EphemeralContainer shows EphemeralContainerCommon's fields, with their markers.
  const json& ephemeral = schema(core_v3(), "io.k8s.api.core.v1.EphemeralContainer")["properties"];
  CHECK(ephemeral.contains("image"));
  CHECK_FALSE(ephemeral.contains("ephemeralContainerCommon"));
  CHECK(ephemeral["env"]["x-kubernetes-patch-merge-key"] == "name");
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.Volume")["properties"].contains("configMap"));
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.Probe")["properties"].contains("httpGet"));
}

TEST_CASE("special types follow Kubernetes' JSON mapping") {
  const json& strategy = schema(apps_v3(), "io.k8s.api.apps.v1.RollingUpdateDeployment")["properties"];
  CHECK(ref_of(strategy["maxSurge"]) == "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  const json& int_or_string = schema(apps_v3(), "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  CHECK(int_or_string["x-kubernetes-int-or-string"] == true);
  CHECK(int_or_string["format"] == "int-or-string");
  CHECK(schema(v2(), "io.k8s.apimachinery.pkg.util.intstr.IntOrString")["type"] == "string");
  const json& time = schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  CHECK(undescribed(time) == json{{"type", "string"}, {"format", "date-time"}});
  CHECK(
      ref_of(schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")["properties"]["creationTimestamp"]) ==
      "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  CHECK(schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime")["format"] == "date-time");
  CHECK(
      ref_of(schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry")["properties"]["fieldsV1"]) ==
      "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1");
  CHECK(schema(core_v3(), "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1")["type"] == "object");
  const json& limits = schema(core_v3(), "io.k8s.api.core.v1.ResourceRequirements")["properties"]["limits"];
  CHECK(limits["type"] == "object");
  CHECK(limits["additionalProperties"]["$ref"] == "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
  const json& secret = schema(core_v3(), "io.k8s.api.core.v1.Secret")["properties"];
  CHECK(secret["data"]["additionalProperties"] == json{{"type", "string"}, {"format", "byte"}});
  CHECK(secret["stringData"]["additionalProperties"] == json{{"type", "string"}});
  CHECK(schema(core_v3(),
               "io.k8s.api.core.v1.ConfigMap")["properties"]["binaryData"]["additionalProperties"]["format"] == "byte");
}

TEST_CASE("scalar types and required fields") {
  const json& container = schema(core_v3(), "io.k8s.api.core.v1.Container");
  CHECK(container["required"] == json{"name"});
  CHECK(undescribed(container["properties"]["image"]) == json{{"type", "string"}});
  CHECK(undescribed(container["properties"]["stdin"]) == json{{"type", "boolean"}});
  CHECK(undescribed(container["properties"]["command"]) == json{{"type", "array"}, {"items", {{"type", "string"}}}});
  CHECK(undescribed(schema(core_v3(), "io.k8s.api.core.v1.ContainerPort")["properties"]["containerPort"]) ==
        json{{"type", "integer"}, {"format", "int32"}});
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.PodSpec")["properties"]["activeDeadlineSeconds"]["format"] == "int64");
  CHECK(schema(apps_v3(), "io.k8s.api.apps.v1.DeploymentSpec")["required"] == json{"selector", "template"});
  CHECK(schema(core_v3(), "io.k8s.api.core.v1.PodSpec")["required"] == json{"containers"});
}

TEST_CASE("every $ref resolves inside its own document") {
  for (const auto* doc : {&v2(), &core_v3(), &apps_v3()}) {
    const bool is_v2 = doc->contains("swagger");
    const json& schemas = is_v2 ? (*doc)["definitions"] : (*doc)["components"]["schemas"];
    const std::string prefix = is_v2 ? "#/definitions/" : "#/components/schemas/";
    const json flat = doc->flatten();
    int refs = 0;
    for (const auto& [pointer, value] : flat.items()) {
      if (!pointer.ends_with("/$ref")) continue;
      ++refs;
      const std::string ref = value.get<std::string>();
      REQUIRE(ref.starts_with(prefix));
      CHECK_MESSAGE(schemas.contains(ref.substr(prefix.size())), pointer << " -> " << ref);
    }
    CHECK(refs > 100);
  }
}

TEST_CASE("paths: operations, GVK extension and query parameters kubectl looks for") {
  const json& paths = core_v3()["paths"];
  REQUIRE(paths.contains("/api/v1/namespaces/{namespace}/pods"));
  const json& create = paths["/api/v1/namespaces/{namespace}/pods"]["post"];
  CHECK(create["operationId"] == "createCoreV1NamespacedPod");
  CHECK(create["x-kubernetes-action"] == "post");
  CHECK(create["x-kubernetes-group-version-kind"] == json{{"group", ""}, {"kind", "Pod"}, {"version", "v1"}});
  for (const char* name : {"fieldValidation", "dryRun", "fieldManager"})
    CHECK_MESSAGE(has_query_param(create, name), name);
  CHECK(create["requestBody"]["content"]["*/*"]["schema"]["$ref"] == "#/components/schemas/io.k8s.api.core.v1.Pod");
  CHECK(create["responses"]["201"]["content"]["application/json"]["schema"]["$ref"] ==
        "#/components/schemas/io.k8s.api.core.v1.Pod");

  const json& item = paths["/api/v1/namespaces/{namespace}/pods/{name}"];
  CHECK(item["get"]["operationId"] == "readCoreV1NamespacedPod");
  CHECK(has_query_param(item["put"], "fieldValidation"));
  CHECK(has_query_param(item["patch"], "fieldValidation"));
  CHECK(item["patch"]["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  CHECK(item["delete"]["operationId"] == "deleteCoreV1NamespacedPod");
  CHECK(item["parameters"][0]["name"] == "name");
  CHECK(item["parameters"][0]["in"] == "path");
  CHECK(paths["/api/v1/namespaces/{namespace}/pods/{name}/status"]["patch"]["operationId"] ==
        "patchCoreV1NamespacedPodStatus");
  CHECK(paths["/api/v1/pods"]["get"]["operationId"] == "listCoreV1PodForAllNamespaces");
  CHECK(has_query_param(paths["/api/v1/pods"]["get"], "labelSelector"));
  CHECK(paths["/api/v1/watch/namespaces/{namespace}/pods/{name}"]["get"]["x-kubernetes-action"] == "watch");
  CHECK(paths["/api/v1/namespaces/{namespace}/pods"]["delete"]["operationId"] == "deleteCoreV1CollectionNamespacedPod");
  // Cluster-scoped kinds have no namespace segment.
  CHECK(paths["/api/v1/nodes/{name}"]["get"]["operationId"] == "readCoreV1Node");
  CHECK_FALSE(paths["/api/v1/namespaces"].contains("delete"));  // Namespace has no deletecollection
  CHECK(apps_v3()["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]["operationId"] ==
        "patchAppsV1NamespacedDeployment");

  const json& v2_create = v2()["paths"]["/api/v1/namespaces/{namespace}/pods"]["post"];
  CHECK(has_query_param(v2_create, "fieldValidation"));
  CHECK(v2_create["parameters"][0]["in"] == "body");
  CHECK(v2_create["responses"]["200"]["schema"]["$ref"] == "#/definitions/io.k8s.api.core.v1.Pod");
  CHECK(v2()["swagger"] == "2.0");
  CHECK(core_v3()["openapi"] == "3.0.0");
}

namespace {

// The built-in table with one more resource, served as custom resources are (v1).
kw::api::ResourceTable with_resource(const std::string& group, const std::string& kind, const std::string& plural,
                                     bool custom) {
  kw::api::ResourceTable crds = kw::kinds::builtin_table();
  kw::api::ResourceInfo info;
  info.group = group;
  info.version = "v1";
  info.kind = kind;
  info.list_kind = kind + "List";
  info.plural = plural;
  info.custom = custom;
  info.verbs = {"get", "list", "create", "update", "patch", "delete", "watch"};
  crds.add(info);
  return crds;
}

}  // namespace

TEST_CASE("a custom resource gets a permissive schema and merge-patch only") {
  const auto crds = with_resource("stable.example.com", "CronTab", "crontabs", false);
  const json doc = kw::http::openapi_v3_document(crds, "apis/stable.example.com/v1");
  const json& cron = schema(doc, "com.example.stable.v1.CronTab");
  CHECK(cron["x-kubernetes-preserve-unknown-fields"] == true);
  CHECK(cron["x-kubernetes-group-version-kind"][0]["kind"] == "CronTab");
  const json& patch = doc["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"]["patch"];
  CHECK(patch["operationId"] == "patchStableExampleComV1NamespacedCronTab");
  CHECK(has_query_param(patch, "fieldValidation"));
  CHECK_FALSE(patch["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
}

namespace {

kw::api::ResourceTable with_widgets() { return with_resource("example.com", "Widget", "widgets", true); }

const json k_widget_schema = json::parse(R"({
  "type": "object",
  "required": ["spec"],
  "properties": {
    "spec": {
      "type": "object",
      "required": ["size", "note"],
      "properties": {
        "size": {"type": "integer", "minimum": 1, "maximum": 10, "example": 3},
        "note": {"type": "string", "nullable": true},
        "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                  "properties": {"kept": {"type": "string"}}},
        "raw": {"type": "array", "x-kubernetes-preserve-unknown-fields": true, "items": {"type": "string"}},
        "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                     "properties": {"spec": {"type": "object"}}},
        "loose": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true}
      }
    }
  }
})");

}  // namespace

TEST_CASE("a custom resource's schema in /openapi/v2 is made Swagger 2.0 compatible as kube-apiserver makes it") {
  const auto crds = with_widgets();
  const kw::http::CustomSchemas custom = {{"example.com/v1/Widget", k_widget_schema}};
  const json v2_doc = kw::http::swagger_v2_document(crds, custom);
  const json& widget = schema(v2_doc, "com.example.v1.Widget");
  CHECK(widget["x-kubernetes-group-version-kind"][0]["kind"] == "Widget");
  CHECK(widget["properties"]["metadata"]["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(widget["properties"].contains("apiVersion"));
  CHECK(widget["required"] == json::array({"spec"}));
  const json& spec = widget["properties"]["spec"];
  // A nullable property is untyped and no longer required.
  CHECK(spec["required"] == json::array({"size"}));
  CHECK(spec["properties"]["note"] == json::object());
  CHECK(spec["properties"]["size"] == json({{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}));
  // Junctors go; the int-or-string marker stays.
  CHECK(spec["properties"]["port"] == json({{"x-kubernetes-int-or-string", true}}));
  CHECK(spec["properties"]["mode"]["enum"] == json::array({"a", "b"}));
  // What keeps unknown fields loses its properties, items and (object) type; an array left
  // without items loses its type.
  CHECK(spec["properties"]["extra"] == json({{"x-kubernetes-preserve-unknown-fields", true}}));
  CHECK(spec["properties"]["raw"] == json({{"x-kubernetes-preserve-unknown-fields", true}}));
  // An embedded resource gets an object's type and metadata, unless it keeps unknown fields.
  const json& embedded = spec["properties"]["template"];
  CHECK(embedded["required"] == json::array({"kind", "apiVersion"}));
  CHECK(embedded["properties"]["metadata"] == widget["properties"]["metadata"]);
  CHECK(embedded["properties"].contains("kind"));
  CHECK_FALSE(spec["properties"]["loose"].contains("properties"));

  // OpenAPI v3 keeps the schema as the CRD has it, and also completes embedded resources.
  const json v3_doc = kw::http::openapi_v3_document(crds, "apis/example.com/v1", custom);
  const json& v3_spec = schema(v3_doc, "com.example.v1.Widget")["properties"]["spec"];
  CHECK(v3_spec["properties"]["note"]["nullable"] == true);
  CHECK_FALSE(v3_spec["properties"]["size"].contains("example"));  // not a structural schema keyword
  CHECK(v3_spec["required"] == json::array({"size", "note"}));
  CHECK(v3_spec["properties"]["loose"]["required"] == json::array({"kind", "apiVersion"}));

  // The protobuf form carries the validations (gnostic Schema fields 7 and 9: maximum, minimum;
  // 20: enum values as YAML).
  const std::string bytes = kw::http::openapi::swagger_v2_protobuf(v2_doc);
  CHECK(bytes.find("com.example.v1.Widget") != std::string::npos);
  CHECK(bytes.find("\"a\"") != std::string::npos);
}

TEST_CASE("a custom resource that keeps unknown fields at its root is only an object in /openapi/v2") {
  const auto crds = with_widgets();
  const kw::http::CustomSchemas custom = {
      {"example.com/v1/Widget", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}};
  const json doc = kw::http::swagger_v2_document(crds, custom);
  const json& widget = schema(doc, "com.example.v1.Widget");
  CHECK(widget == json({{"type", "object"},
                        {"x-kubernetes-group-version-kind",
                         {{{"group", "example.com"}, {"version", "v1"}, {"kind", "Widget"}}}}}));
}

TEST_CASE("handle_openapi serves discovery, documents, ETag and ?hash=") {
  kw::http::OpenApiDocuments documents;
  RecordingStream other;
  CHECK_FALSE(kw::http::handle_openapi(get("/api/v1"), other, table(), documents));
  CHECK_FALSE(kw::http::handle_openapi(get("/openapi/v3/apis/example.com/v1"), other, table(), documents));

  RecordingStream discovery;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v3", "", {{"accept", "application/json"}}), discovery, table(),
                                   documents));
  CHECK(discovery.status() == 200);
  CHECK(discovery.finished());
  const json paths = json::parse(discovery.body())["paths"];
  REQUIRE(paths.contains("api/v1"));
  REQUIRE(paths.contains("apis/apps/v1"));
  const std::string url = paths["apis/apps/v1"]["serverRelativeURL"];
  REQUIRE(url.starts_with("/openapi/v3/apis/apps/v1?hash="));
  const std::string hash = url.substr(url.find('=') + 1);

  RecordingStream hashed;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v3/apis/apps/v1", "hash=" + hash), hashed, table(), documents));
  CHECK(hashed.status() == 200);
  CHECK(hashed.header("content-type") == "application/json");
  CHECK(hashed.header("cache-control") == "public, immutable");
  CHECK(hashed.header("etag") == "\"" + hash + "\"");
  CHECK(json::parse(hashed.body()) == apps_v3());
  CHECK(hashed.header("content-length") == std::to_string(hashed.body().size()));

  RecordingStream stale;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v3/apis/apps/v1", "hash=0123"), stale, table(), documents));
  CHECK(stale.status() == 301);
  CHECK(stale.header("location") == url);

  RecordingStream not_modified;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v3/apis/apps/v1", "", {{"if-none-match", "\"" + hash + "\""}}),
                                   not_modified, table(), documents));
  CHECK(not_modified.status() == 304);
  CHECK(not_modified.body().empty());
  RecordingStream listed;
  REQUIRE(kw::http::handle_openapi(
      get("/openapi/v3/apis/apps/v1", "", {{"if-none-match", "\"other\", W/\"" + hash + "\""}}), listed, table(),
      documents));
  CHECK(listed.status() == 304);
  RecordingStream changed;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v3/apis/apps/v1", "", {{"if-none-match", "\"other\""}}), changed,
                                   table(), documents));
  CHECK(changed.status() == 200);

  RecordingStream swagger;
  REQUIRE(kw::http::handle_openapi(get("/openapi/v2", "", {{"accept", "application/json, */*"}}), swagger, table(),
                                   documents));
  CHECK(swagger.status() == 200);
  CHECK(json::parse(swagger.body())["swagger"] == "2.0");

  // A media type kw does not have.
  RecordingStream refused;
  REQUIRE(kw::http::handle_openapi(
      get("/openapi/v3/api/v1", "", {{"accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"}}),
      refused, table(), documents));
  CHECK(refused.status() == 406);
  CHECK(json::parse(refused.body())["kind"] == "Status");
}

TEST_CASE("documents are rebuilt when the resource table changes") {
  kw::http::OpenApiDocuments documents;
  kw::api::ResourceTable changing = kw::kinds::builtin_table();
  const auto first = documents.documents(changing);
  CHECK(documents.documents(changing) == first);  // cached
  changing.remove("apps", "v1", "daemonsets");
  const auto second = documents.documents(changing);
  CHECK(second != first);
  CHECK(second->v3.at("apis/apps/v1").hash != first->v3.at("apis/apps/v1").hash);
  CHECK(second->v3.at("api/v1").hash == first->v3.at("api/v1").hash);
}

TEST_CASE("every property of the Pod schema is a field the transcoder accepts") {
  // The schema and the protobuf transcoder must agree on names (inline structs included):
  // an object using every top-level PodSpec/Container property encodes under Strict validation.
  const json& container = schema(core_v3(), "io.k8s.api.core.v1.Container")["properties"];
  json sample = json::object();
  for (const auto& [name, property] : container.items()) {
    if (property.value("type", "") == "string") sample[name] = "x";
  }
  sample["name"] = "c";
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}}},
              {"spec", {{"containers", json::array({sample})}}}};
  auto encoded = kw::codec::json_to_protobuf(pod, "k8s.io.api.core.v1.Pod", kw::codec::FieldValidation::Strict);
  CHECK_MESSAGE(encoded.has_value(), (encoded ? "" : encoded.error().message));
}

TEST_CASE("v2 in gnostic protobuf form, as client-go asks for it") {
  kw::http::OpenApiDocuments documents;
  RecordingStream stream;
  REQUIRE(kw::http::handle_openapi(
      get("/openapi/v2", "", {{"accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}}), stream,
      table(), documents));
  CHECK(stream.status() == 200);
  CHECK(stream.header("content-type") == "application/octet-stream");
  const std::string& document = stream.body();
  CHECK(fields(document, 1) == std::vector<std::string>{"2.0"});  // swagger
  // definitions(9).additional_properties(1) -> NamedSchema "io.k8s.api.core.v1.Pod"
  const std::string pod = named(fields(fields(document, 9).at(0), 1), "io.k8s.api.core.v1.Pod");
  CHECK(fields(fields(pod, 22).at(0), 1) == std::vector<std::string>{"object"});      // type
  const std::string gvk = named(fields(pod, 31), "x-kubernetes-group-version-kind");  // vendor_extension
  CHECK(json::parse(fields(gvk, 2).at(0)) == json::parse(R"([{"group":"","kind":"Pod","version":"v1"}])"));
  // properties(25) -> spec -> _ref(1)
  const std::string spec = named(fields(fields(pod, 25).at(0), 1), "spec");
  CHECK(fields(spec, 1) == std::vector<std::string>{"#/definitions/io.k8s.api.core.v1.PodSpec"});
  const std::string pod_spec = named(fields(fields(document, 9).at(0), 1), "io.k8s.api.core.v1.PodSpec");
  const std::string containers = named(fields(fields(pod_spec, 25).at(0), 1), "containers");
  const std::string merge_key = named(fields(containers, 31), "x-kubernetes-patch-merge-key");
  CHECK(json::parse(fields(merge_key, 2).at(0)) == "name");
  // paths(8).path(2) -> "/api/v1/namespaces/{namespace}/pods" -> post(4) -> operation_id(5)
  const std::string pods = named(fields(fields(document, 8).at(0), 2), "/api/v1/namespaces/{namespace}/pods");
  const std::string post = fields(pods, 4).at(0);
  CHECK(fields(post, 5) == std::vector<std::string>{"createCoreV1NamespacedPod"});
  bool field_validation = false;
  for (const auto& item : fields(post, 8)) {  // parameters: ParametersItem.parameter.non_body.query
    for (const auto& param : fields(item, 1)) {
      for (const auto& non_body : fields(param, 2)) {
        for (const auto& query : fields(non_body, 3)) field_validation |= fields(query, 4).at(0) == "fieldValidation";
      }
    }
  }
  CHECK(field_validation);
}
