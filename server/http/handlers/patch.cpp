#include "server/http/handlers/handlers.hpp"

#include "core/codec/media_type.hpp"
#include "server/http/patch.hpp"

namespace kw::http::handlers {

std::optional<Mutation> patch_mutation(const ResourceRequest& r, bool strategic) {
  const auto* header = r.request.header("content-type");
  auto media = header ? codec::parse_media_type(*header) : kw::fail("no Content-Type");
  auto type = media ? patch_type(media->essence()) : std::nullopt;
  if (type == PatchType::strategic && !strategic) type.reset();
  if (!type) {
    r.fail(registry::ApiError{415, "UnsupportedMediaType",
                              std::string("the body of the request was in an unknown format - accepted media types "
                                          "include: application/json-patch+json, application/merge-patch+json, ") +
                                  (strategic ? "application/strategic-merge-patch+json" : "application/apply-patch+yaml"),
                              {}});
    return std::nullopt;
  }
  return [&body = r.request.body, type = *type](const nlohmann::json& current) {
    return apply_patch(current, body, type);
  };
}

void patch(const ResourceRequest& r) {
  WriteContext write;
  if (!write.begin(r, {.protobuf = !r.resource.proto_message.empty()})) return;
  // Custom resources have no merge keys: kube-apiserver refuses strategic merge patches.
  auto mutate = patch_mutation(r, !r.resource.custom);
  if (!mutate) return;
  reply(r, write.format, 200, r.registry.update_with(r.resource, r.info.namespace_, r.info.name, *mutate, write.options),
        write.warnings);
}

}  // namespace kw::http::handlers
