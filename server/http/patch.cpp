#include "server/http/patch.hpp"

#include <map>

namespace kw::http {
namespace {

// The merge key of the built-in lists that kube's strategic merge patch merges by key.
const char* merge_key(const std::string& field) {
  static const std::map<std::string, const char*> k_keys = {
      {"containers", "name"},     {"initContainers", "name"}, {"ephemeralContainers", "name"},
      {"volumes", "name"},        {"env", "name"},            {"imagePullSecrets", "name"},
      {"volumeMounts", "mountPath"}, {"volumeDevices", "devicePath"}, {"conditions", "type"},
      {"hostAliases", "ip"},      {"topologySpreadConstraints", "topologyKey"},
  };
  auto found = k_keys.find(field);
  return found == k_keys.end() ? nullptr : found->second;
}

const char* port_key(const nlohmann::json& list) {  // container ports vs service ports
  for (const auto& item : list)
    if (item.is_object() && item.contains("containerPort")) return "containerPort";
  return "port";
}

nlohmann::json strategic_merge(nlohmann::json target, const nlohmann::json& patch);

nlohmann::json merge_list(nlohmann::json target, const nlohmann::json& patch, const char* key) {
  if (!target.is_array()) target = nlohmann::json::array();
  for (const auto& item : patch) {
    if (!item.is_object() || !item.contains(key)) {
      target.push_back(item);
      continue;
    }
    auto found = std::find_if(target.begin(), target.end(),
                              [&](const nlohmann::json& t) { return t.is_object() && t.value(key, nlohmann::json()) == item[key]; });
    const std::string directive = item.value("$patch", std::string());
    if (directive == "delete") {
      if (found != target.end()) target.erase(found);
    } else if (found != target.end()) {
      *found = strategic_merge(*found, item);
    } else {
      nlohmann::json added = item;
      added.erase("$patch");
      target.push_back(std::move(added));
    }
  }
  return target;
}

nlohmann::json strategic_merge(nlohmann::json target, const nlohmann::json& patch) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", std::string()) == "replace") {
    nlohmann::json out = patch;
    out.erase("$patch");
    return out;
  }
  if (!target.is_object()) target = nlohmann::json::object();
  for (const auto& [field, value] : patch.items()) {
    if (field.starts_with("$")) continue;  // $patch, $retainKeys, $setElementOrder/..., $deleteFromPrimitiveList/...
    if (value.is_null()) {
      target.erase(field);
    } else if (value.is_object()) {
      target[field] = strategic_merge(target.contains(field) ? target[field] : nlohmann::json(), value);
    } else if (value.is_array() && (merge_key(field) || field == "ports")) {
      const char* key = field == "ports" ? port_key(value) : merge_key(field);
      target[field] = merge_list(target.contains(field) ? target[field] : nlohmann::json(), value, key);
    } else {
      target[field] = value;
    }
  }
  return target;
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
  auto patch = nlohmann::json::parse(body, nullptr, false);
  if (patch.is_discarded()) return std::unexpected(registry::bad_request("the patch body is not valid JSON"));
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
      return strategic_merge(current, patch);
    case PatchType::apply:
      break;
  }
  return std::unexpected(registry::ApiError{415, "UnsupportedMediaType",
                                            "server-side apply is not supported; use client-side apply", {}});
}

}  // namespace kw::http
