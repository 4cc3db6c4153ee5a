#include "server/registry/fields.hpp"

#include <vector>

namespace kw::registry {
namespace {

std::string text_at(const nlohmann::json& object, const std::vector<std::string>& path) {
  const nlohmann::json* at = &object;
  for (const auto& step : path) {
    if (!at->is_object()) return "";
    auto found = at->find(step);
    if (found == at->end()) return "";
    at = &*found;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_boolean()) return at->get<bool>() ? "true" : "false";
  if (at->is_number()) return at->dump();
  return "";
}

}  // namespace

std::map<std::string, std::string> selectable_fields(const kinds::KindSpec* spec, const api::ResourceInfo& info,
                                                     const nlohmann::json& object) {
  std::map<std::string, std::string> out;
  out["metadata.name"] = text_at(object, {"metadata", "name"});
  if (info.namespaced) out["metadata.namespace"] = text_at(object, {"metadata", "namespace"});
  if (spec)
    for (const auto& field : spec->fields) {
      std::string value = text_at(object, field.path);
      out[field.name] = value.empty() ? field.unset : std::move(value);
    }
  return out;
}

}  // namespace kw::registry
