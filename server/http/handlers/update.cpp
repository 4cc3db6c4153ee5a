#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {

void update(const ResourceRequest& r) {
  auto format = negotiate(r, {.protobuf = !r.resource.proto_message.empty()});
  if (!format) return;
  std::vector<std::string> warnings;
  auto write = write_options(r, warnings);
  if (!write) return;
  auto body = read_body(r.request);
  if (!body) return r.fail(body.error());
  reply(r, *format, 200, r.registry.update(r.resource, r.info.namespace_, r.info.name, std::move(*body), *write),
        warnings);
}

}  // namespace kw::http::handlers
