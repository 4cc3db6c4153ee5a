#include "cli/commands/targets.hpp"

namespace kw::cli {

using nlohmann::json;

VerbResult<std::vector<NamedObject>> objects_of(ApiClient& api, Resolver& resolver, const TargetArgs& targets) {
  auto parsed = parse_resource_args(targets.args);
  if (!parsed) return std::unexpected(usage_error(parsed.error().message));
  if (parsed->empty())
    return std::unexpected(
        usage_error("one or more resources must be specified as <resource> <name> or <resource>/<name>"));
  const bool by_selector = !targets.selector.empty() || targets.all;
  std::vector<NamedObject> out;
  for (const auto& group : *parsed) {
    auto info = resolver.resolve(group.type);
    if (!info) return std::unexpected(info.error());
    const std::string own_namespace = info->namespaced ? api.config().namespace_name : std::string();
    if (!by_selector) {
      if (group.names.empty())
        return std::unexpected(usage_error("resource(s) were provided, but no name was specified"));
      for (const auto& name : group.names) out.push_back(NamedObject{*info, own_namespace, name});
      continue;
    }
    std::string path = object_path(*info, targets.all_namespaces ? std::string() : own_namespace, "");
    if (!targets.selector.empty()) path += "?labelSelector=" + url_escape(targets.selector);
    auto listing = call_json(api, "GET", path, {}, {});
    if (!listing) return std::unexpected(listing.error());
    for (const auto& item : listing->value("items", json::array())) {
      const json metadata = item.value("metadata", json::object());
      out.push_back(NamedObject{*info, metadata.value("namespace", ""), metadata.value("name", "")});
    }
  }
  return out;
}

}  // namespace kw::cli
