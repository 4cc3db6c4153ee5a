#pragma once
// The OpenAPI documents kube-apiserver publishes, derived from kw's protobuf
// descriptors and resource table:
//   GET /openapi/v2            Swagger 2.0: JSON, or the gnostic protobuf form client-go
//                              asks for (application/com.github.proto-openapi.spec.v2@v1.0+protobuf)
//   GET /openapi/v3            {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}}}
//   GET /openapi/v3/api/v1     OpenAPI 3.0, one document per group version
//   GET /openapi/v3/apis/<group>/<version>
// kubectl uses them to learn that the server validates fields (the fieldValidation
// query parameter on PATCH), to compute strategic merge patches for `apply` (merge keys
// on lists) and for `explain`. Documents are built once per resource-table content,
// serialized, and served from memory with an ETag; a `?hash=` URL that matches is
// answered as immutable, one that does not is redirected to the current hash.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/net/server/http_server.hpp"

namespace kw::http {

// The openAPIV3Schema of each custom resource version, by "<group>/<version>/<kind>":
// the documents describe custom resources with them (kubectl explain and validation, Helm).
using CustomSchemas = std::map<std::string, nlohmann::json>;

nlohmann::json swagger_v2_document(const api::ResourceTable& table, const CustomSchemas& custom = {});
// "api/v1", "apis/apps/v1", ...: the group versions of `table`, in discovery order.
std::vector<std::string> openapi_v3_group_versions(const api::ResourceTable& table);
// The OpenAPI 3.0 document of one group version ("api/v1", "apis/apps/v1"); null when
// the table serves no such group version.
nlohmann::json openapi_v3_document(const api::ResourceTable& table, std::string_view group_version_path,
                                   const CustomSchemas& custom = {});

struct OpenApiDocument {
  std::string body;  // serialized JSON (protobuf for OpenApiDocumentSet::v2_protobuf)
  std::string hash;  // hex digest of body: the ETag and the ?hash= of v3 URLs
};

struct OpenApiDocumentSet {
  OpenApiDocument v2;
  OpenApiDocument v2_protobuf;
  OpenApiDocument v3_discovery;
  std::map<std::string, OpenApiDocument> v3;  // by group version path ("api/v1")
};

// The serialized documents of a resource table, built on first use and rebuilt when
// the table changes (custom resources added or removed). Thread-safe.
class OpenApiDocuments {
 public:
  std::shared_ptr<const OpenApiDocumentSet> documents(const api::ResourceTable& table,
                                                      const CustomSchemas& custom = {});

 private:
  std::mutex m_mutex;  // guards m_fingerprint and m_documents
  std::string m_fingerprint;
  std::shared_ptr<const OpenApiDocumentSet> m_documents;
};

// Answers GET /openapi/v2, /openapi/v3 and /openapi/v3/<group version> and returns
// true; returns false (having written nothing) for any other path.
bool handle_openapi(const net::Request& request, net::ResponseStream& stream, const api::ResourceTable& table,
                    OpenApiDocuments& documents, const CustomSchemas& custom = {});
// The same with one process-wide OpenApiDocuments (a memo of a pure function of `table`).
bool handle_openapi(const net::Request& request, net::ResponseStream& stream, const api::ResourceTable& table,
                    const CustomSchemas& custom = {});

}  // namespace kw::http
