// kw get / kw watch: options, validation, and the run that lists or watches and prints.
#include "cli/commands/get.hpp"

#include <CLI/CLI.hpp>

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <deque>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/client/api.hpp"
#include "cli/client/discovery.hpp"
#include "cli/client/list.hpp"
#include "cli/print/printers.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/targets.hpp"
#include "cli/client/watch.hpp"
#include "core/api/jsonpath.hpp"

namespace kw::cli {

namespace {

constexpr std::string_view k_exit_codes =
    "Exit status: 0 success (also when stdout closes or on Ctrl-C during a watch), 1 an error, as with kubectl: "
    "usage, kubeconfig or resource type, an error answered by the server, or a server that cannot be reached.";

struct GetOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;
  bool all_namespaces = false;
  std::string label_selector;
  std::string field_selector;
  std::string output;
  bool no_headers = false;
  bool show_labels = false;
  std::vector<std::string> label_columns;
  int chunk_size = 500;
  std::string sort_by;
  bool watch = false;
  bool watch_only = false;
  bool output_watch_events = false;
  bool show_managed_fields = false;
  std::string resume_file;
  std::vector<std::string> filenames;  // -f: the objects of these manifests
  bool recursive = false;
  std::string subresource;  // --subresource: status or scale of named objects
  std::string template_text;  // --template
  bool allow_missing_keys = true;  // --allow-missing-template-keys
};

struct KindNames {
  KindInfo kind;
  std::vector<std::string> names;
  std::optional<std::string> namespace_name;  // a manifest's own namespace
};

// The resolved kinds of one run; KindInfo points into it, so it only grows.
using KindStore = std::deque<api::ResourceInfo>;

KindInfo store_kind(KindStore& store, api::ResourceInfo info) {
  return kind_info(store.emplace_back(std::move(info)));
}

// TYPE[,TYPE] [NAME...] or TYPE/NAME... A TYPE may be a category ("all") when it stands alone
// or in a list without names; each kind is listed once, in the order first named (kubectl
// drops repeats the same way).
VerbResult<std::vector<KindNames>> parse_targets(Resolver& resolver, KindStore& store,
                                             const std::vector<std::string>& args) {
  std::vector<KindNames> targets;
  if (args.empty())
    return std::unexpected(usage_error(
        "you must specify the type of resource to get, e.g. 'kw get pods' (types: pods, services, deployments, "
        "configmaps, namespaces, nodes, ... or a category such as all)"));
  if (args.front().find('/') != std::string::npos) {
    for (const auto& arg : args) {
      const auto slash = arg.find('/');
      if (slash == std::string::npos)
        return std::unexpected(usage_error("there is no need to specify a resource type as a separate argument when "
                                           "passing arguments in resource/name form"));
      auto info = resolver.resolve(arg.substr(0, slash));
      if (!info) return std::unexpected(info.error());
      targets.push_back(KindNames{store_kind(store, std::move(*info)), {arg.substr(slash + 1)}, std::nullopt});
    }
    return targets;
  }
  const std::vector<std::string> names(args.begin() + 1, args.end());
  const std::vector<std::string> types = split_list(args.front(), ',');
  for (const auto& type : types) {
    std::vector<api::ResourceInfo> infos;
    if (names.empty() || types.size() == 1) {
      auto resolved = resolver.resolve_types(type);
      if (!resolved) return std::unexpected(resolved.error());
      infos = std::move(*resolved);
    } else {
      // kubectl reads "a,b NAME" as a/NAME b/NAME, where a category is no resource type.
      auto resolved = resolver.resolve(type);
      if (!resolved) return std::unexpected(resolved.error());
      infos.push_back(std::move(*resolved));
    }
    if (infos.size() > 1 && !names.empty()) return std::unexpected(usage_error("you must specify only one resource"));
    for (auto& info : infos) {
      const bool repeated = std::any_of(targets.begin(), targets.end(), [&](const KindNames& target) {
        return target.kind.group == info.group && target.kind.kind == info.kind;
      });
      if (!repeated) targets.push_back(KindNames{store_kind(store, std::move(info)), names, std::nullopt});
    }
  }
  return targets;
}

// The objects -f's manifests describe, one target each, in the order given.
VerbResult<std::vector<KindNames>> manifest_targets(ApiClient& api, Resolver& resolver, KindStore& store,
                                                    const GetOptions& options) {
  TargetArgs files;
  files.args = options.args;
  files.filenames = options.filenames;
  files.recursive = options.recursive;
  auto objects = objects_of(api, resolver, files);
  if (!objects) return std::unexpected(objects.error());
  std::vector<KindNames> targets;
  for (auto& object : *objects) {
    const bool namespaced = object.info.namespaced;
    targets.push_back(KindNames{store_kind(store, std::move(object.info)), {object.name},
                                namespaced ? std::optional(object.namespace_name) : std::nullopt});
  }
  return targets;
}

// Whether stdout is a pipe whose reader has gone (`kw get -w | head -1`), noticed without
// waiting for the next write.
bool stdout_closed() {
  struct stat info {};
  if (fstat(STDOUT_FILENO, &info) != 0 || !S_ISFIFO(info.st_mode)) return false;
  pollfd fd{STDOUT_FILENO, 0, 0};
  return poll(&fd, 1, 0) > 0 && (fd.revents & (POLLERR | POLLHUP)) != 0;
}

// SIGINT/SIGTERM (or a closed stdout pipe) -> stop.request_stop(), from a thread of its own
// while the run lasts.
class SignalWatcher {
 public:
  explicit SignalWatcher(StopState& stop) : m_stop(stop) {
    sigemptyset(&m_set);
    sigaddset(&m_set, SIGINT);
    sigaddset(&m_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    m_thread = std::thread([this] {
      timespec tick{0, 200'000'000};
      while (!m_done) {
        const bool signalled = sigtimedwait(&m_set, nullptr, &tick) > 0;
        if (signalled) m_signalled = true;
        if (signalled || stdout_closed()) m_stop.request_stop();
      }
    });
  }
  // After a stop by signal the signals stay blocked: the process is on its way out, and a
  // second copy of the signal (timeout(1) sends one to the command and one to its process
  // group) must not turn the clean stop into death by signal.
  ~SignalWatcher() {
    m_done = true;
    m_thread.join();
    if (!m_signalled) pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
  }

 private:
  StopState& m_stop;
  sigset_t m_set{};
  sigset_t m_old{};
  std::atomic<bool> m_done{false};
  std::atomic<bool> m_signalled{false};
  std::thread m_thread;
};

// --encoding=auto: protobuf for built-in kinds (the server may still answer JSON, which is
// decoded by its Content-Type), JSON for kinds without a protobuf form and for Tables.
std::string encoding_of(const GetOptions& options, const KindInfo& kind, bool want_table) {
  if (options.connection.encoding != "auto") return options.connection.encoding;
  const bool has_protobuf = kind.info != nullptr && !kind.info->proto_message.empty();
  return has_protobuf && !want_table ? std::string("protobuf") : std::string("json");
}

Query make_query(const GetOptions& options, const KindNames& target, const kubeconfig::RestConfig& config,
                 bool want_table) {
  Query query;
  const KindInfo& kind = target.kind;
  const bool namespaced = kind.info == nullptr || kind.info->namespaced;
  query.namespace_name = namespaced && !options.all_namespaces ? target.namespace_name.value_or(config.namespace_name)
                                                               : std::string();
  query.subresource = options.subresource;
  query.label_selector = options.label_selector;
  query.field_selector = options.field_selector;
  query.chunk_size = options.chunk_size;
  query.encoding = encoding_of(options, kind, want_table);
  query.want_table = want_table && query.encoding == "json";
  query.include_object = !options.sort_by.empty();
  return query;
}

Result<void> sort_items(std::vector<Item>& items, const std::string& sort_by) {
  auto parsed = api::JsonPath::parse_relaxed(sort_by);
  if (!parsed) return fail("couldn't parse --sort-by '" + sort_by + "': " + parsed.error().message);
  auto key = [&](const Item& item) {
    auto groups = parsed->find(item.object);
    return !groups || groups->empty() || groups->front().empty() ? nlohmann::json() : groups->front().front();
  };
  std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    const auto ka = key(a), kb = key(b);
    if (ka.is_number() && kb.is_number()) return ka.get<double>() < kb.get<double>();
    if (ka.is_string() && kb.is_string()) return ka.get<std::string>() < kb.get<std::string>();
    return ka.is_null() && !kb.is_null();
  });
  return {};
}

