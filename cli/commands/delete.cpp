// kw delete: named objects, objects from manifests, or every object matching a selector.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"
#include "cli/commands/targets.hpp"
#include "cli/client/manifest.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct DeleteOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;
  std::vector<std::string> filenames;
  bool recursive = false;
  std::string selector;
  bool all = false;
  bool all_namespaces = false;
  bool ignore_not_found = false;
  int grace_period = -1;
  bool now = false;    // --now: a grace period of 1 s
  bool force = false;  // --force: with no grace period, deleted at once
  WriteOutput write;
};

struct Victim {
  api::ResourceInfo info;
  std::string namespace_name;
  std::string name;
  std::string source;  // the manifest file, for error messages
};

class Deleter {
 public:
  Deleter(ApiClient& api, const DeleteOptions& options) : m_api(api), m_options(options) {}

  void remove(const Victim& victim) {
    json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Background"}};
    if (m_options.grace_period >= 0) body["gracePeriodSeconds"] = m_options.grace_period;
    const WriteOutput& write = m_options.write;
    auto deleted = write.client_dry_run()
                       ? VerbResult<json>(json::object())
                       : call_json(m_api, "DELETE",
                                   write.with_dry_run(object_path(victim.info, victim.namespace_name, victim.name)),
                                   std::string(k_json), body.dump());
    if (!deleted) {
      if (deleted.error().http_status == 404 && m_options.ignore_not_found) return;
      VerbError error = deleted.error();
      if (!victim.source.empty()) {
        const auto colon = error.message.find(": ");
        if (colon != std::string::npos && error.message.starts_with("Error from server"))
          error.message.insert(colon + 2, "error when deleting \"" + victim.source + "\": ");
      }
      // As kubectl's visitor, which goes on past a failed object: reported after the rest.
      m_failures.push_back(std::move(error));
      return;
    }
    const bool forced = m_options.force && m_options.grace_period == 0;
    if (!write.print(*deleted, kind_prefix(victim.info) + "/" + victim.name,
                     kind_prefix(victim.info) + " \"" + victim.name + "\" " + (forced ? "force deleted" : "deleted")))
      m_code = k_exit_usage;
    m_deleted_any = true;
  }

  void fail_with(const VerbError& error) { m_code = report(error); }
  // Reports the objects that could not be deleted; the exit status.
  int finish() {
    std::cout.flush();
    for (const auto& failure : m_failures) m_code = report(failure);
    m_failures.clear();
    return m_code;
  }
  bool deleted_any() const { return m_deleted_any; }

 private:
  ApiClient& m_api;
  const DeleteOptions& m_options;
  int m_code = k_exit_ok;
  bool m_deleted_any = false;
  std::vector<VerbError> m_failures;
};

void delete_from_manifests(DeleteOptions& options, ApiClient& api, Resolver& resolver, Deleter& deleter) {
  auto manifests = load_manifests(options.filenames, options.recursive, std::cin);
  if (!manifests) return deleter.fail_with(usage_error(manifests.error().message));
  for (const auto& manifest : *manifests) {
    const json& object = manifest.object;
    auto info = resolver.resolve_manifest(object, manifest.source);
    if (!info) {
      deleter.fail_with(info.error());
      continue;
    }
    const json metadata = object.value("metadata", json::object());
    std::string namespace_name;
    if (info->namespaced) namespace_name = metadata.value("namespace", api.config().namespace_name);
    deleter.remove(Victim{*info, namespace_name, metadata.value("name", ""), manifest.source});
  }
}

// Every object of the type matching -l (or all with --all), listed first, then deleted one by one.
void delete_matching(const DeleteOptions& options, ApiClient& api, const api::ResourceInfo& info, Deleter& deleter) {
  const std::string namespace_name = options.all_namespaces ? std::string() : api.config().namespace_name;
  auto listed = listed_objects(api, info, info.namespaced ? namespace_name : std::string(), options.selector);
  if (!listed) return deleter.fail_with(listed.error());
  for (const auto& object : *listed) deleter.remove(Victim{info, object.namespace_name, object.name, {}});
}

