#include "server/http/handlers/handlers.hpp"

namespace kw::http::handlers {
namespace {

// autoscaling/v1 Scale has no protobuf message in kw: JSON and YAML only.
constexpr Offers k_scale_offers{};

void write_scale(const ResourceRequest& r, const std::function<std::optional<Mutation>()>& change,
                 std::string_view options_kind, PatchKind patch = {}) {
  WriteContext write;
  if (!write.begin(r, k_scale_offers, options_kind) || !write.track(r, options_kind, patch)) return;
  write.options.decoded = nullptr;  // the audit log shows the Scale the client sent, not the object it changes
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
    r.audited_request(*body);
    return [body = std::move(*body)](const nlohmann::json&) -> registry::ApiResult<nlohmann::json> { return body; };
  }, "UpdateOptions");
}

void patch_scale(const ResourceRequest& r) {
  const auto type = requested_patch_type(r, true);
  if (!type) return;
  if (*type == PatchType::apply) {
    WriteContext write;
    if (!write.begin(r, k_scale_offers, "PatchOptions") ||
        !write.track(r, "PatchOptions", {.patch = true, .apply = true}))
      return;
    write.options.decoded = nullptr;  // as for any scale write
    if (r.audit) r.audit->request_patch(r.request.body);
    return server_side_apply(r, write);
  }
  if (r.audit) r.audit->request_patch(r.request.body);
  write_scale(r, [&r, type] { return patch_mutation(r, *type); }, "PatchOptions", {.patch = true});
}

}  // namespace kw::http::handlers
