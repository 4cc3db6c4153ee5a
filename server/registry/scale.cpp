// The scale subresource (autoscaling/v1 Scale) of workloads and custom resources.
#include <string>
#include <string_view>
#include <vector>

#include "core/api/selector.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {

namespace {

std::vector<std::string> path_segments(std::string_view path) {
  std::vector<std::string> out;
  if (path.starts_with('.')) path.remove_prefix(1);
  while (!path.empty()) {
    const auto dot = path.find('.');
    out.emplace_back(path.substr(0, dot));
    path.remove_prefix(dot == std::string_view::npos ? path.size() : dot + 1);
  }
  return out;
}

const nlohmann::json* find_path(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* at = &object;
  for (const auto& segment : path_segments(path)) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(segment);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

void set_path(nlohmann::json& object, std::string_view path, nlohmann::json value) {
  nlohmann::json* at = &object;
  for (const auto& segment : path_segments(path)) {
    if (!at->is_object()) *at = nlohmann::json::object();
    at = &(*at)[segment];
  }
  *at = std::move(value);
}

std::int64_t replicas_at(const nlohmann::json& object, std::string_view path) {
  const auto* value = path.empty() ? nullptr : find_path(object, path);
  return value && value->is_number_integer() ? value->get<std::int64_t>() : 0;
}

std::string selector_of(const api::ScalePaths& paths, const nlohmann::json& object) {
  if (paths.selector_from_spec) {
    const auto* selector = find_path(object, ".spec.selector");
    if (!selector) return "";
    auto parsed = api::LabelSelector::from_label_selector_json(*selector);
    return parsed ? parsed->to_string() : "";
  }
  const auto* value = paths.label_selector.empty() ? nullptr : find_path(object, paths.label_selector);
  return value && value->is_string() ? value->get<std::string>() : "";
}

nlohmann::json scale_of(const api::ResourceInfo& info, const nlohmann::json& object) {
  const auto& paths = *info.scale;
  const auto meta = object.value("metadata", nlohmann::json::object());
  nlohmann::json scale_meta = nlohmann::json::object();
  for (const char* kept : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (meta.contains(kept)) scale_meta[kept] = meta[kept];
  nlohmann::json status = {{"replicas", replicas_at(object, paths.status_replicas)}};
  if (auto selector = selector_of(paths, object); !selector.empty()) status["selector"] = selector;
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", scale_meta},
          {"spec", {{"replicas", replicas_at(object, paths.spec_replicas)}}},
          {"status", status}};
}

// `next` with the managedFields of a scale write by `manager`. As kube-apiserver's scale
// handler maps entries between the Scale and its parent, a scale manager's entry keeps the time
// it had (none when new).
nlohmann::json scale_tracked(const apply::FieldManager& tracker, const nlohmann::json& live, nlohmann::json next,
                             const std::string& manager, const std::string& now) {
  const auto before = apply::decode_managed_fields(live.value("metadata", nlohmann::json::object()).value("managedFields", nlohmann::json()));
  next = tracker.update(live, std::move(next), manager, now);
  auto& entries = next["metadata"]["managedFields"];
  if (!entries.is_array()) return next;
  for (auto& entry : entries) {
    if (entry.value("subresource", "") != "scale") continue;
    const auto identifier = apply::manager_identifier(
        {entry.value("manager", ""), entry.value("operation", ""), entry.value("apiVersion", ""), "scale"});
    const auto time = before ? before->times.find(identifier) : decltype(before->times.end()){};
    if (before && time != before->times.end() && !time->second.is_null()) entry["time"] = time->second;
    else entry.erase("time");
  }
  return next;
}

ApiError no_scale() { return ApiError{404, "NotFound", "the server could not find the requested resource", {}}; }

ApiError scale_invalid(const std::string& name, const std::string& field, const std::string& message) {
  ApiError error{422, "Invalid", "Scale.autoscaling \"" + name + "\" is invalid: " + field + ": " + message, {}};
  error.details = {{"name", name},
                   {"group", "autoscaling"},
                   {"kind", "Scale"},
                   {"causes", {{{"reason", "FieldValueInvalid"}, {"message", message}, {"field", field}}}}};
  return error;
}

}  // namespace

ApiResult<nlohmann::json> Registry::get_scale(const api::ResourceInfo& info, const std::string& ns,
                                              const std::string& name) {
  if (!info.scale) return std::unexpected(no_scale());
  auto object = get(info, ns, name, "");
  if (!object) return object;
  return scale_of(info, *object);
}

ApiResult<nlohmann::json> Registry::update_scale(
    const api::ResourceInfo& info, const std::string& ns, const std::string& name,
    const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& mutate, const WriteOptions& options) {
  if (!info.scale) return std::unexpected(no_scale());
  WriteOptions main = options;
  main.subresource.clear();
  // The write is tracked as the scale subresource's: its manager owns the replicas it set.
  main.field_manager.clear();
  const auto tracker = options.field_manager.empty() ? nullptr : field_manager_for(info, "scale");
  auto written = update_with(
      info, ns, name,
      [&](const nlohmann::json& now) -> ApiResult<nlohmann::json> {
        auto wanted = mutate(scale_of(info, now));
        if (!wanted) return wanted;
        if (!wanted->is_object()) return std::unexpected(bad_request("the request body must be a JSON object"));
        if (wanted->value("kind", std::string("Scale")) != "Scale")
          return std::unexpected(bad_request("the body of a scale request must be an autoscaling/v1 Scale, not " +
                                             wanted->value("kind", std::string())));
        const auto* replicas = find_path(*wanted, ".spec.replicas");
        if (replicas && !replicas->is_null() && !replicas->is_number_integer())
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + replicas->dump() + ": must be an integer"));
        const std::int64_t count = replicas && replicas->is_number_integer() ? replicas->get<std::int64_t>() : 0;
        if (count < 0)
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + std::to_string(count) +
                                                                          ": must be greater than or equal to 0"));
        if (count > 2147483647)
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + std::to_string(count) +
                                                                          ": must be less than or equal to 2147483647"));
        nlohmann::json out = now;
        // The Scale's resourceVersion guards the write like the object's own would.
        const auto* version = find_path(*wanted, ".metadata.resourceVersion");
        if (version && version->is_string() && !version->get<std::string>().empty())
          out["metadata"]["resourceVersion"] = *version;
        else
          out["metadata"].erase("resourceVersion");
        set_path(out, info.scale->spec_replicas, count);
        if (tracker) out = scale_tracked(*tracker, now, std::move(out), options.field_manager, now_rfc3339());
        return out;
      },
      main);
  if (!written) return written;
  return scale_of(info, *written);
}

}  // namespace kw::registry
