// kw describe: kubectl describe's text for the objects named (TYPE NAME..., TYPE/NAME..., -f),
// every object of a type (optionally -l), or, when a TYPE NAME finds nothing, every object whose
// name starts with NAME. What a describer shows besides the object (its events, a controller's
// pods, a namespace's quotas) is read here; cli/print/describe_kinds.hpp renders.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/client/discovery.hpp"
#include "cli/client/manifest.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli {

namespace {

using api::at;
using api::str;
using nlohmann::json;

struct DescribeOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  bool show_events = true;  // kubectl (1.30 to 1.33) shows them for every object, several or one
  std::int64_t chunk_size = 500;
};

// One object to describe, as read from the server.
struct Found {
  api::ResourceInfo info;
  json object;
};

// Every item of `path` (a collection, its query already begun with '?' or not), read
// `chunk` at a time as kubectl does with --chunk-size.
VerbResult<std::vector<json>> list_all(ApiClient& api, const std::string& path, std::int64_t chunk) {
  std::vector<json> items;
  std::string next;
  do {
    std::string page = path;
    if (chunk > 0) page = with_query(page, "limit", std::to_string(chunk));
    if (!next.empty()) page = with_query(page, "continue", next);
    auto listing = call_json(api, "GET", page, {}, {});
    if (!listing) return std::unexpected(listing.error());
    for (auto& item : (*listing)["items"]) items.push_back(std::move(item));
    next = str(at(*listing, {"metadata", "continue"}));
  } while (!next.empty());
  return items;
}

// The listed objects of `info` with their apiVersion and kind, as kubectl's unstructured lists
// give them to the describers.
VerbResult<std::vector<Found>> list_found(ApiClient& api, const api::ResourceInfo& info, const std::string& ns,
                                          const std::string& selector, std::int64_t chunk) {
  std::string path = object_path(info, ns, "");
  if (!selector.empty()) path = with_query(path, "labelSelector", selector);
  auto items = list_all(api, path, chunk);
  if (!items) return std::unexpected(items.error());
  std::vector<Found> out;
  for (auto& item : *items) {
    item["apiVersion"] = info.api_version();
    item["kind"] = info.kind;
    out.push_back(Found{info, std::move(item)});
  }
  return out;
}

// The events kubectl's describers show: those whose involvedObject is the object (by name,
// namespace, uid, and kind but for pods).
std::vector<json> events_of(ApiClient& api, const Found& found, std::int64_t chunk) {
  const json& meta = at(found.object, {"metadata"});
  const std::string ns = str(at(meta, {"namespace"}));
  auto search = [&](const std::string& uid) {
    std::string selector = "involvedObject.name=" + str(at(meta, {"name"})) + ",involvedObject.namespace=" + ns;
    if (found.info.kind != "Pod" || !found.info.group.empty()) selector += ",involvedObject.kind=" + found.info.kind;
    if (!uid.empty()) selector += ",involvedObject.uid=" + uid;
    const std::string path = ns.empty() ? "/api/v1/events" : "/api/v1/namespaces/" + url_escape(ns) + "/events";
    return list_all(api, with_query(path, "fieldSelector", selector), chunk).value_or(std::vector<json>{});
  };
  std::string uid = str(at(meta, {"uid"}));
  if (found.info.kind == "Pod" && found.info.group.empty())
    if (const std::string mirror = str(at(meta, {"annotations", "kubernetes.io/config.mirror"})); !mirror.empty())
      uid = mirror;
  auto events = search(uid);
  // Node events carry either the node's uid (controllers) or its name (kubelet).
  if (found.info.kind == "Node" && found.info.group.empty()) {
    auto by_name = search(str(at(meta, {"name"})));
    events.insert(events.end(), by_name.begin(), by_name.end());
  }
  return events;
}

// A failed read as Go's error value prints it: the server's message alone.
std::string lease_error_text(const VerbError& error) {
  std::string text = error.message;
  if (const auto colon = text.find("): "); text.starts_with("Error from server (") && colon != std::string::npos)
    return text.substr(colon + 3);
  if (text.starts_with("error: ")) return text.substr(7);
  return text;
}

