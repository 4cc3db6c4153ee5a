#include "server/http/handlers/handlers.hpp"

#include "core/api/print_support.hpp"

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

// kube-apiserver's Table of an autoscaling/v1 Scale: Name, Desired, Available, Age.
const api::ResourceInfo& scale_table_info() {
  static const api::ResourceInfo info = [] {
    api::ResourceInfo scale;
    scale.group = "autoscaling";
    scale.version = "v1";
    scale.kind = "Scale";
    auto desired = api::print::col("Desired", "integer", "desired number of instances for the scaled object.");
    desired.json_path = ".spec.replicas";
    auto available = api::print::col("Available", "integer", "actual number of observed instances of the scaled object.");
    available.json_path = ".status.replicas";
    scale.columns = {api::print::name_col(), std::move(desired), std::move(available), api::print::age_col()};
    return scale;
  }();
  return info;
}

}  // namespace

void get_scale(const ResourceRequest& r) {
  auto format = negotiate(r, {.table = true});
  if (!format) return;
  auto scale = r.registry.get_scale(r.resource, r.info.namespace_, r.info.name);
  if (!scale || format->format != Format::table) return reply(r, *format, 200, scale);
  const auto& info = scale_table_info();
  const auto rv = scale->value("metadata", nlohmann::json::object()).value("resourceVersion", "");
  const auto row = table_row(info, *scale, format->include_object, std::chrono::system_clock::now());
  const auto table = table_document(info, {{"resourceVersion", rv}}, nlohmann::json::array({row}));
  if (r.audit) r.audit->response_object(table);
  send_object(*r.stream, 200, table, *format);
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
