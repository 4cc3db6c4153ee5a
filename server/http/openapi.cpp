#include "server/http/openapi.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>

#include "core/codec/media_type.hpp"
#include "core/util/text.hpp"
#include "server/http/openapi_build.hpp"
#include "server/http/request_info.hpp"
#include "server/http/respond.hpp"

namespace kw::http {
namespace {

using nlohmann::json;
using openapi::Dialect;

constexpr std::string_view k_v2_path = "/openapi/v2";
constexpr std::string_view k_v3_path = "/openapi/v3";
constexpr std::string_view k_v2_protobuf_type = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

std::string group_version_path(const api::ResourceInfo& resource) {
  return resource.group.empty() ? "api/" + resource.version : "apis/" + resource.group + "/" + resource.version;
}

json info_object() { return {{"title", "Kubernetes"}, {"version", "unversioned"}}; }

// Two FNV-1a 64-bit digests with different offset bases: a stable content hash.
std::string content_hash(std::string_view bytes) {
  std::uint64_t first = 14695981039346656037ull;
  std::uint64_t second = 0x6c62272e07bb0142ull;
  for (unsigned char c : bytes) {
    first = (first ^ c) * 1099511628211ull;
    second = (second ^ c) * 1099511628211ull;
  }
  char text[33];
  std::snprintf(text, sizeof text, "%016llX%016llX", static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(second));
  return text;
}

OpenApiDocument serialize(const json& document) {
  OpenApiDocument out;
  out.body = document.dump(-1, ' ', false, json::error_handler_t::replace);
  out.hash = content_hash(out.body);
  return out;
}

std::string fingerprint(const api::ResourceTable& table, const CustomSchemas& custom) {
  std::string out;
  for (const auto& [key, schema] : custom) out += key + "=" + schema.dump() + "\n";
  for (const auto& r : table.all()) {
    out += r.group + "/" + r.version + "/" + r.plural + "/" + r.kind + "/" + r.list_kind + "/" + r.proto_message +
           (r.namespaced ? "/ns" : "/cluster");
    for (const auto& verb : r.verbs) out += "," + verb;
    for (const auto& sub : r.subresources) out += ";" + sub;
    out += "\n";
  }
  return out;
}

std::string http_date(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return text;
}

void send_bytes(net::ResponseStream& stream, int status, net::Headers headers, std::string body) {
  headers.push_back({"content-length", std::to_string(body.size())});
  stream.begin({status, std::move(headers), false});
  if (!body.empty()) stream.write(std::move(body));
  stream.finish();
}

void send_status(net::ResponseStream& stream, int code, std::string_view reason, std::string_view message) {
  const json status = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
                       {"status", "Failure"}, {"message", message}, {"reason", reason},
                       {"code", code}};
  send_bytes(stream, code, {{"content-type", "application/json"}}, status.dump());
}

// True when the client names the gnostic protobuf type and not JSON (client-go sends it alone).
bool wants_v2_protobuf(const net::Request& request) {
  const std::string* accept = request.header("accept");
  if (accept == nullptr) return false;
  const std::string lower = util::to_lower(*accept);
  return lower.find("application/com.github.proto-openapi.spec.v2") != std::string::npos &&
         lower.find("application/json") == std::string::npos;
}

// True when the Accept header allows application/json (no header: anything goes).
bool accepts_json(const net::Request& request) {
  const std::string* accept = request.header("accept");
  if (accept == nullptr || accept->empty()) return true;
  auto accepted = codec::parse_accept(*accept);
  if (!accepted) return false;
  codec::MediaType json_type;
  json_type.type = "application";
  json_type.subtype = "json";
  return codec::negotiate(*accepted, {json_type}).has_value();
}

// If-None-Match: "*" or a comma list of entity tags (weak ones compare equal too).
bool etag_matches(const std::string* header, std::string_view etag) {
  if (header == nullptr) return false;
  std::string_view rest = *header;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view tag = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
    while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == "*" || tag == etag) return true;
  }
  return false;
}