// The label selector of a controller's pods: a LabelSelector, or a ReplicationController's map.
std::string selector_of(const json& object) {
  const json& selector = at(object, {"spec", "selector"});
  if (str(at(object, {"kind"})) == "ReplicationController") return api::print::format_labels(selector);
  return api::print::selector_string(selector);
}

// What the kind's describer shows besides the object. A failed read leaves the part empty
// (kubectl's describers print what they could read), but for a missing quota or limit range
// API, which drops its section.
describe::Related related_of(ApiClient& api, const Found& found, bool show_events, std::int64_t chunk) {
  describe::Related related;
  if (show_events) related.events = events_of(api, found, chunk);
  const std::string ns = str(at(found.object, {"metadata", "namespace"}));
  const std::string name = str(at(found.object, {"metadata", "name"}));
  for (const auto need : describe::needs_of(found.info.group, found.info.kind)) {
    switch (need) {
      case describe::Need::pods:
        related.pods = list_all(api,
                                with_query("/api/v1/namespaces/" + url_escape(ns) + "/pods", "labelSelector",
                                           selector_of(found.object)),
                                chunk)
                           .value_or(std::vector<json>{});
        break;
      case describe::Need::namespace_pods:
        related.pods =
            list_all(api, "/api/v1/namespaces/" + url_escape(ns) + "/pods", chunk).value_or(std::vector<json>{});
        break;
      case describe::Need::replica_sets:
        related.replica_sets = list_all(api,
                                        with_query("/apis/apps/v1/namespaces/" + url_escape(ns) + "/replicasets",
                                                   "labelSelector", selector_of(found.object)),
                                        chunk)
                                   .value_or(std::vector<json>{});
        break;
      case describe::Need::quotas_and_limits:
        if (auto quotas = list_all(api, "/api/v1/namespaces/" + url_escape(name) + "/resourcequotas", chunk))
          related.quotas = std::move(*quotas);
        if (auto ranges = list_all(api, "/api/v1/namespaces/" + url_escape(name) + "/limitranges", chunk))
          related.limit_ranges = std::move(*ranges);
        break;
      case describe::Need::secrets:
        if (auto secrets = list_all(api, "/api/v1/namespaces/" + url_escape(ns) + "/secrets", chunk))
          related.secrets = std::move(*secrets);
        break;
      case describe::Need::services_and_endpoint_slices: {
        related.services =
            list_all(api, "/api/v1/namespaces/" + url_escape(ns) + "/services", chunk).value_or(std::vector<json>{});
        // One listing for all the Services shown (kubectl lists each Service's slices).
        std::string names;
        for (const auto& service : describe::shown_services(found.object))
          names += (names.empty() ? "" : ",") + service;
        if (names.empty()) break;
        related.endpoint_slices =
            list_all(api,
                     with_query("/apis/discovery.k8s.io/v1/namespaces/" + url_escape(ns) + "/endpointslices",
                                "labelSelector", "kubernetes.io/service-name in (" + names + ")"),
                     chunk)
                .value_or(std::vector<json>{});
        break;
      }
      case describe::Need::node_pods_and_lease: {
        const std::string selector = "spec.nodeName=" + name + ",status.phase!=Succeeded,status.phase!=Failed";
        related.pods =
            list_all(api, with_query("/api/v1/pods", "fieldSelector", selector), chunk).value_or(std::vector<json>{});
        auto lease = call_json(
            api, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + url_escape(name), {}, {});
        if (lease)
          related.lease = std::move(*lease);
        else
          related.lease_error = lease_error_text(lease.error());
        break;
      }
    }
  }
  return related;
}

// The objects the arguments name, read from the server, and the errors met on the way
// (kubectl goes on past a missing object and reports it at the end).
struct Targets {
  std::vector<Found> found;
  std::vector<VerbError> errors;
};

