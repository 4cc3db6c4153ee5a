// kw api-resources: the server's discovery as kubectl prints it, and the registration of
// every verb subcommand.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/print/printers.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"

namespace kw::cli {

namespace {

struct ApiResourcesOptions {
  ConnectionFlags connection;
  std::string output;
  bool no_headers = false;
  std::optional<std::string> api_group;
  std::string namespaced;  // "", "true", "false"
  std::vector<std::string> verbs;
  bool cached = false;
};

std::string join(std::vector<std::string> values, bool sorted) {
  if (sorted) std::sort(values.begin(), values.end());
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : ",") + value;
  return out;
}

bool wanted(const api::ResourceInfo& r, const ApiResourcesOptions& options) {
  if (options.api_group && r.group != *options.api_group) return false;
  if (!options.namespaced.empty() && (options.namespaced == "true") != r.namespaced) return false;
  for (const auto& verb : options.verbs)
    if (std::find(r.verbs.begin(), r.verbs.end(), verb) == r.verbs.end()) return false;
  return true;
}

int run_api_resources(ApiResourcesOptions& options) {
  if (!options.output.empty() && options.output != "wide" && options.output != "name")
    return report_usage("--output " + options.output + " is not available; allowed formats are: name, wide");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  auto resources = options.cached ? cached_discovery(**api, default_discovery_cache_root(), false)
                                  : fetch_discovery(**api);
  if (!resources) return report(resources.error());
  std::vector<api::ResourceInfo> shown;
  for (const auto& r : *resources)
    if (wanted(r, options)) shown.push_back(r);
  std::stable_sort(shown.begin(), shown.end(), [](const api::ResourceInfo& a, const api::ResourceInfo& b) {
    return a.group != b.group ? a.group < b.group : a.plural < b.plural;
  });
  if (options.output == "name") {
    for (const auto& r : shown) std::cout << qualified_resource(r) << '\n';
    return k_exit_ok;
  }
  const bool wide = options.output == "wide";
  std::vector<std::vector<std::string>> rows;
  if (!options.no_headers) {
    rows.push_back({"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"});
    if (wide) rows.back().insert(rows.back().end(), {"VERBS", "CATEGORIES"});
  }
  for (const auto& r : shown) {
    rows.push_back({r.plural, join(r.short_names, false), r.api_version(), r.namespaced ? "true" : "false", r.kind});
    if (wide) rows.back().insert(rows.back().end(), {join(r.verbs, true), join(r.categories, false)});
  }
  std::cout << tabulate(rows);
  std::cout.flush();
  return k_exit_ok;
}

}  // namespace

void add_api_resources_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ApiResourcesOptions>();
  CLI::App* command = app.add_subcommand("api-resources", "Print the resource types the server serves (kubectl api-resources)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("-o,--output", options->output, "Output format: wide or name")
      ->check(CLI::IsMember({"wide", "name"}));
  command->add_flag("--no-headers", options->no_headers, "Do not print headers");
  command->add_option("--api-group", options->api_group, "Only resources of this API group (\"\" for the core group)");
  command->add_option("--namespaced", options->namespaced, "true: only namespaced resources; false: only cluster-scoped ones")
      ->check(CLI::IsMember({"true", "false"}));
  command->add_option("--verbs", options->verbs, "Only resources that support all these verbs (comma-separated)")
      ->delimiter(',');
  command->add_flag("--cached", options->cached, "Use the discovery cache when it is fresh (10 minutes)");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_api_resources(*options); });
}

}  // namespace kw::cli