void send_document(const net::Request& request, net::ResponseStream& stream, const OpenApiDocument& document,
                   std::string cache_control, bool immutable, std::string_view content_type = "application/json") {
  const std::string etag = "\"" + document.hash + "\"";
  net::Headers headers = {{"etag", etag}, {"cache-control", std::move(cache_control)}, {"vary", "Accept"}};
  if (immutable)
    headers.push_back({"expires", http_date(std::chrono::system_clock::now() + std::chrono::hours(24 * 365))});
  if (etag_matches(request.header("if-none-match"), etag)) return send_bytes(stream, 304, std::move(headers), "");
  headers.push_back({"content-type", std::string(content_type)});
  send_bytes(stream, 200, std::move(headers), document.body);
}

void serve_v3_group_version(const net::Request& request, net::ResponseStream& stream, const std::string& path,
                            const OpenApiDocument& document) {
  const auto query = parse_query(request.query);
  const auto hash = query.find("hash");
  if (hash == query.end()) return send_document(request, stream, document, k_no_cache, false);
  if (hash->second == document.hash) return send_document(request, stream, document, "public, immutable", true);
  // An outdated hash: point the client at the current document, never cached.
  const std::string location = std::string(k_v3_path) + "/" + path + "?hash=" + document.hash;
  send_bytes(stream, 301, {{"location", location}, {"cache-control", "no-cache, no-store"}}, "");
}

}  // namespace

std::vector<std::string> openapi_v3_group_versions(const api::ResourceTable& table) {
  std::vector<std::string> out;
  for (const auto& resource : table.all()) {
    std::string path = group_version_path(resource);
    if (std::find(out.begin(), out.end(), path) == out.end()) out.push_back(std::move(path));
  }
  return out;
}

