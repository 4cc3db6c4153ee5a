#include "cli/commands/targets.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/client/manifest.hpp"

namespace kw::cli {

using nlohmann::json;

void add_target_file_flags(CLI::App& command, TargetArgs& targets, const std::string& what) {
  add_manifest_flags(command, targets.filenames, targets.recursive,
                     "Files, directories or - (stdin) whose objects to " + what);
}

namespace {

// The objects -f's manifests describe, in their own namespace or the context's.
VerbResult<std::vector<NamedObject>> objects_of_manifests(ApiClient& api, Resolver& resolver, const TargetArgs& targets) {
  if (!targets.args.empty() || !targets.selector.empty() || targets.all)
    return std::unexpected(usage_error("resources are named by -f or by arguments, not both"));
  auto manifests = load_manifests(targets.filenames, targets.recursive, std::cin);
  if (!manifests) return std::unexpected(usage_error(manifests.error().message));
  std::vector<NamedObject> out;
  for (const auto& manifest : *manifests) {
    auto info = resolver.resolve_manifest(manifest.object, manifest.source);
    if (!info) return std::unexpected(info.error());
    const json metadata = manifest.object.value("metadata", json::object());
    std::string namespace_name;
    if (info->namespaced) namespace_name = metadata.value("namespace", api.config().namespace_name);
    out.push_back(NamedObject{*info, namespace_name, metadata.value("name", "")});
  }
  return out;
}

}  // namespace

void add_rollout_target_flags(CLI::App& command, TargetArgs& targets) {
  command.add_option("args", targets.args, "TYPE NAME..., TYPE/NAME... or TYPE (every object of it)");
  command.add_option("-l,--selector", targets.selector, "Only the objects matching this label selector");
  add_target_file_flags(command, targets, "act on");
}

VerbResult<RolloutObjects> rollout_objects(const ConnectionFlags& connection, TargetArgs targets) {
  if (targets.args.empty() && targets.filenames.empty())
    return std::unexpected(usage_error("required resource not specified"));
  targets.all = targets.args.size() == 1 && targets.args[0].find('/') == std::string::npos && targets.selector.empty();
  auto api = ApiClient::create(connection);
  if (!api) return std::unexpected(usage_error(api.error().message));
  Resolver resolver(**api);
  auto objects = objects_of(**api, resolver, targets);
  if (!objects) return std::unexpected(objects.error());
  return RolloutObjects{std::move(*api), std::move(*objects)};
}

VerbResult<std::vector<NamedObject>> objects_of(ApiClient& api, Resolver& resolver, const TargetArgs& targets) {
  if (!targets.filenames.empty()) return objects_of_manifests(api, resolver, targets);
  auto parsed = parse_resource_args(targets.args);
  if (!parsed) return std::unexpected(usage_error(parsed.error().message));
  if (parsed->empty())
    return std::unexpected(
        usage_error("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
  const bool by_selector = !targets.selector.empty() || targets.all;
  std::vector<NamedObject> out;
  for (const auto& group : *parsed) {
    if (by_selector) {
      auto infos = resolver.resolve_types(group.type);
      if (!infos) return std::unexpected(infos.error());
      for (const auto& info : *infos) {
        const std::string own_namespace = info.namespaced ? api.config().namespace_name : std::string();
        auto listed = listed_objects(api, info, targets.all_namespaces ? std::string() : own_namespace, targets.selector);
        if (!listed) return std::unexpected(listed.error());
        out.insert(out.end(), listed->begin(), listed->end());
      }
      continue;
    }
    auto info = resolver.resolve(group.type);
    if (!info) return std::unexpected(info.error());
    if (group.names.empty()) return std::unexpected(usage_error("resource(s) were provided, but no name was specified"));
    if (auto refused = named_across_namespaces(*info, targets.all_namespaces)) return std::unexpected(*refused);
    const std::string own_namespace = info->namespaced ? api.config().namespace_name : std::string();
    for (const auto& name : group.names) out.push_back(NamedObject{*info, own_namespace, name});
  }
  return out;
}

VerbResult<std::vector<NamedObject>> listed_objects(ApiClient& api, const api::ResourceInfo& info,
                                                   const std::string& namespace_name, const std::string& selector) {
  std::string path = object_path(info, namespace_name, "");
  if (!selector.empty()) path += "?labelSelector=" + url_escape(selector);
  auto listing = call_json(api, "GET", path, {}, {});
  if (!listing) return std::unexpected(listing.error());
  std::vector<NamedObject> out;
  for (const auto& item : listing->value("items", json::array())) {
    const json metadata = item.value("metadata", json::object());
    out.push_back(NamedObject{info, metadata.value("namespace", ""), metadata.value("name", "")});
  }
  return out;
}

std::optional<VerbError> missing_namespace(ApiClient& api, const api::ResourceInfo& info,
                                           const std::string& namespace_name) {
  if (!info.namespaced || namespace_name.empty() || namespace_name == "default") return std::nullopt;
  auto found = call_json(api, "GET", "/api/v1/namespaces/" + url_escape(namespace_name), {}, {});
  if (!found && found.error().http_status == 404) return found.error();
  return std::nullopt;
}

VerbResult<json> read_object(ApiClient& api, const NamedObject& object, const std::string& subresource) {
  std::string path = object_path(object.info, object.namespace_name, object.name);
  if (!subresource.empty()) path += "/" + subresource;
  auto live = call_json(api, "GET", path, {}, {});
  if (!live && live.error().http_status == 404)
    if (auto missing = missing_namespace(api, object.info, object.namespace_name)) return std::unexpected(*missing);
  return live;
}

}  // namespace kw::cli
