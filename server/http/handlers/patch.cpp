#include "server/http/handlers/handlers.hpp"

#include "core/codec/json_limits.hpp"
#include "core/codec/media_type.hpp"
#include "core/codec/yaml.hpp"
#include "server/http/patch.hpp"

namespace kw::http::handlers {

std::optional<PatchType> requested_patch_type(const ResourceRequest& r, bool strategic) {
  const auto* header = r.request.header("content-type");
  auto media = header ? codec::parse_media_type(*header) : kw::fail("no Content-Type");
  auto type = media ? patch_type(media->essence()) : std::nullopt;
  if (type == PatchType::strategic && !strategic) type.reset();
  if (!type)
    r.fail(registry::ApiError{415, "UnsupportedMediaType",
                              std::string("the body of the request was in an unknown format - accepted media types "
                                          "include: application/json-patch+json, application/merge-patch+json, ") +
                                  (strategic ? "application/strategic-merge-patch+json, " : "") +
                                  "application/apply-patch+yaml",
                              {}});
  return type;
}

std::optional<Mutation> patch_mutation(const ResourceRequest& r, PatchType type) {
  return [&body = r.request.body, type](const nlohmann::json& current) { return apply_patch(current, body, type); };
}

namespace {

// The configuration an apply patch holds: one object, in YAML or JSON (JSON is YAML, and read
// much faster as JSON).
registry::ApiResult<nlohmann::json> apply_configuration(const std::string& body) {
  if (const auto first = body.find_first_not_of(" \t\r\n"); first != std::string::npos && body[first] == '{') {
    auto parsed = codec::parse_json(body);  // too deep: the YAML parser says so
    if (parsed && parsed->is_object()) return std::move(*parsed);
  }
  auto documents = codec::yaml_to_json(body);
  if (!documents)
    return std::unexpected(
        registry::bad_request("error decoding YAML: error converting YAML to JSON: " + documents.error().message));
  if (documents->size() != 1 || !(*documents)[0].is_object())
    return std::unexpected(registry::bad_request("error decoding YAML: the apply configuration must be one object"));
  return std::move((*documents)[0]);
}

}  // namespace

void server_side_apply(const ResourceRequest& r, WriteContext& write) {
  auto config = apply_configuration(r.request.body);
  if (!config) return r.fail(config.error());
  const bool force = query_bool(r.query, "force");
  auto applied = r.registry.apply(r.resource, r.info.namespace_, r.info.name, *config, force, write.options);
  if (!applied) return r.fail(applied.error());
  if (applied->unchanged) return reply_cached(r, write.format, *applied->unchanged, write.warnings);
  reply(r, write.format, applied->created ? 201 : 200, std::move(applied->object), write.warnings);
}

void patch(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()}, "PatchOptions")) return;
  // Custom resources have no merge keys: kube-apiserver refuses strategic merge patches.
  const auto type = requested_patch_type(r, !r.resource.custom);
  if (!type) return;
  if (!write.track(r, "PatchOptions", {.patch = true, .apply = *type == PatchType::apply})) return;
  if (r.audit) r.audit->request_patch(r.request.body);
  if (*type == PatchType::apply) return server_side_apply(r, write);
  reply(r, write.format, 200,
        r.registry.update_with(r.resource, r.info.namespace_, r.info.name, *patch_mutation(r, *type), write.options),
        write.warnings);
}

}  // namespace kw::http::handlers