VerbResult<Targets> find_targets(ApiClient& api, Resolver& resolver, const DescribeOptions& options) {
  Targets out;
  const TargetArgs& targets = options.targets;
  const bool listing =
      targets.filenames.empty() &&
      (!targets.selector.empty() || (targets.args.size() == 1 && targets.args[0].find('/') == std::string::npos));
  if (listing) {
    auto parsed = parse_resource_args(targets.args);
    if (!parsed) return std::unexpected(usage_error(parsed.error().message));
    for (const auto& group : *parsed) {
      auto infos = resolver.resolve_types(group.type);
      if (!infos) return std::unexpected(infos.error());
      for (const auto& info : *infos) {
        const std::string ns = info.namespaced && !targets.all_namespaces ? api.config().namespace_name : "";
        auto listed = list_found(api, info, ns, targets.selector, options.chunk_size);
        if (!listed) return std::unexpected(listed.error());
        std::ranges::move(*listed, std::back_inserter(out.found));
      }
    }
    return out;
  }
  auto named = objects_of(api, resolver, targets);
  if (!named) return std::unexpected(named.error());
  for (const auto& object : *named) {
    auto live = read_object(api, object);
    if (!live) {
      out.errors.push_back(live.error());
      continue;
    }
    out.found.push_back(Found{object.info, std::move(*live)});
  }
  return out;
}

// kubectl's fallback for TYPE NAME that names nothing: every object of TYPE in the namespace
// whose name starts with NAME, each description followed by a blank line.
int describe_prefixed(ApiClient& api, Resolver& resolver, const DescribeOptions& options, const VerbError& missing) {
  auto info = resolver.resolve(options.targets.args[0]);
  if (!info) return report(info.error());
  const std::string ns = info->namespaced ? api.config().namespace_name : "";
  auto listed = list_found(api, *info, ns, "", options.chunk_size);
  if (!listed) return report(listed.error());
  const std::string& prefix = options.targets.args[1];
  bool any = false;
  for (const auto& found : *listed) {
    if (!str(at(found.object, {"metadata", "name"})).starts_with(prefix)) continue;
    any = true;
    const auto related = related_of(api, found, options.show_events, options.chunk_size);
    std::cout << describe::describe_object(found.object, related, std::chrono::system_clock::now()) << "\n";
  }
  std::cout.flush();
  return any ? k_exit_ok : report(missing);
}

int run_describe(const DescribeOptions& options) {
  if (options.targets.args.empty() && options.targets.filenames.empty())
    return report_usage(
        "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a "
        "complete list of supported resources.");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto targets = find_targets(**api, resolver, options);
  if (!targets) return report(targets.error());
  const bool failed = !targets->errors.empty();
  if (failed && targets->errors.front().http_status == 404 && options.targets.args.size() == 2 &&
      options.targets.filenames.empty())
    return describe_prefixed(**api, resolver, options, targets->errors.front());
  bool first = true;
  for (const auto& found : targets->found) {
    const auto related = related_of(**api, found, options.show_events, options.chunk_size);
    if (!first) std::cout << "\n\n";
    first = false;
    std::cout << describe::describe_object(found.object, related, std::chrono::system_clock::now());
  }
  std::cout.flush();
  if (targets->found.empty() && !failed) {
    if (options.targets.all_namespaces)
      std::cerr << "No resources found\n";
    else
      std::cerr << "No resources found in " << (*api)->config().namespace_name << " namespace.\n";
  }
  int code = k_exit_ok;
  for (const auto& error : targets->errors) code = report(error);
  return code;
}

}  // namespace

void add_describe_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<DescribeOptions>();
  CLI::App* command = app.add_subcommand(
      "describe", "Show the details of objects, their related objects and events (kubectl describe)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("args", options->targets.args,
                      "TYPE [NAME_PREFIX], TYPE NAME..., or TYPE/NAME...: the objects to describe");
  command->add_option("-l,--selector", options->targets.selector, "Only the objects matching this label selector");
  command->add_flag("-A,--all-namespaces", options->targets.all_namespaces,
                    "The objects of every namespace, not only the context's");
  add_target_file_flags(*command, options->targets, "describe");
  command->add_flag("--show-events{true}", options->show_events, "Show the events of each object (default true)");
  command->add_option("--chunk-size", options->chunk_size,
                      "Read long lists this many items at a time (default 500; 0: all at once)");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_describe(*options); });
}

}  // namespace kw::cli
