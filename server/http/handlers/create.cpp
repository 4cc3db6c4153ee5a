#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void create(const ResourceRequest& r) {
  if (!r.info.name.empty())
    return r.fail(registry::ApiError{405, "MethodNotAllowed", "POST is not supported on a named object", {}});
  WriteContext write;
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()}, "CreateOptions") || !write.track(r, "CreateOptions")) return;
  auto body = write.read_object(r);
  if (!body) return r.fail(body.error());
  reply(r, write.format, 201, r.registry.create(r.resource, r.info.namespace_, std::move(*body), write.options),
        write.warnings);
}

}  // namespace kw::http::handlers
