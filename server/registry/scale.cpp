// The scale subresource (autoscaling/v1 Scale) of workloads and custom resources.
#include <string>
#include <string_view>
#include <vector>

#include "core/api/selector.hpp"
#include "core/util/text.hpp"
#include "server/apply/scale_fields.hpp"
#include "server/registry/registry.hpp"

namespace kw::registry {

namespace {

const nlohmann::json* find_path(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* at = &object;
  for (const auto& segment : apply::field_path(path)) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(segment.name);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

void set_path(nlohmann::json& object, std::string_view path, nlohmann::json value) {
  nlohmann::json* at = &object;
  for (const auto& segment : apply::field_path(path)) {
    if (!at->is_object()) *at = nlohmann::json::object();
    at = &(*at)[segment.name];
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

// What a custom resource's Scale shows for replicas it does not have: the smallest int32, which
// the write must replace.
constexpr std::int64_t k_replicas_unset = -2147483648LL;

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
  const auto tracker = options.field_manager.empty() ? nullptr : scale_field_manager();
  return write_scale(
      info, ns, name,
      [&](const nlohmann::json& scale) -> ApiResult<nlohmann::json> {
        auto wanted = mutate(scale);
        if (!wanted) return wanted;
        if (!wanted->is_object()) return std::unexpected(bad_request("the request body must be a JSON object"));
        if (wanted->value("kind", std::string("Scale")) != "Scale")
          return std::unexpected(bad_request("the body of a scale request must be an autoscaling/v1 Scale, not " +
                                             wanted->value("kind", std::string())));
        if (!tracker) return wanted;
        return tracker->update(scale, std::move(*wanted), options.field_manager, now_rfc3339());
      },
      options);
}

std::shared_ptr<const apply::FieldManager> Registry::scale_field_manager() const {
  static constexpr const char* k_scale_version = "autoscaling/v1";
  auto type = apply::Type::of_kind(k_scale_version, "Scale");
  if (!type) return nullptr;
  return std::make_shared<const apply::FieldManager>(std::move(*type), k_scale_version, "scale", apply::Set(),
                                                     nlohmann::json{{"apiVersion", k_scale_version}, {"kind", "Scale"}});
}

apply::ReplicasPathAt Registry::replicas_paths(const api::ResourceInfo& info) const {
  if (!info.custom) {
    // Every version of a built-in workload keeps its replicas at the same path.
    return [group = info.group, path = apply::field_path(info.scale->spec_replicas)](
               std::string_view api_version) -> std::optional<apply::Path> {
      if (api::split_api_version(api_version).group != group) return std::nullopt;
      return path;
    };
  }
  // A custom resource's versions each say where (or whether) they keep replicas.
  std::map<std::string, apply::Path, std::less<>> paths;
  if (auto definition = definition_for(info)) {
    for (const auto& version : definition->versions) {
      const auto& scale = version.scale;
      paths[info.group + "/" + version.name] =
          scale.is_object() ? apply::field_path(scale.value("specReplicasPath", std::string())) : apply::Path();
    }
  }
  return [paths = std::move(paths)](std::string_view api_version) -> std::optional<apply::Path> {
    const auto found = paths.find(api_version);
    if (found == paths.end()) return std::nullopt;
    return found->second;
  };
}

ApiResult<nlohmann::json> Registry::write_scale(
    const api::ResourceInfo& info, const std::string& ns, const std::string& name,
    const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& change, const WriteOptions& options) {
  if (!info.scale) return std::unexpected(no_scale());
  WriteOptions main = options;
  main.subresource.clear();
  // The Scale carries the write's managedFields, mapped back onto the object below.
  main.field_manager.clear();
  const auto replicas_at = replicas_paths(info);
  auto written = update_with(
      info, ns, name,
      [&](const nlohmann::json& now) -> ApiResult<nlohmann::json> {
        const auto& meta = now.value("metadata", nlohmann::json::object());
        const auto entries = meta.value("managedFields", nlohmann::json());
        auto scale = scale_of(info, now);
        // A custom resource without replicas shows a Scale whose replicas the write must set.
        const bool replicas_missing = info.custom && !find_path(now, info.scale->spec_replicas);
        if (replicas_missing) scale["spec"]["replicas"] = k_replicas_unset;
        auto scale_entries = apply::scale_managed_fields(entries, replicas_at);
        if (!scale_entries) return std::unexpected(internal_error(scale_entries.error()));
        if (!scale_entries->is_null()) scale["metadata"]["managedFields"] = std::move(*scale_entries);

        auto wanted = change(scale);
        if (!wanted) return wanted;
        const auto* replicas = find_path(*wanted, ".spec.replicas");
        if (replicas_missing && replicas && *replicas == k_replicas_unset)
          return std::unexpected(
              bad_request("the spec replicas field " + util::go_quote(info.scale->spec_replicas) + " cannot be empty"));
        if (replicas && !replicas->is_null() && !replicas->is_number_integer())
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + replicas->dump() + ": must be an integer"));
        const std::int64_t count = replicas && replicas->is_number_integer() ? replicas->get<std::int64_t>() : 0;
        if (count < 0)
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + std::to_string(count) +
                                                                          ": must be greater than or equal to 0"));
        if (count > 2147483647)
          return std::unexpected(scale_invalid(name, "spec.replicas", "Invalid value: " + std::to_string(count) +
                                                                          ": must be less than or equal to 2147483647"));
        const auto& wanted_meta = wanted->value("metadata", nlohmann::json::object());
        const std::string uid = wanted_meta.value("uid", std::string());
        if (!info.custom && !uid.empty() && uid != meta.value("uid", std::string()))
          return std::unexpected(conflict(info.group, info.plural + "/scale", name,
                                          "Precondition failed: UID in precondition: " + uid +
                                              ", UID in object meta: " + meta.value("uid", std::string())));
        nlohmann::json out = now;
        // The Scale's resourceVersion guards the write like the object's own would.
        const std::string version = wanted_meta.value("resourceVersion", std::string());
        if (!version.empty()) out["metadata"]["resourceVersion"] = version;
        else out["metadata"].erase("resourceVersion");
        set_path(out, info.scale->spec_replicas, count);
        if (options.field_manager.empty()) return out;  // the server's own write: not tracked
        auto mapped = apply::workload_managed_fields(entries, wanted_meta.value("managedFields", nlohmann::json()),
                                                     replicas_at, info.api_version());
        if (!mapped) return std::unexpected(internal_error(mapped.error()));
        if (mapped->is_null()) out["metadata"].erase("managedFields");
        else out["metadata"]["managedFields"] = std::move(*mapped);
        return out;
      },
      main);
  if (!written) return written;
  return scale_of(info, *written);
}

}  // namespace kw::registry