int run_watch(GetOptions& options, ApiClient& api, std::vector<KindNames>& targets, Printer& printer) {
  std::signal(SIGPIPE, SIG_IGN);
  StopState stop;
  SignalWatcher signals(stop);
  SharedOutput output{printer, std::cout, {}, false};
  std::vector<std::unique_ptr<ApiClient>> clients;
  std::vector<int> codes(targets.size(), k_exit_ok);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    ApiClient* client = &api;
    if (i > 0) {
      auto extra = api.clone();
      if (!extra) {
        std::cerr << "error: " << extra.error().message << '\n';
        return k_exit_usage;
      }
      clients.push_back(std::move(*extra));
      client = clients.back().get();
    }
    WatchOptions watch;
    watch.print_initial = !options.watch_only;
    watch.resume_file = targets.size() == 1 ? options.resume_file
                                            : (options.resume_file.empty() ? std::string()
                                                                           : options.resume_file + "." + targets[i].kind.prefix());
    if (targets[i].names.size() == 1) watch.single_name = targets[i].names.front();
    Query query = make_query(options, targets[i], api.config(), printer.wants_table());
    threads.emplace_back([&, i, client, query, watch] {
      WatchSession session(*client, targets[i].kind, query, watch, output, stop);
      codes[i] = session.run();
      if (codes[i] != k_exit_ok) stop.request_stop();
    });
  }
  for (auto& thread : threads) thread.join();
  for (int code : codes)
    if (code != k_exit_ok) return code;
  return k_exit_ok;
}

