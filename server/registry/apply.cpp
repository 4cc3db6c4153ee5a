// Server-side apply in the registry: the configuration merged into the stored object (or a new
// one) by the field manager, then written as any update or create is.
#include "server/registry/registry.hpp"

#include "server/cache/watch_cache.hpp"

namespace kw::registry {
namespace {

ApiError apply_error(const apply::ApplyFailure& failure) {
  switch (failure.kind) {
    case apply::ApplyFailure::Kind::conflict: {
      ApiError error{409, "Conflict", failure.message, {}};
      error.details = {{"causes", failure.causes}};
      return error;
    }
    case apply::ApplyFailure::Kind::bad_request:
      return bad_request(failure.message);
    case apply::ApplyFailure::Kind::internal:
      break;
  }
  return ApiError{500, "", failure.message, {}};
}

std::string text_at(const nlohmann::json& object, const char* field) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  const auto found = meta->find(field);
  return found != meta->end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

ApiResult<Applied> Registry::apply(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                   const nlohmann::json& config, bool force, const WriteOptions& options) {
  if (!config.is_object()) return std::unexpected(bad_request("the apply configuration must be an object"));
  if (const auto sent = text_at(config, "name"); !sent.empty() && sent != name)
    return std::unexpected(bad_request("the name of the object (" + sent + ") does not match the name on the URL (" +
                                       name + ")"));
  if (const auto sent = text_at(config, "namespace"); info.namespaced && !sent.empty() && sent != ns)
    return std::unexpected(bad_request("the namespace of the object (" + sent +
                                       ") does not match the namespace on the request (" + ns + ")"));
  if (options.subresource == "scale") return apply_scale(info, ns, name, config, force, options);
  const auto manager = field_manager_for(info, options.subresource);
  if (!manager) return std::unexpected(bad_request(info.plural + " do not support server-side apply"));
  if (const std::string kind = config.value("kind", std::string()); kind != info.kind)
    return std::unexpected(ApiError{500, "",
                                    "failed to merge config: the configuration is a " + kind + ", the resource holds " +
                                        info.kind + " objects",
                                    {}});
  // Re-applying what was applied before changes nothing: answered from the watch cache (read
  // consistently), nothing written. Admission still sees the update, as kube-apiserver's does:
  // the mutating plugins and webhooks first (one that changes the object sends the apply down
  // the full path, which stores what they made of it without calling them again), then the
  // validating ones, whose refusals and warnings answer.
  WriteOptions tracked = options;
  tracked.fields_tracked = true;
  if (auto cache = cache_for(info)) {
    auto found = cache->get(key(info, ns, name), true);
    if (found && manager->unchanged_by((*found)->object(), config, options.field_manager)) {
      auto mutated = admit_unchanged(info, ns, name, (*found)->object(), options);
      if (!mutated) return std::unexpected(mutated.error());
      if (!*mutated) {
        Applied applied;
        applied.unchanged = std::move(*found);
        return applied;
      }
      tracked.mutated = std::move(*mutated);
    }
  }
  for (int attempt = 0;; ++attempt) {
    bool missing = false;
    auto updated = update_with(
        info, ns, name,
        [&](const nlohmann::json& current) -> ApiResult<nlohmann::json> {
          auto applied = manager->apply(current, config, options.field_manager, force, now_rfc3339());
          if (!applied) return std::unexpected(apply_error(applied.error()));
          return std::move(*applied);
        },
        tracked);
    if (updated) return Applied{std::move(*updated), false, nullptr};
    missing = updated.error().code == 404 && updated.error().reason == "NotFound";
    if (!missing || !options.subresource.empty()) return std::unexpected(updated.error());
    // Not there: the configuration becomes the object (kube-apiserver's apply creates).
    auto object = manager->apply(nullptr, config, options.field_manager, force, now_rfc3339());
    if (!object) return std::unexpected(apply_error(object.error()));
    auto created = create(info, ns, std::move(*object), tracked);
    if (created) return Applied{std::move(*created), true, nullptr};
    // Created by someone else meanwhile: apply to theirs.
    if (created.error().code != 409 || created.error().reason != "AlreadyExists" || attempt >= 2)
      return std::unexpected(created.error());
  }
}

ApiResult<Applied> Registry::apply_scale(const api::ResourceInfo& info, const std::string& ns,
                                         const std::string& name, const nlohmann::json& config, bool force,
                                         const WriteOptions& options) {
  // (The Scale's field manager refuses a configuration of another apiVersion.)
  const auto tracker = scale_field_manager();
  if (!tracker) return std::unexpected(bad_request(info.plural + "/scale does not support server-side apply"));
  auto written = write_scale(
      info, ns, name,
      [&](const nlohmann::json& scale) -> ApiResult<nlohmann::json> {
        auto applied = tracker->apply(scale, config, options.field_manager, force, now_rfc3339());
        if (!applied) return std::unexpected(apply_error(applied.error()));
        return std::move(*applied);
      },
      options);
  if (!written) return std::unexpected(written.error());
  return Applied{std::move(*written), false, nullptr};
}

}  // namespace kw::registry
