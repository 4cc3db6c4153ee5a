// kw create -f / kw apply -f: objects from manifests, created or brought in line with the
// manifest by client-side apply (three-way patch against the last-applied annotation) or by
// server-side apply (--server-side: the server merges and tracks who owns each field).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"
#include "cli/client/manifest.hpp"
#include "cli/client/merge.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct ManifestOptions {
  ConnectionFlags connection;
  std::vector<std::string> filenames;
  bool recursive = false;
  bool save_config = false;  // create only
  bool server_side = false;  // apply only
  bool force_conflicts = false;
  std::string field_manager;  // "" = kubectl's default for the verb
  WriteOutput write;
};

// The manager the server records for the write, as kubectl names its own.
std::string manager_of(const ManifestOptions& options, bool apply) {
  if (!options.field_manager.empty()) return options.field_manager;
  if (!apply) return "kubectl-create";
  return options.server_side ? "kubectl" : "kubectl-client-side-apply";
}

std::string with_manager(std::string path, const std::string& manager) {
  return path + (path.find('?') == std::string::npos ? "?" : "&") + "fieldManager=" + url_escape(manager);
}

// What a verb did to one object: the object to print with -o, and the outcome line.
struct Outcome {
  json object;
  std::string kind_name;  // "pod/web"
  std::string line;       // "pod/web created"
};

// One object ready to send: its resource, namespace and name.
struct Target {
  api::ResourceInfo info;
  std::string namespace_name;
  std::string name;
  json object;
};

VerbResult<Target> target_of(Resolver& resolver, const kubeconfig::RestConfig& config, const Manifest& manifest) {
  Target target;
  target.object = manifest.object;
  auto info = resolver.resolve_kind(target.object.value("apiVersion", ""), target.object.value("kind", ""));
  if (!info) return std::unexpected(info.error());
  target.info = std::move(*info);
  json& metadata = target.object["metadata"];
  target.name = metadata.value("name", "");
  if (target.info.namespaced) {
    const std::string own = metadata.value("namespace", "");
    if (!own.empty() && config.namespace_from_flag && own != config.namespace_name)
      return std::unexpected(usage_error("the namespace from the provided object \"" + own +
                                         "\" does not match the namespace \"" + config.namespace_name +
                                         "\". You must pass '--namespace=" + own + "' to perform this operation."));
    target.namespace_name = own.empty() ? config.namespace_name : own;
    metadata["namespace"] = target.namespace_name;
  }
  return target;
}

VerbError in_file(VerbError error, const std::string& action, const std::string& source) {
  const std::string prefix = "Error from server";
  if (error.message.starts_with(prefix)) {
    const auto colon = error.message.find(": ");
    if (colon != std::string::npos)
      error.message.insert(colon + 2, "error when " + action + " \"" + source + "\": ");
  }
  return error;
}

VerbResult<Outcome> create_one(ApiClient& api, const Target& target, const WriteOutput& write,
                               const std::string& manager) {
  json created = target.object;
  if (!write.client_dry_run()) {
    auto answer = call_json(api, "POST",
                            with_manager(write.with_dry_run(object_path(target.info, target.namespace_name, "")), manager),
                            std::string(k_json), target.object.dump());
    if (!answer) return std::unexpected(answer.error());
    created = std::move(*answer);
  }
  std::string name = target.name;
  if (created.contains("metadata") && created["metadata"].is_object()) name = created["metadata"].value("name", name);
  const std::string kind_name = kind_prefix(target.info) + "/" + name;
  return Outcome{std::move(created), kind_name, kind_name + " created"};
}

VerbResult<Outcome> apply_one(ApiClient& api, Resolver& resolver, Target& target, const WriteOutput& write,
                              const std::string& manager) {
  const json modified = with_last_applied(target.object);
  const std::string path = object_path(target.info, target.namespace_name, target.name);
  auto live = call_json(api, "GET", path, {}, {});
  if (!live && live.error().http_status == 404) {
    target.object = modified;
    return create_one(api, target, write, manager);
  }
  if (!live) return std::unexpected(live.error());
  const json original = last_applied_of(*live);
  if (original.is_null())
    std::cerr << "Warning: resource " << target.info.plural << "/" << target.name
              << " is missing the " << k_last_applied_annotation
              << " annotation which is required by kw apply. kw apply should only be used on resources created "
                 "declaratively by either kw create --save-config or kw apply. The missing annotation will be "
                 "patched automatically.\n";
  const PatchStrategy strategy = resolver.is_builtin(target.info) ? PatchStrategy::strategic : PatchStrategy::merge;
  const json patch = three_way_patch(original, modified, *live, strategy);
  const std::string prefix = kind_prefix(target.info) + "/" + target.name;
  if (patch.empty()) return Outcome{std::move(*live), prefix, prefix + " unchanged"};
  // A client dry run sends nothing: it shows the manifest as it would be applied.
  if (write.client_dry_run()) return Outcome{modified, prefix, prefix + " configured"};
  const std::string content_type = strategy == PatchStrategy::strategic ? "application/strategic-merge-patch+json"
                                                                        : "application/merge-patch+json";
  auto patched = call_json(api, "PATCH", with_manager(write.with_dry_run(path), manager), content_type, patch.dump());
  if (!patched) return std::unexpected(patched.error());
  return Outcome{std::move(*patched), prefix, prefix + " configured"};
}

