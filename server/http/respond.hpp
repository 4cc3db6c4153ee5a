#pragma once
// Content negotiation and response encoding: objects, lists and Status errors as JSON or
// YAML, and server-side Tables, written to a transport ResponseStream.
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/net/server/http_server.hpp"
#include "server/registry/api_error.hpp"

namespace kw::http {

enum class Format { json, yaml, table, protobuf };

struct Negotiated {
  Format format = Format::json;
  std::string content_type;             // the Content-Type to answer with
  std::string include_object = "Metadata";  // Table rows: None | Metadata | Object
  // as=PartialObjectMetadata (objects, watch events) or as=PartialObjectMetadataList (lists):
  // only apiVersion, kind and metadata of each object, as the metadata informers read them.
  bool metadata_only = false;
};

struct Offers {
  // as=<this>;g=meta.k8s.io: "PartialObjectMetadata" (get, watch) or
  // "PartialObjectMetadataList" (list); empty: not offered.
  std::string_view partial_metadata = {};
  bool watch = false;     // the stream media types (;stream=watch)
  bool table = false;     // as=Table
  bool protobuf = false;  // the kind has a protobuf form
};

// meta.k8s.io/v1 PartialObjectMetadata of an object: its metadata and nothing else.
nlohmann::json partial_object_metadata(const nlohmann::json& object);

// The response format for `accept`. nullopt = 406.
std::optional<Negotiated> negotiate_response(const std::string* accept, const Offers& offers);

// Compact JSON; bytes that are not UTF-8 (from a URL or a protobuf string) become U+FFFD
// instead of failing the response.
std::string dump_json(const nlohmann::json& value);

// kube-apiserver's Cache-Control on every answer that does not set its own.
inline constexpr const char* k_no_cache = "no-cache, private";

void send_json(net::ResponseStream& stream, int status, const nlohmann::json& body,
               const std::string& content_type = "application/json", const std::string& cache_control = k_no_cache);
// `warnings` (what the request collected before it failed) go out as Warning headers too.
void send_error(net::ResponseStream& stream, const registry::ApiError& error,
                const std::vector<std::string>& warnings = {});
// An object or list in the negotiated format (tables are built by the caller).
// `warnings` go out as `Warning: 299 - "..."` headers.
void send_object(net::ResponseStream& stream, int status, const nlohmann::json& body, const Negotiated& format,
                 const std::vector<std::string>& warnings = {});

// Bytes already encoded in the negotiated format (a list joined from cached JSON).
void send_encoded(net::ResponseStream& stream, int status, std::string bytes, const Negotiated& format,
                  const std::vector<std::string>& warnings = {});

// One Table row for `object` (cells, conditions, and the object per include_object).
nlohmann::json table_row(const api::ResourceInfo& info, const nlohmann::json& object,
                         const std::string& include_object, std::chrono::system_clock::time_point now);
nlohmann::json table_columns(const api::ResourceInfo& info);
// A meta.k8s.io/v1 Table of `info`'s columns: `metadata` (resourceVersion, continue...) and
// `rows`. Without columns (a watch sends them with its first event only) columnDefinitions
// is null.
nlohmann::json table_document(const api::ResourceInfo& info, nlohmann::json metadata, nlohmann::json rows,
                              bool with_columns = true);

}  // namespace kw::http