int run_get(GetOptions& options) {
  PrintOptions print{.output = options.output,
                     .no_headers = options.no_headers,
                     .show_labels = options.show_labels,
                     .with_namespace = options.all_namespaces,
                     .with_kind = false,
                     .watch_events = options.output_watch_events,
                     .label_columns = {},
                     .show_managed_fields = options.show_managed_fields,
                     .template_text = options.template_text,
                     .allow_missing_keys = options.allow_missing_keys,
                     .typed = false};
  for (const auto& column : options.label_columns)
    for (auto& key : split_list(column, ',')) print.label_columns.push_back(key);
  const bool watch_flag = options.watch;
  if (options.watch_only) options.watch = true;
  // Scripts reading `-o json -w` need the event type (a DELETED object looks like any
  // other): each line is a {"type":...,"object":...} event, initial objects as ADDED.
  if (options.watch && options.output == "json") print.watch_events = true;
  // -o is checked before any request; the printer itself waits for the kinds (with_kind).
  if (auto checked = make_printer(print); !checked) {
    std::cerr << "error: " << checked.error().message << '\n';
    return k_exit_usage;
  }
  // A watch prints each object as it comes: kubectl warns that it sorts nothing.
  if (!options.sort_by.empty() && options.watch) {
    std::cerr << (watch_flag ? "warning: --watch requested, --sort-by will be ignored for watch events received\n"
                             : "warning: --watch-only requested, --sort-by will be ignored\n");
    options.sort_by.clear();
  }
  auto api = ApiClient::create(options.connection);
  if (!api) {
    std::cerr << "error: " << api.error().message << '\n';
    return k_exit_usage;
  }
  Resolver resolver(**api);
  KindStore kinds;
  auto targets = options.filenames.empty() ? parse_targets(resolver, kinds, options.args)
                                           : manifest_targets(**api, resolver, kinds, options);
  std::optional<VerbError> refused;
  if (targets && options.filenames.empty())
    for (const auto& target : *targets)
      if (!refused && !target.names.empty() && target.kind.info != nullptr)
        refused = named_across_namespaces(*target.kind.info, options.all_namespaces);
  if (refused) targets = std::unexpected(*refused);
  if (!targets) {
    std::cerr << targets.error().message << '\n';
    return targets.error().exit_code;
  }
  print.with_kind = targets->size() > 1;
  auto printer = make_printer(print);
  if (!printer) {
    std::cerr << "error: " << printer.error().message << '\n';
    return k_exit_usage;
  }
  if (options.watch) {
    for (const auto& target : *targets)
      if (target.names.size() > 1) {
        std::cerr << "error: watch is only supported on individual resources and resource collections, but "
                  << target.names.size() << " resources were found\n";
        return k_exit_usage;
      }
    return run_watch(options, **api, *targets, **printer);
  }
  int code = k_exit_ok;
  bool printed_any = false;
  // What could not be read is reported after what could, as kubectl reports it.
  std::vector<std::string> errors;
  const bool single = targets->size() == 1 && targets->front().names.size() == 1;
  for (auto& target : *targets) {
    Query query = make_query(options, target, (*api)->config(), (*printer)->wants_table());
    std::vector<Item> items;
    if (target.names.empty()) {
      if (!query.subresource.empty()) {
        errors.push_back("error: --subresource can only be used with named resources");
        code = k_exit_usage;
        continue;
      }
      auto listing = list_objects(**api, target.kind, query);
      if (!listing) {
        errors.push_back(listing.error().text());
        code = listing.error().exit_code();
        continue;
      }
      items = std::move(listing->items);
    } else {
      for (const auto& name : target.names) {
        auto listing = get_object(**api, target.kind, query, name);
        if (!listing) {
          std::string text = listing.error().text();
          // An object in a namespace that does not exist: kubectl names the namespace.
          if (listing.error().http_status == 404 && target.kind.info != nullptr)
            if (auto missing = missing_namespace(**api, *target.kind.info, query.namespace_name)) text = missing->message;
          errors.push_back(std::move(text));
          code = listing.error().exit_code();
          continue;
        }
        items.insert(items.end(), listing->items.begin(), listing->items.end());
      }
    }
    if (!options.sort_by.empty()) {
      if (auto sorted = sort_items(items, options.sort_by); !sorted) {
        std::cerr << "error: " << sorted.error().message << '\n';
        return k_exit_usage;
      }
    }
    if (!items.empty()) printed_any = true;
    if (auto printed = (*printer)->print_list(target.kind, items, single, std::cout); !printed) {
      std::cerr << "error: " << printed.error().message << '\n';
      return k_exit_usage;
    }
  }
  if (auto finished = (*printer)->finish(std::cout); !finished) {
    std::cerr << "error: " << finished.error().message << '\n';
    return k_exit_usage;
  }
  std::cout.flush();
  for (const auto& error : errors) std::cerr << error << '\n';
  if (!printed_any && code == k_exit_ok && (*printer)->wants_table()) {
    const bool namespaced = targets->front().kind.info && targets->front().kind.info->namespaced;
    if (options.all_namespaces || !namespaced) std::cerr << "No resources found\n";
    else std::cerr << "No resources found in " << (*api)->config().namespace_name << " namespace.\n";
  }
  std::cout.flush();
  return code;
}

