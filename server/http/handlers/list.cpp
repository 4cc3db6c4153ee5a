#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void list(const ResourceRequest& r) {
  auto format = negotiate(r, {.partial_metadata = "PartialObjectMetadataList",
                                .table = true,
                                .protobuf = !r.resource.proto_message.empty()});
  if (!format) return;
  registry::ListRequest request;
  request.namespace_ = r.info.namespace_;
  request.label_selector = r.param("labelSelector");
  request.field_selector = r.param("fieldSelector");
  request.resource_version = r.param("resourceVersion");
  request.resource_version_match = r.param("resourceVersionMatch");
  request.continue_token = r.param("continue");
  if (const auto limit = r.param("limit"); !limit.empty()) {
    try {
      request.limit = std::stoll(limit);
    } catch (const std::exception&) {
      return r.fail(registry::bad_request("limit: Invalid value: \"" + limit + "\": must be an integer"));
    }
  }
  if (query_bool(r.query, "sendInitialEvents"))
    return r.fail(registry::ApiError{422, "Invalid", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list", {}});
  auto listed = r.registry.list(r.resource, request);
  if (!listed) return r.fail(listed.error());
  reply_list(r, *format, *listed);
}

}  // namespace kw::http::handlers
