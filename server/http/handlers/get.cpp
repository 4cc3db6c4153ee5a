#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void get(const ResourceRequest& r) {
  const bool has_protobuf = !r.resource.proto_message.empty();
  auto format = negotiate(r, {.partial_metadata = r.info.subresource.empty() ? "PartialObjectMetadata" : "",
                                .table = r.info.subresource.empty(),
                                .protobuf = has_protobuf});
  if (!format) return;
  reply(r, *format, 200, r.registry.get(r.resource, r.info.namespace_, r.info.name, r.param("resourceVersion")));
}

}  // namespace kw::http::handlers
