// kw config view | get-contexts | current-context | use-context: the merged kubeconfig as
// kubectl shows it (secrets redacted unless --raw), and switching the current context.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/print/printers.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "core/codec/yaml.hpp"
#include "core/kubeconfig/kubeconfig.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct ConfigOptions {
  std::optional<std::string> kubeconfig;
  std::optional<std::string> context;
  bool raw = false;
  bool minify = false;
  std::string output = "yaml";
  bool no_headers = false;
  std::string name;
};

kubeconfig::Overrides overrides_of(const ConfigOptions& options) {
  kubeconfig::Overrides overrides;
  overrides.kubeconfig = options.kubeconfig;
  overrides.context = options.context;
  return overrides;
}

// Secrets as kubectl shows them without --raw.
void redact(json& entry) {
  if (!entry.is_object()) return;
  for (auto& [key, value] : entry.items()) {
    if (!value.is_string()) continue;
    if (key.ends_with("-data")) value = "DATA+OMITTED";
    else if (key == "token" || key == "password") value = "REDACTED";
  }
}

json named_entries(const json& map, const std::string& body_key, bool raw, const std::string& only) {
  json out = json::array();
  for (const auto& [name, body] : map.items()) {
    if (!only.empty() && name != only) continue;
    json copy = body;
    if (!raw) redact(copy);
    out.push_back({{"name", name}, {body_key, copy}});
  }
  return out;
}

// kubectl prints -o json in the field order of its Go types (clientcmd/api/v1).
nlohmann::ordered_json in_go_order(const json& object, const std::vector<std::string_view>& order) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (auto key : order)
    if (auto found = object.find(std::string(key)); found != object.end()) out[std::string(key)] = *found;
  for (const auto& [key, value] : object.items())
    if (!out.contains(key)) out[key] = value;
  return out;
}

nlohmann::ordered_json ordered_config(const json& document) {
  static const std::map<std::string, std::vector<std::string_view>> k_fields = {
      {"cluster", {"server", "tls-server-name", "insecure-skip-tls-verify", "certificate-authority",
                   "certificate-authority-data", "proxy-url", "disable-compression", "extensions"}},
      {"user", {"client-certificate", "client-certificate-data", "client-key", "client-key-data", "token", "tokenFile",
                "as", "as-uid", "as-groups", "as-user-extra", "username", "password", "auth-provider", "exec",
                "extensions"}},
      {"context", {"cluster", "user", "namespace", "extensions"}},
  };
  nlohmann::ordered_json out = in_go_order(
      document, {"kind", "apiVersion", "preferences", "clusters", "users", "contexts", "current-context"});
  for (const auto& [list, body] : {std::pair{"clusters", "cluster"}, {"users", "user"}, {"contexts", "context"}}) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::array();
    for (const auto& entry : document[list]) {
      nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
      ordered["name"] = entry["name"];
      ordered[body] = in_go_order(entry[body], k_fields.at(body));
      entries.push_back(std::move(ordered));
    }
    out[list] = std::move(entries);
  }
  return out;
}

int run_view(const ConfigOptions& options) {
  auto merged = kubeconfig::load_files(overrides_of(options), kubeconfig::Environment::from_process());
  if (!merged) return report_usage(merged.error().message);
  std::string current = options.context.value_or(merged->current_context);
  std::string only_context, only_cluster, only_user;
  if (options.minify) {
    if (current.empty() || !merged->contexts.contains(current))
      return report_usage("current-context must exist in order to minify");
    only_context = current;
    only_cluster = merged->contexts[current].value("cluster", "");
    only_user = merged->contexts[current].value("user", "");
  }
  json document = {{"apiVersion", "v1"},
                   {"kind", "Config"},
                   {"preferences", json::object()},
                   {"clusters", named_entries(merged->clusters, "cluster", options.raw, only_cluster)},
                   {"contexts", named_entries(merged->contexts, "context", true, only_context)},
                   {"users", named_entries(merged->users, "user", options.raw, only_user)},
                   {"current-context", current}};
  if (options.minify && only_user.empty()) document["users"] = json::array();
  if (options.output == "json") std::cout << ordered_config(document).dump(4) << '\n';
  else std::cout << codec::json_to_yaml(document);
  return k_exit_ok;
}