void add_common(CLI::App* command, GetOptions& options) {
  add_connection_flags(*command, options.connection);
  command->add_flag("-A,--all-namespaces", options.all_namespaces, "List the requested objects across all namespaces");
  command->add_option("-l,--selector", options.label_selector, "Label selector to filter on (e.g. -l key1=value1,key2)");
  command->add_option("--field-selector", options.field_selector, "Field selector to filter on (e.g. status.phase=Running)");
  command->add_option("-o,--output", options.output,
                      "Output format: " + std::string(k_output_formats) +
                          " (jsonpath=TEMPLATE, custom-columns=SPEC, go-template=TEMPLATE)");
  command->add_option("--template", options.template_text,
                      "The Go template of -o go-template or -o template (alone, it implies -o go-template)");
  command->add_option("--allow-missing-template-keys", options.allow_missing_keys,
                      "A key a JSONPath or Go template names that the object lacks prints nothing (or <no value>) "
                      "instead of failing")
      ->default_str("true");
  command->add_flag("--no-headers", options.no_headers, "Do not print headers");
  command->add_flag("--show-labels", options.show_labels, "Show all labels as the last column");
  command->add_option("-L,--label-columns", options.label_columns, "Labels to show as columns (comma-separated)");
  command->add_option("--chunk-size", options.chunk_size, "Return large lists in chunks of this size (0 = no chunks)");
  command->add_flag("--output-watch-events", options.output_watch_events, "Print the event type with each watched object (always on for -o json)");
  command->add_flag("--show-managed-fields", options.show_managed_fields,
                    "Keep metadata.managedFields when printing objects as JSON or YAML");
  command->add_option("--resume-file", options.resume_file,
                      "Store the last seen resourceVersion in this file and resume the watch from it on start");
}

}  // namespace

void add_get_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<GetOptions>();
  CLI::App* command = app.add_subcommand("get", "Display one or many resources (kubectl get)");
  command->footer(std::string(k_exit_codes));
  command->add_option("args", options->args,
                      "TYPE[,TYPE...] [NAME...] or TYPE/NAME...; a TYPE may be a category such as all");
  add_common(command, *options);
  add_manifest_flags(*command, options->filenames, options->recursive, "Files, directories or - (stdin) whose objects to get");
  command->add_option("--subresource", options->subresource,
                      "Get this subresource of the named objects (status, scale, or any the server serves)");
  command->add_option("--sort-by", options->sort_by, "Sort by a JSONPath expression (e.g. .metadata.name)");
  command->add_flag("-w,--watch", options->watch, "After listing, watch for changes (reconnects and resumes)");
  command->add_flag("--watch-only", options->watch_only, "Watch for changes without printing the current state");
  command->callback([options, exit_code] { *exit_code = run_get(*options); });
}

void add_watch_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<GetOptions>();
  CLI::App* command =
      app.add_subcommand("watch", "Watch one or several kinds in one stream (list, then changes; survives restarts)");
  command->footer(std::string(k_exit_codes));
  command->add_option("types", options->args, "TYPE[,TYPE...]; a TYPE may be a category such as all")->required();
  add_common(command, *options);
  command->add_flag("--watch-only", options->watch_only, "Do not print the current state first");
  command->callback([options, exit_code] {
    options->watch = true;
    if (options->args.size() > 1) {
      std::cerr << "error: kw watch takes TYPE[,TYPE...]; to watch one object use 'kw get TYPE NAME -w'\n";
      *exit_code = k_exit_usage;
      return;
    }
    *exit_code = run_get(*options);
  });
}

}  // namespace kw::cli
