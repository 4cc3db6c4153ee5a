#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void update(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()}, "UpdateOptions") || !write.track(r, "UpdateOptions")) return;
  auto body = write.read_object(r);
  if (!body) return r.fail(body.error());
  reply(r, write.format, 200,
        r.registry.update(r.resource, r.info.namespace_, r.info.name, std::move(*body), write.options), write.warnings);
}

}  // namespace kw::http::handlers
