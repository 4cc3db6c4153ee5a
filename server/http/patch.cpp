#include "server/http/patch.hpp"

#include "core/codec/json_limits.hpp"
#include "core/codec/patch_schema.hpp"

namespace kw::http {

std::optional<PatchType> patch_type(const std::string& content_type) {
  if (content_type == "application/merge-patch+json") return PatchType::merge;
  if (content_type == "application/json-patch+json") return PatchType::json;
  if (content_type == "application/strategic-merge-patch+json") return PatchType::strategic;
  if (content_type == "application/apply-patch+yaml") return PatchType::apply;
  return std::nullopt;
}

registry::ApiResult<nlohmann::json> apply_patch(const nlohmann::json& current, const std::string& body,
                                                PatchType type) {
  auto parsed = codec::parse_json(body);
  if (!parsed) return std::unexpected(registry::bad_request("the patch body is not valid JSON: " + parsed.error().message));
  const nlohmann::json& patch = *parsed;
  switch (type) {
    case PatchType::merge: {
      nlohmann::json out = current;
      out.merge_patch(patch);
      return out;
    }
    case PatchType::json:
      if (!patch.is_array())
        return std::unexpected(registry::bad_request("a JSON patch must be an array of operations"));
      try {
        return current.patch(patch);
      } catch (const nlohmann::json::exception& e) {
        return std::unexpected(registry::ApiError{422, "Invalid", std::string("the JSON patch failed: ") + e.what(), {}});
      }
    case PatchType::strategic:
      if (!patch.is_object()) return std::unexpected(registry::bad_request("a strategic merge patch must be an object"));
      return codec::strategic_merge(current, patch, codec::SchemaNode::of_object(current));
    case PatchType::apply:
      break;  // the registry applies these (Registry::apply)
  }
  return std::unexpected(registry::ApiError{500, "InternalError", "an apply patch cannot be applied as a patch", {}});
}

}  // namespace kw::http
