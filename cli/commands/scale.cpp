// kw scale: sets spec.replicas of deployments, replicasets, statefulsets, replication
// controllers (any resource with a scale subresource) through that subresource, as kubectl
// scale does: a merge patch, or with --current-replicas a read, a check and an update.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands/common.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct ScaleOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  int replicas = -1;
  bool replicas_given = false;
  int current_replicas = -1;
  std::string resource_version;
  WriteOutput write;
};

std::string scale_path(const NamedObject& object) {
  return object_path(object.info, object.namespace_name, object.name) + "/scale";
}

// With --current-replicas or --resource-version: the Scale as read, checked, with its new size
// (sent with a PUT, so a concurrent change makes it fail with a conflict).
VerbResult<json> checked_scale(ApiClient& api, const NamedObject& object, const ScaleOptions& options) {
  auto scale = call_json(api, "GET", scale_path(object), {}, {});
  if (!scale) return scale;
  const json spec = scale->value("spec", json::object());
  const int now = spec.value("replicas", 0);
  if (options.current_replicas >= 0 && now != options.current_replicas)
    return std::unexpected(usage_error("Expected replicas to be " + std::to_string(options.current_replicas) +
                                       ", was " + std::to_string(now)));
  const std::string version = scale->value("metadata", json::object()).value("resourceVersion", "");
  if (!options.resource_version.empty() && version != options.resource_version)
    return std::unexpected(usage_error("Expected resourceVersion to be " + options.resource_version + ", was " +
                                       version));
  (*scale)["spec"]["replicas"] = options.replicas;
  return scale;
}

VerbResult<void> scale_one(ApiClient& api, const NamedObject& object, const ScaleOptions& options) {
  const bool preconditions = options.current_replicas >= 0 || !options.resource_version.empty();
  if (!preconditions) {
    const json patch = {{"spec", {{"replicas", options.replicas}}}};
    auto patched = call_json(api, "PATCH", options.write.with_dry_run(scale_path(object)),
                             "application/merge-patch+json", patch.dump());
    if (!patched) return std::unexpected(patched.error());
    return {};
  }
  auto scale = checked_scale(api, object, options);
  if (!scale) return std::unexpected(scale.error());
  auto updated = call_json(api, "PUT", options.write.with_dry_run(scale_path(object)), std::string(k_json),
                           scale->dump());
  if (!updated) return std::unexpected(updated.error());
  return {};
}

int run_scale(const ScaleOptions& options) {
  if (!options.replicas_given) return report_usage("required flag(s) \"replicas\" not set");
  if (options.replicas < 0)
    return report_usage("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
  if (options.targets.args.empty() && options.targets.filenames.empty())
    return report_usage(no_resources_message());
  if (!options.targets.selector.empty() && options.targets.all)
    return report_usage("cannot set --all and --selector at the same time");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto named = objects_of(**api, resolver, options.targets);
  if (!named) return report(named.error());
  // As kubectl's, the objects are read first; those that do not exist are passed over, and
  // reported after the others are scaled.
  std::vector<std::pair<NamedObject, json>> found;
  std::vector<VerbError> missing;
  for (const auto& object : *named) {
    auto live = call_json(**api, "GET", object_path(object.info, object.namespace_name, object.name), {}, {});
    if (!live && live.error().http_status == 404) {
      missing.push_back(live.error());
      continue;
    }
    if (!live) return report(live.error());
    found.emplace_back(object, std::move(*live));
  }
  if (found.empty()) {
    // kubectl 1.33 appends what it could not read, in Go's words for a list of errors.
    std::string why;
    for (const auto& error : missing) why += (why.empty() ? "" : ", ") + server_message(error.message);
    if (missing.size() > 1) why = "[" + why + "]";
    return report_usage("no objects passed to scale" + (why.empty() ? "" : " " + why));
  }
  int code = k_exit_ok;
  for (const auto& [object, live] : found) {
    const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
    if (!options.write.client_dry_run()) {
      if (auto scaled = scale_one(**api, object, options); !scaled) {
        code = report(scaled.error());
        continue;
      }
    }
    if (!options.write.print(live, kind_name, kind_name + " scaled")) code = k_exit_usage;
  }
  for (const auto& error : missing) code = report(error);
  return code;
}

}  // namespace

void add_scale_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ScaleOptions>();
  CLI::App* command =
      app.add_subcommand("scale", "Set the replicas of deployments, replicasets, statefulsets or replication "
                                  "controllers (the scale subresource; kubectl scale)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("args", options->targets.args, "TYPE NAME... or TYPE/NAME...");
  add_target_file_flags(*command, options->targets, "scale");
  command->add_option("--replicas", options->replicas, "The new number of replicas");
  command->add_option("--current-replicas", options->current_replicas,
                      "Only scale when the current number of replicas is this (-1: any)")
      ->default_str("-1");
  command->add_option("--resource-version", options->resource_version,
                      "Only scale when the object's resourceVersion is this");
  command->add_option("-l,--selector", options->targets.selector, "Scale every object matching this label selector");
  command->add_flag("--all", options->targets.all, "Scale every object of the type in the namespace");
  command->add_flag("-A,--all-namespaces", options->targets.all_namespaces,
                    "With -l or --all: look in every namespace");
  add_write_output_flags(*command, options->write);
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code, command] {
    options->replicas_given = command->count("--replicas") > 0;
    *exit_code = run_scale(*options);
  });
}

}  // namespace kw::cli
