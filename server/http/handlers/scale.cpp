#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {
namespace {

// autoscaling/v1 Scale has no protobuf message in kw: JSON and YAML only.
constexpr Offers k_scale_offers{};

void write_scale(const ResourceRequest& r, const std::function<std::optional<Mutation>()>& change) {
  WriteContext write;
  if (!write.begin(r, k_scale_offers)) return;
  auto mutate = change();
  if (!mutate) return;
  reply(r, write.format, 200,
        r.registry.update_scale(r.resource, r.info.namespace_, r.info.name, *mutate, write.options), write.warnings);
}

}  // namespace

void get_scale(const ResourceRequest& r) {
  auto format = negotiate(r, k_scale_offers);
  if (!format) return;
  reply(r, *format, 200, r.registry.get_scale(r.resource, r.info.namespace_, r.info.name));
}

void update_scale(const ResourceRequest& r) {
  write_scale(r, [&r]() -> std::optional<Mutation> {
    auto body = read_body(r.request);
    if (!body) {
      r.fail(body.error());
      return std::nullopt;
    }
    return [body = std::move(*body)](const nlohmann::json&) -> registry::ApiResult<nlohmann::json> { return body; };
  });
}

void patch_scale(const ResourceRequest& r) {
  write_scale(r, [&r] { return patch_mutation(r, true); });
}

}  // namespace kw::http::handlers