// Server-side apply: the manifest itself is the patch; the server merges it and answers with
// the object (created when missing). Conflicts come back as 409 unless forced.
VerbResult<Outcome> server_side_apply_one(ApiClient& api, const Target& target, const WriteOutput& write,
                                          const std::string& manager, bool force) {
  std::string path = with_manager(write.with_dry_run(object_path(target.info, target.namespace_name, target.name)),
                                  manager);
  if (force) path += "&force=true";
  auto applied = call_json(api, "PATCH", path, "application/apply-patch+yaml", target.object.dump());
  if (!applied) {
    VerbError error = applied.error();
    if (error.http_status == 409 && error.message.find("Apply failed with") != std::string::npos)
      error.message +=
          "\nThese fields have other managers. Take them over with --force-conflicts, leave them out of the "
          "manifest, or set them to their current values to share them.";
    return std::unexpected(std::move(error));
  }
  const std::string prefix = kind_prefix(target.info) + "/" + target.name;
  return Outcome{std::move(*applied), prefix, prefix + " serverside-applied"};
}

int run_manifests(ManifestOptions& options, bool apply) {
  const std::string verb = apply ? "apply" : "create";
  auto manifests = load_manifests(options.filenames, options.recursive, std::cin, !apply);
  if (!manifests) return report_usage(manifests.error().message);
  if (manifests->empty()) return report_usage("no objects passed to " + verb);
  if (apply && options.server_side && options.write.client_dry_run())
    return report_usage("--dry-run=client does not work with --server-side: use --dry-run=server");
  if (options.force_conflicts && !options.server_side)
    return report_usage("--force-conflicts only works with --server-side");
  const std::string manager = manager_of(options, apply);
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  // As kubectl does, the objects that fail are reported after all the others were written.
  std::vector<VerbError> failures;
  for (const auto& manifest : *manifests) {
    auto target = target_of(resolver, (*api)->config(), manifest);
    if (!target) {
      failures.push_back(target.error());
      continue;
    }
    if (!apply && options.save_config) target->object = with_last_applied(target->object);
    auto done = !apply                ? create_one(**api, *target, options.write, manager)
                : options.server_side ? server_side_apply_one(**api, *target, options.write, manager,
                                                              options.force_conflicts)
                                      : apply_one(**api, resolver, *target, options.write, manager);
    if (!done) {
      failures.push_back(in_file(done.error(), apply ? "applying" : "creating", manifest.source));
      continue;
    }
    options.write.print(done->object, done->kind_name, done->line);
  }
  std::cout.flush();
  int code = k_exit_ok;
  for (const auto& failure : failures) code = report(failure);
  return code;
}

CLI::App* manifest_command(CLI::App& app, const std::string& name, const std::string& description,
                           std::shared_ptr<ManifestOptions> options) {
  CLI::App* command = app.add_subcommand(name, description);
  command->footer(std::string(k_client_exit_codes));
  command->add_option("-f,--filename", options->filenames,
                      "Files, directories or - (stdin) holding the manifests (YAML or JSON)")
      ->required();
  command->add_flag("-R,--recursive", options->recursive, "Also read the manifests of subdirectories of -f directories");
  command->add_option("--field-manager", options->field_manager,
                      "Who the server records as the writer of the fields (default: kubectl's name for the verb)");
  add_write_output_flags(*command, options->write);
  add_connection_flags(*command, options->connection);
  return command;
}

}  // namespace

void add_create_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ManifestOptions>();
  CLI::App* command = manifest_command(
      app, "create", "Create objects from files or stdin (kubectl create -f), or a ServiceAccount token", options);
  command->add_flag("--save-config", options->save_config,
                    "Store the manifest in the last-applied-configuration annotation, so kw apply can follow");
  // `create token NAME` takes no -f; plain `create` needs one.
  command->get_option("--filename")->required(false);
  add_create_token_command(*command, exit_code);
  add_create_rbac_commands(*command, exit_code);
  add_create_generated_commands(*command, exit_code);
  command->callback([command, options, exit_code] {
    if (!command->get_subcommands().empty()) return;
    if (options->filenames.empty()) {
      *exit_code = report_usage("must specify one of -f and -k");
      return;
    }
    *exit_code = run_manifests(*options, false);
  });
}

void add_apply_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ManifestOptions>();
  CLI::App* command = manifest_command(
      app, "apply", "Create or update objects to match files or stdin (kubectl apply -f)", options);
  command->add_flag("--server-side", options->server_side,
                    "Let the server merge the manifest and track which fields each manager owns");
  command->add_flag("--force-conflicts", options->force_conflicts,
                    "With --server-side: take over fields other managers own instead of failing");
  command->callback([options, exit_code] { *exit_code = run_manifests(*options, true); });
}

}  // namespace kw::cli
