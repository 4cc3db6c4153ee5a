#include "server/http/patch.hpp"

#include "core/codec/json_limits.hpp"
#include "core/codec/strategic_merge.hpp"

namespace kw::http {

namespace {

// kube-apiserver's bounds on a JSON patch: its operations, and the bytes its copy operations
// add up to (JSONPatchMaxCopyBytes), so a small body cannot grow an object without limit.
constexpr std::size_t k_max_json_patch_operations = 10000;
constexpr std::size_t k_max_json_patch_copy_bytes = 3 * 1024 * 1024;

// kube answers every failed JSON patch, and a strategic merge patch with a list of lists, in
// these words (its generic 422).
registry::ApiError patch_refused() {
  return registry::ApiError{.code = 422,
                            .reason = "Invalid",
                            .message = "the server rejected our request due to an error in our request",
                            .details = {},
                            .keep_empty_details = true};
}

// The bytes a copy operation adds (the JSON size of what it copies); 0 when `from` names
// nothing, which the operation itself then refuses.
std::size_t copied_bytes(const nlohmann::json& document, const nlohmann::json& operation) {
  const auto from = operation.find("from");
  if (from == operation.end() || !from->is_string()) return 0;
  try {
    return document.at(nlohmann::json::json_pointer(from->get<std::string>())).dump().size();
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
}

registry::ApiResult<nlohmann::json> apply_json_patch(const nlohmann::json& current, const nlohmann::json& patch) {
  if (patch.size() > k_max_json_patch_operations)
    return std::unexpected(registry::ApiError{
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is " +
            std::to_string(k_max_json_patch_operations) + ", got " + std::to_string(patch.size()),
        {}});
  nlohmann::json out = current;
  std::size_t copied = 0;
  for (const auto& operation : patch) {
    if (operation.is_object() && operation.value("op", nlohmann::json()) == "copy") {
      copied += copied_bytes(out, operation);
      if (copied > k_max_json_patch_copy_bytes) return std::unexpected(patch_refused());
    }
    try {
      out.patch_inplace(nlohmann::json::array({operation}));
    } catch (const nlohmann::json::exception&) {
      return std::unexpected(patch_refused());
    }
  }
  return out;
}

// A strategic merge patch kube cannot apply, answered as kube-apiserver answers it: malformed
// directives with 400, a list of lists with its generic 422, anything else with a 500 that
// carries kube's message and no reason.
registry::ApiError strategic_merge_refused(const codec::PatchError& error) {
  switch (error.kind) {
    case codec::PatchErrorKind::bad_request:
      return registry::bad_request(error.message);
    case codec::PatchErrorKind::unprocessable:
      return patch_refused();
    case codec::PatchErrorKind::internal:
      break;
  }
  return registry::ApiError{500, "", error.message, {}};
}

registry::ApiResult<nlohmann::json> apply_strategic_merge(const nlohmann::json& current, const nlohmann::json& patch) {
  auto merged = codec::strategic_merge(current, patch, codec::SchemaNode::of_object(current));
  if (!merged) return std::unexpected(strategic_merge_refused(merged.error()));
  return std::move(*merged);
}

}  // namespace

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
      return apply_json_patch(current, patch);
    case PatchType::strategic:
      if (!patch.is_object()) return std::unexpected(registry::bad_request("a strategic merge patch must be an object"));
      return apply_strategic_merge(current, patch);
    case PatchType::apply:
      break;  // the registry applies these (Registry::apply)
  }
  return std::unexpected(registry::ApiError{500, "InternalError", "an apply patch cannot be applied as a patch", {}});
}

}  // namespace kw::http
