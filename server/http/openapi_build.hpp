#pragma once
// Building blocks of the OpenAPI documents (openapi.hpp serves them): schemas
// derived from the protobuf descriptors with Kubernetes' JSON mapping, and the
// REST paths of each resource. Both dialects (Swagger 2.0 and OpenAPI 3.0)
// come from the same code; they differ only where the formats do (where
// references point, how parameters and bodies are written).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::http::openapi {

enum class Dialect { swagger_v2, openapi_v3 };

// "k8s.io.api.core.v1.Pod" -> "io.k8s.api.core.v1.Pod" (Kubernetes' definition names);
// "k8s.io.kube_aggregator.pkg.apis.apiregistration.v1.APIService" ->
// "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService" (the Go path's dashes).
std::string definition_name(std::string_view proto_full_name);
// {"$ref": "#/definitions/<name>"} (v2) or {"$ref": "#/components/schemas/<name>"} (v3).
nlohmann::json reference(std::string_view definition, Dialect dialect);

// The definition name of a resource's kind and list kind. Built-in kinds use their
// protobuf package; kinds without one (custom resources) a reversed-group name
// ("com.example.stable.v1.CronTab").
std::string kind_definition(const api::ResourceInfo& resource);
std::string list_definition(const api::ResourceInfo& resource);

// Adds to `schemas` (an object keyed by definition name) the schemas of the resource's
// kind and list, tagged with x-kubernetes-group-version-kind, and of every message they
// reach; then the meta/v1 types the paths use (Status, DeleteOptions, WatchEvent, Patch).
void add_resource_schemas(const api::ResourceInfo& resource, Dialect dialect, nlohmann::json& schemas);
void add_meta_schemas(Dialect dialect, nlohmann::json& schemas);

// Adds to `paths` the path items serving `resource`: collection, item, status
// subresource, the all-namespaces list and the watch paths, with their operations and
// query parameters.
void add_resource_paths(const api::ResourceInfo& resource, Dialect dialect, nlohmann::json& paths);

// The Swagger 2.0 document (as built by swagger_v2_document) in the protobuf form of
// package openapi.v2 (gnostic's Document), which client-go asks for.
std::string swagger_v2_protobuf(const nlohmann::json& document);

}  // namespace kw::http::openapi