int run_delete(DeleteOptions& options) {
  const bool by_selector = !options.selector.empty() || options.all;
  if (options.now) {
    if (options.grace_period != -1) return report_usage("--now and --grace-period cannot be specified together");
    options.grace_period = 1;
  }
  // kubectl's reading of the grace period: 0 only with --force (else 1), --force alone is 0.
  if (options.grace_period == 0 && !options.force) options.grace_period = 1;
  if (options.force && options.grace_period < 0) options.grace_period = 0;
  if (options.force && options.grace_period == 0)
    std::cerr << "Warning: Immediate deletion does not wait for confirmation that the running resource has been "
                 "terminated. The resource may continue to run on the cluster indefinitely.\n";
  if (options.filenames.empty() && options.args.empty())
    return report_usage("You must provide one or more resources by argument or filename.");
  if (!options.filenames.empty() && !options.args.empty())
    return report_usage("cannot delete resources named by arguments and by -f at the same time");
  if (!options.selector.empty() && options.all) return report_usage("cannot set --all and --selector at the same time");
  auto parsed = parse_resource_args(options.args);
  if (!parsed) return report_usage(parsed.error().message);
  for (const auto& group : *parsed) {
    if (by_selector && !group.names.empty()) return report_usage("name cannot be provided when a selector is specified");
    if (!by_selector && group.names.empty() && options.filenames.empty())
      return report_usage("resource(s) were provided, but no name was specified");
  }
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  Deleter deleter(**api, options);
  if (!options.filenames.empty()) {
    delete_from_manifests(options, **api, resolver, deleter);
  } else {
    for (const auto& group : *parsed) {
      if (by_selector) {  // a TYPE may be a category ("all") here
        auto infos = resolver.resolve_types(group.type);
        if (!infos) {
          deleter.fail_with(infos.error());
          continue;
        }
        for (const auto& info : *infos) delete_matching(options, **api, info, deleter);
        continue;
      }
      auto info = resolver.resolve(group.type);
      if (!info) {
        deleter.fail_with(info.error());
        continue;
      }
      if (auto refused = named_across_namespaces(*info, options.all_namespaces)) return report(*refused);
      const std::string namespace_name = info->namespaced ? (*api)->config().namespace_name : std::string();
      for (const auto& name : group.names) deleter.remove(Victim{*info, namespace_name, name, {}});
    }
  }
  const int code = deleter.finish();
  if (options.filenames.empty() && by_selector && !deleter.deleted_any() && code == k_exit_ok)
    std::cerr << "No resources found\n";
  return code;
}

}  // namespace

void add_delete_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<DeleteOptions>();
  CLI::App* command =
      app.add_subcommand("delete", "Delete objects by type and name, by manifest, or by label selector (kubectl delete)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("args", options->args, "TYPE NAME..., TYPE/NAME..., or TYPE[,TYPE...] with -l or --all");
  add_manifest_flags(*command, options->filenames, options->recursive,
                     "Delete the objects named in these files, directories or - (stdin)");
  command->add_option("-l,--selector", options->selector, "Delete the objects matching this label selector");
  command->add_flag("--all", options->all, "Delete every object of the given types in the namespace");
  command->add_flag("-A,--all-namespaces", options->all_namespaces, "With -l or --all: look in every namespace");
  command->add_flag("--ignore-not-found", options->ignore_not_found, "Treat an object that does not exist as deleted");
  command->add_option("--grace-period", options->grace_period,
                      "Seconds the object is given to terminate (-1: the object's own default)");
  command->add_flag("--now", options->now, "Signal the objects to stop at once (a grace period of 1 s)");
  command->add_flag("--force", options->force,
                    "With --grace-period=0 (its default): remove the objects at once, without waiting for "
                    "confirmation that they stopped");
  add_write_output_flags(*command, options->write, false);
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_delete(*options); });
}

}  // namespace kw::cli