// The schema as kube-apiserver keeps a CRD's (its structural form): the keywords of structural
// schemas at every level; others ("example", "externalDocs", "$schema", ...) are not published.
json structural(const json& schema) {
  static constexpr std::string_view k_kept[] = {
      "type", "description", "title", "default", "nullable", "format", "maximum", "exclusiveMaximum", "minimum",
      "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf",
      "enum", "maxProperties", "minProperties", "required", "allOf", "anyOf", "oneOf", "not", "items", "properties",
      "additionalProperties", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
      "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
      "x-kubernetes-validations"};
  if (!schema.is_object()) return schema;
  json out = json::object();
  for (const auto& [key, value] : schema.items()) {
    if (std::find(std::begin(k_kept), std::end(k_kept), key) == std::end(k_kept)) continue;
    if (key == "properties" && value.is_object()) {
      json& properties = out[key] = json::object();
      for (const auto& [name, property] : value.items()) properties[name] = structural(property);
    } else if ((key == "allOf" || key == "anyOf" || key == "oneOf") && value.is_array()) {
      json& list = out[key] = json::array();
      for (const auto& item : value) list.push_back(structural(item));
    } else if (key == "items" || key == "not" || key == "additionalProperties") {
      out[key] = structural(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

// Swagger 2.0 cannot say what a structural schema says with junctors or nullable, and kubectl
// reads an untyped value, or an object that keeps unknown fields, wrongly when it has
// properties or items. As kube-apiserver publishes a CRD schema in /openapi/v2: at every
// level allOf, anyOf, oneOf and not go; a nullable value loses its type, items and properties
// (and is no longer required of its parent); one that keeps unknown fields loses its items and
// properties, and its type when that was "object"; an array left without items loses its type.
json swagger_v2_compatible(json schema) {
  if (!schema.is_object()) return schema;
  for (const char* junctor : {"allOf", "anyOf", "oneOf", "not"}) schema.erase(junctor);
  const bool nullable = schema.value("nullable", false);
  schema.erase("nullable");
  if (nullable) {
    schema.erase("type");
    schema.erase("items");
    schema.erase("properties");
  }
  const bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
  if (preserve) {
    schema.erase("items");
    schema.erase("properties");
  }
  const std::string type = schema.value("type", std::string());
  if ((type == "array" && !schema.contains("items")) || (preserve && type == "object")) schema.erase("type");
  // A required property that may be null is not required (checked before the properties change).
  if (auto required = schema.find("required"); required != schema.end() && required->is_array()) {
    const auto extra = schema.find("additionalProperties");
    if (extra != schema.end() && extra->is_object() && extra->value("nullable", false)) {
      schema.erase(required);
    } else if (const auto properties = schema.find("properties"); properties != schema.end() && properties->is_object()) {
      json kept = json::array();
      for (const auto& name : *required)
        if (!name.is_string() || !properties->contains(name.get<std::string>()) ||
            !(*properties)[name.get<std::string>()].value("nullable", false))
          kept.push_back(name);
      *required = std::move(kept);
    }
  }
  if (auto properties = schema.find("properties"); properties != schema.end() && properties->is_object())
    for (auto& [name, property] : properties->items()) property = swagger_v2_compatible(std::move(property));
  if (auto items = schema.find("items"); items != schema.end()) *items = swagger_v2_compatible(std::move(*items));
  if (auto extra = schema.find("additionalProperties"); extra != schema.end() && extra->is_object())
    *extra = swagger_v2_compatible(std::move(*extra));
  return schema;
}

// An object marked x-kubernetes-embedded-resource, at any depth, gets the apiVersion, kind and
// metadata properties of an object, with apiVersion and kind required. (Not in Swagger 2.0 for
// one that keeps unknown fields: kubectl would then refuse the fields it does not list.)
void add_embedded_properties(json& schema, const json& type_meta, Dialect dialect) {
  if (!schema.is_object()) return;
  if (auto properties = schema.find("properties"); properties != schema.end() && properties->is_object())
    for (auto& [name, property] : properties->items()) add_embedded_properties(property, type_meta, dialect);
  if (auto items = schema.find("items"); items != schema.end()) add_embedded_properties(*items, type_meta, dialect);
  if (auto extra = schema.find("additionalProperties"); extra != schema.end())
    add_embedded_properties(*extra, type_meta, dialect);
  if (dialect == Dialect::swagger_v2 && schema.value("x-kubernetes-preserve-unknown-fields", false)) return;
  if (!schema.value("x-kubernetes-embedded-resource", false)) return;
  json& properties = schema["properties"];
  for (const char* field : {"apiVersion", "kind", "metadata"})
    if (type_meta.contains(field)) properties[field] = type_meta[field];
  json& required = schema["required"];
  if (!required.is_array()) required = json::array();
  for (const char* field : {"kind", "apiVersion"})
    if (std::find(required.begin(), required.end(), field) == required.end()) required.push_back(field);
}

// A custom resource's kind schema: its CRD's openAPIV3Schema (made Swagger 2.0 compatible for
// v2), with the type and object metadata of the generic one. A v2 schema that keeps unknown
// fields at its root says only that the object is an object.
void use_custom_schema(const api::ResourceInfo& resource, const CustomSchemas& custom, Dialect dialect,
                       json& schemas) {
  auto found = custom.find(resource.group + "/" + resource.version + "/" + resource.kind);
  if (!resource.custom || found == custom.end() || !found->second.is_object()) return;
  json& generic = schemas[openapi::kind_definition(resource)];
  json type_meta = json::object();
  for (const char* field : {"apiVersion", "kind", "metadata"})
    if (generic.contains("properties") && generic["properties"].contains(field))
      type_meta[field] = generic["properties"][field];
  const json gvk = generic.value("x-kubernetes-group-version-kind", json::array());
  if (dialect == Dialect::swagger_v2 && found->second.value("x-kubernetes-preserve-unknown-fields", false)) {
    generic = {{"type", "object"}, {"x-kubernetes-group-version-kind", gvk}};
    return;
  }
  json merged = structural(found->second);
  if (dialect == Dialect::swagger_v2) merged = swagger_v2_compatible(std::move(merged));
  add_embedded_properties(merged, type_meta, dialect);
  if (!merged.contains("properties") || !merged["properties"].is_object()) merged["properties"] = json::object();
  for (auto& [field, schema] : type_meta.items()) merged["properties"][field] = schema;
  merged["x-kubernetes-group-version-kind"] = gvk;
  generic = std::move(merged);
}

json swagger_v2_document(const api::ResourceTable& table, const CustomSchemas& custom) {
  json definitions = json::object();
  json paths = json::object();
  openapi::add_meta_schemas(Dialect::swagger_v2, definitions);
  for (const auto& resource : table.all()) {
    openapi::add_resource_schemas(resource, Dialect::swagger_v2, definitions);
    use_custom_schema(resource, custom, Dialect::swagger_v2, definitions);
    openapi::add_resource_paths(resource, Dialect::swagger_v2, paths);
  }
  return {{"swagger", "2.0"},
          {"info", info_object()},
          {"paths", std::move(paths)},
          {"definitions", std::move(definitions)},
          {"securityDefinitions",
           {{"BearerToken",
             {{"type", "apiKey"},
              {"name", "authorization"},
              {"in", "header"},
              {"description", "Bearer Token authentication"}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

json openapi_v3_document(const api::ResourceTable& table, std::string_view path, const CustomSchemas& custom) {
  json schemas = json::object();
  json paths = json::object();
  bool found = false;
  for (const auto& resource : table.all()) {
    if (group_version_path(resource) != path) continue;
    found = true;
    openapi::add_resource_schemas(resource, Dialect::openapi_v3, schemas);
    use_custom_schema(resource, custom, Dialect::openapi_v3, schemas);
    openapi::add_resource_paths(resource, Dialect::openapi_v3, paths);
  }
  if (!found) return nullptr;
  openapi::add_meta_schemas(Dialect::openapi_v3, schemas);
  return {{"openapi", "3.0.0"},
          {"info", info_object()},
          {"paths", std::move(paths)},
          {"components",
           {{"schemas", std::move(schemas)},
            {"securitySchemes",
             {{"BearerToken",
               {{"type", "apiKey"},
                {"name", "authorization"},
                {"in", "header"},
                {"description", "Bearer Token authentication"}}}}}}},
          {"security", json::array({{{"BearerToken", json::array()}}})}};
}

std::shared_ptr<const OpenApiDocumentSet> OpenApiDocuments::documents(const api::ResourceTable& table,
                                                                      const CustomSchemas& custom) {
  std::string current = fingerprint(table, custom);
  std::lock_guard lock(m_mutex);
  if (m_documents && current == m_fingerprint) return m_documents;
  auto set = std::make_shared<OpenApiDocumentSet>();
  const json v2 = swagger_v2_document(table, custom);
  set->v2 = serialize(v2);
  set->v2_protobuf.body = openapi::swagger_v2_protobuf(v2);
  set->v2_protobuf.hash = content_hash(set->v2_protobuf.body);
  json discovery = {{"paths", json::object()}};
  for (const auto& path : openapi_v3_group_versions(table)) {
    OpenApiDocument document = serialize(openapi_v3_document(table, path, custom));
    discovery["paths"][path] = {{"serverRelativeURL", std::string(k_v3_path) + "/" + path + "?hash=" + document.hash}};
    set->v3.emplace(path, std::move(document));
  }
  set->v3_discovery = serialize(discovery);
  m_fingerprint = std::move(current);
  m_documents = std::move(set);
  return m_documents;
}

bool handle_openapi(const net::Request& request, net::ResponseStream& stream, const api::ResourceTable& table,
                    OpenApiDocuments& documents, const CustomSchemas& custom) {
  const std::string_view path = request.path;
  const bool v2 = path == k_v2_path;
  const bool v3 = path == k_v3_path || path.starts_with(std::string(k_v3_path) + "/");
  if (!v2 && !v3) return false;
  const auto set = documents.documents(table, custom);
  std::string_view group_version = path.size() > k_v3_path.size() ? path.substr(k_v3_path.size() + 1) : "";
  while (group_version.ends_with('/')) group_version.remove_suffix(1);
  const auto found = set->v3.find(std::string(group_version));
  if (v3 && !group_version.empty() && found == set->v3.end()) return false;
  if (v2 && wants_v2_protobuf(request)) {
    // As kube-apiserver does: Go's mime parser (client-go) rejects the '@' of the asked-for type.
    send_document(request, stream, set->v2_protobuf, k_no_cache, false, "application/octet-stream");
    return true;
  }
  if (!accepts_json(request)) {
    send_status(stream, 406, "NotAcceptable",
                "kw serves the OpenAPI documents as application/json (and /openapi/v2 also as " +
                    std::string(k_v2_protobuf_type) + ")");
    return true;
  }
  if (v2)
    send_document(request, stream, set->v2, k_no_cache, false);
  else if (group_version.empty())
    send_document(request, stream, set->v3_discovery, k_no_cache, false);
  else
    serve_v3_group_version(request, stream, found->first, found->second);
  return true;
}

bool handle_openapi(const net::Request& request, net::ResponseStream& stream, const api::ResourceTable& table,
                    const CustomSchemas& custom) {
  static OpenApiDocuments documents;
  return handle_openapi(request, stream, table, documents, custom);
}

}  // namespace kw::http