int run_get_contexts(const ConfigOptions& options) {
  auto merged = kubeconfig::load_files(overrides_of(options), kubeconfig::Environment::from_process());
  if (!merged) return report_usage(merged.error().message);
  if (!options.name.empty() && !merged->contexts.contains(options.name))
    return report_usage("context " + options.name + " not found");
  if (options.output == "name") {
    for (const auto& [name, context] : merged->contexts.items())
      if (options.name.empty() || name == options.name) std::cout << name << '\n';
    return k_exit_ok;
  }
  std::vector<std::vector<std::string>> rows;
  if (!options.no_headers) rows.push_back({"CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"});
  for (const auto& [name, context] : merged->contexts.items()) {
    if (!options.name.empty() && name != options.name) continue;
    rows.push_back({name == merged->current_context ? "*" : "", name, context.value("cluster", ""),
                    context.value("user", ""), context.value("namespace", "")});
  }
  std::cout << tabulate(rows);
  return k_exit_ok;
}

// The file a change goes to: --kubeconfig, else the first existing file of $KUBECONFIG (the
// first listed when none exists), else ~/.kube/config.
std::string destination_file(const ConfigOptions& options) {
  if (options.kubeconfig && !options.kubeconfig->empty()) return *options.kubeconfig;
  const auto env = kubeconfig::Environment::from_process();
  if (env.kubeconfig && !env.kubeconfig->empty()) {
    const auto files = split_list(*env.kubeconfig, ':');
    std::error_code ec;
    for (const auto& file : files)
      if (fs::exists(file, ec)) return file;
    if (!files.empty()) return files.front();
  }
  return env.home + "/.kube/config";
}

int run_use_context(const ConfigOptions& options) {
  auto merged = kubeconfig::load_files(overrides_of(options), kubeconfig::Environment::from_process());
  if (!merged) return report_usage(merged.error().message);
  if (!merged->contexts.contains(options.name))
    return report_usage("no context exists with the name: \"" + options.name + "\"");
  const std::string file = destination_file(options);
  auto updated = kubeconfig::update_file(file, [&](json& document) { document["current-context"] = options.name; });
  if (!updated) return report_usage(updated.error().message);
  std::cout << "Switched to context \"" << options.name << "\".\n";
  return k_exit_ok;
}

int run_current_context(const ConfigOptions& options) {
  auto merged = kubeconfig::load_files(overrides_of(options), kubeconfig::Environment::from_process());
  if (!merged) return report_usage(merged.error().message);
  if (merged->current_context.empty()) return report_usage("current-context is not set");
  std::cout << merged->current_context << '\n';
  return k_exit_ok;
}

CLI::App* config_subcommand(CLI::App* parent, const std::string& name, const std::string& description,
                            ConfigOptions& options) {
  CLI::App* command = parent->add_subcommand(name, description);
  command->add_option("--kubeconfig", options.kubeconfig, "Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)");
  return command;
}

}  // namespace

void add_config_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ConfigOptions>();
  CLI::App* config = app.add_subcommand("config", "Show the kubeconfig and switch contexts (kubectl config)");
  config->require_subcommand(1);
  config->footer("Exit status: 0 success, 1 the kubeconfig cannot be read or written, or the context does not exist.");

  CLI::App* view = config_subcommand(config, "view", "Print the merged kubeconfig (secrets redacted unless --raw)", *options);
  view->add_flag("--raw", options->raw, "Print certificates, keys, tokens and passwords as they are");
  view->add_flag("--minify", options->minify, "Only the current context and its cluster and user");
  view->add_option("--context", options->context, "With --minify: the context to keep instead of current-context");
  view->add_option("-o,--output", options->output, "Output format: yaml or json")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  view->callback([options, exit_code] { *exit_code = run_view(*options); });

  CLI::App* contexts = config_subcommand(config, "get-contexts", "List the contexts of the kubeconfig", *options);
  contexts->add_option("name", options->name, "Only this context");
  contexts->add_option("-o,--output", options->output, "Output format: name (only the context names)")
      ->check(CLI::IsMember({"name"}));
  contexts->add_flag("--no-headers", options->no_headers, "Do not print headers");
  contexts->callback([options, exit_code] {
    if (options->output == "yaml") options->output.clear();
    *exit_code = run_get_contexts(*options);
  });

  CLI::App* current = config_subcommand(config, "current-context", "Print the current context", *options);
  current->callback([options, exit_code] { *exit_code = run_current_context(*options); });

  CLI::App* use = config_subcommand(config, "use-context", "Set current-context in the kubeconfig file", *options);
  use->add_option("name", options->name, "The context to switch to")->required();
  use->callback([options, exit_code] { *exit_code = run_use_context(*options); });
}

}  // namespace kw::cli
