// kw completion bash|zsh, and the hidden kw __complete WHAT [ARG] the scripts call for names
// that live on the server: resource types and their categories (discovery, cached for ten
// minutes), object names and namespaces (listed live), and kubeconfig contexts, clusters and users.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "cli/commands/completion.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

constexpr const char* k_completion_timeout = "5s";

struct CompleteOptions {
  ConnectionFlags connection;
  std::vector<std::string> words;
};

// Resource names a verb accepts, then the categories they belong to ("all"), each once.
void print_resource_types(const std::vector<api::ResourceInfo>& resources) {
  std::set<std::string> seen;
  std::vector<std::string> categories;
  for (const auto& r : resources) {
    if (!r.verbs.empty() && std::find(r.verbs.begin(), r.verbs.end(), "list") == r.verbs.end()) continue;
    const std::string name = seen.contains(r.plural) ? r.plural + "." + r.group : r.plural;
    if (seen.insert(name).second) std::cout << name << '\n';
    for (const auto& category : r.categories)
      if (std::find(categories.begin(), categories.end(), category) == categories.end()) categories.push_back(category);
  }
  for (const auto& category : categories)
    if (seen.insert(category).second) std::cout << category << '\n';
}

int print_names(ApiClient& api, const std::string& type) {
  Resolver resolver(api);
  auto info = resolver.resolve(type);
  if (!info) return k_exit_usage;
  const std::string namespace_name = info->namespaced ? api.config().namespace_name : std::string();
  auto listing = call_json(api, "GET", object_path(*info, namespace_name, "") + "?limit=500", {}, {});
  if (!listing) return listing.error().exit_code;
  for (const auto& item : listing->value("items", json::array()))
    std::cout << item.value("metadata", json::object()).value("name", "") << '\n';
  return k_exit_ok;
}

int print_namespaces(ApiClient& api) {
  auto listing = call_json(api, "GET", "/api/v1/namespaces?limit=500", {}, {});
  if (!listing) return listing.error().exit_code;
  for (const auto& item : listing->value("items", json::array()))
    std::cout << item.value("metadata", json::object()).value("name", "") << '\n';
  return k_exit_ok;
}

// The names of the kubeconfig's contexts, clusters or users (`what`).
int print_kubeconfig_names(const ConnectionFlags& flags, const std::string& what) {
  kubeconfig::Overrides overrides;
  overrides.kubeconfig = flags.overrides.kubeconfig;
  auto merged = kubeconfig::load_files(overrides, kubeconfig::Environment::from_process());
  if (!merged) return k_exit_usage;
  const nlohmann::json& named = what == "clusters" ? merged->clusters : what == "users" ? merged->users : merged->contexts;
  for (const auto& [name, entry] : named.items()) std::cout << name << '\n';
  return k_exit_ok;
}

int run_complete(CompleteOptions& options) {
  if (options.words.empty())
    return report_usage(
        "__complete needs what to complete: resource-types, names TYPE, namespaces, contexts, clusters or users");
  const std::string what = options.words.front();
  if (what == "contexts" || what == "clusters" || what == "users") return print_kubeconfig_names(options.connection, what);
  if (options.connection.request_timeout == "0") options.connection.request_timeout = k_completion_timeout;
  auto api = ApiClient::create(options.connection);
  if (what == "resource-types") {
    // Without a usable server: the built-in kinds.
    std::optional<std::vector<api::ResourceInfo>> discovered;
    if (api)
      if (auto resources = cached_discovery(**api, default_discovery_cache_root(), false)) discovered = std::move(*resources);
    print_resource_types(discovered ? *discovered : kinds::builtin_table().all());
    return k_exit_ok;
  }
  if (!api) return k_exit_usage;
  if (what == "names" && options.words.size() == 2) return print_names(**api, options.words[1]);
  if (what == "namespaces") return print_namespaces(**api);
  return report_usage("unknown completion request \"" + what + "\"");
}

}  // namespace

void add_completion_commands(CLI::App& app, int* exit_code) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand("completion", "Print the bash or zsh completion script of kw");
  completion->footer(
      "Load it into the running shell with: source <(kw completion bash), or for zsh: source <(kw completion zsh). "
      "Exit status: 0 success, 1 usage error.");
  completion->add_option("shell", *shell, "The shell: bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  CLI::App* root = &app;
  completion->callback([shell, root] {
    std::cout << (*shell == "bash" ? bash_completion_script(*root) : zsh_completion_script(*root));
    std::cout.flush();
  });

  auto options = std::make_shared<CompleteOptions>();
  CLI::App* complete = app.add_subcommand("__complete", "Print completion candidates (used by the completion scripts)");
  complete->group("");
  complete->add_option("words", options->words, "resource-types | names TYPE | namespaces | contexts | clusters | users");
  add_connection_flags(*complete, options->connection);
  complete->callback([options, exit_code] { *exit_code = run_complete(*options); });
}

}  // namespace kw::cli
