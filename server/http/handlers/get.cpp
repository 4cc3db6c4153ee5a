#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void get(const ResourceRequest& r) {
  const bool has_protobuf = !r.resource.proto_message.empty();
  // A status subresource answers a Table in the main resource's columns (kube-apiserver 1.24+).
  auto format = negotiate(r, {.partial_metadata = r.info.subresource.empty() ? "PartialObjectMetadata" : "",
                                .table = r.info.subresource.empty() || r.info.subresource == "status",
                                .protobuf = has_protobuf});
  if (!format) return;
  const std::string resource_version = r.param("resourceVersion");
  if (r.info.subresource.empty()) {  // encoded as the watch cache encodes it, when it holds it
    auto found = r.registry.get_object(r.resource, r.info.namespace_, r.info.name, resource_version);
    if (!found) return r.fail(found.error());
    return reply_cached(r, *format, **found);
  }
  reply(r, *format, 200, r.registry.get(r.resource, r.info.namespace_, r.info.name, resource_version));
}

}  // namespace kw::http::handlers
