#include "server/apply/scale_fields.hpp"

#include "server/apply/field_manager.hpp"

namespace kw::apply {
namespace {

constexpr std::string_view k_scale_version = "autoscaling/v1";

Path scale_replicas() { return {PathElement::field_named("spec"), PathElement::field_named("replicas")}; }

Set only(const Path& path) {
  Set set;
  set.insert(path);
  return set;
}

}  // namespace

Path field_path(std::string_view dotted) {
  Path path;
  if (dotted.starts_with('.')) dotted.remove_prefix(1);
  while (!dotted.empty()) {
    const auto dot = dotted.find('.');
    path.push_back(PathElement::field_named(std::string(dotted.substr(0, dot))));
    dotted.remove_prefix(dot == std::string_view::npos ? dotted.size() : dot + 1);
  }
  return path;
}

std::expected<nlohmann::json, std::string> scale_managed_fields(const nlohmann::json& workload_entries,
                                                                const ReplicasPathAt& replicas_at) {
  auto workload = decode_managed_fields(workload_entries);
  if (!workload) return std::unexpected(workload.error());
  Managed scale;
  for (const auto& [identifier, versioned] : workload->fields) {
    const auto path = replicas_at(versioned.api_version);
    if (!path || path->empty() || !versioned.set.has(*path)) continue;
    scale.fields[identifier] = VersionedSet{only(scale_replicas()), std::string(k_scale_version), versioned.applied};
    scale.times[identifier] = workload->times[identifier];
  }
  return encode_managed_fields(scale);
}

std::expected<nlohmann::json, std::string> workload_managed_fields(const nlohmann::json& workload_entries,
                                                                   const nlohmann::json& scale_entries,
                                                                   const ReplicasPathAt& replicas_at,
                                                                   const std::string& api_version) {
  auto workload = decode_managed_fields(workload_entries);
  if (!workload) return std::unexpected(workload.error());
  auto scale = decode_managed_fields(scale_entries);
  if (!scale) return std::unexpected(scale.error());
  Managed out;
  for (const auto& [identifier, versioned] : workload->fields) {
    const auto path = replicas_at(versioned.api_version);
    if (!path) continue;  // a version the workload was never served at
    const bool owns_replicas = !path->empty() && versioned.set.has(*path);
    if (owns_replicas && !scale->fields.contains(identifier)) {
      // The Scale write took the replicas from this manager.
      Set rest = versioned.set.difference(only(*path));
      if (rest.empty()) continue;
      out.fields[identifier] = VersionedSet{std::move(rest), versioned.api_version, versioned.applied};
    } else {
      out.fields[identifier] = versioned;
      if (owns_replicas) scale->fields.erase(identifier);
    }
    out.times[identifier] = workload->times[identifier];
  }
  const auto path = replicas_at(api_version);
  for (const auto& [identifier, versioned] : scale->fields) {
    if (!versioned.set.has(scale_replicas()) || !path || path->empty()) continue;
    out.fields[identifier] = VersionedSet{only(*path), api_version, versioned.applied};
    const auto time = workload->times.find(identifier);
    out.times[identifier] = time == workload->times.end() ? nlohmann::json() : time->second;
  }
  return encode_managed_fields(out);
}

}  // namespace kw::apply
