// kw rollout status: follows the rollout of a Deployment, StatefulSet or DaemonSet through a
// watch, printing each new progress line as kubectl does, until it completes.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/client/object_watch.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/rollout_status.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "core/util/go_time.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct RolloutStatusOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;
  bool watch = true;
  std::string timeout = "0s";
};

// Follows one object: prints each progress line that differs from the one before, until done.
int follow_rollout(ApiClient& api, const NamedObject& object, std::optional<std::chrono::milliseconds> timeout) {
  std::string last;
  std::optional<Error> failure;
  auto judge = [&](const ObjectState& state) {
    if (!state) {
      failure = Error{"object has been deleted"};
      return true;
    }
    auto progress = rollout_progress(object.info.kind, *state);
    if (!progress) {
      failure = progress.error();
      return true;
    }
    if (progress->done || progress->message != last) std::cout << progress->message << std::flush;
    last = progress->message;
    return progress->done;
  };
  const auto result = watch_object(api, object.info, object.namespace_name, object.name, timeout, judge);
  if (failure) return report_usage(failure->message);
  switch (result.end) {
    case WatchEnd::Satisfied: return k_exit_ok;
    case WatchEnd::TimedOut: return report_usage("timed out waiting for the condition");
    case WatchEnd::Failed: break;
  }
  return result.exit_code;
}

int run_rollout_status(const RolloutStatusOptions& options) {
  auto nanos = util::parse_go_duration(options.timeout);
  if (!nanos)
    return report_usage("invalid argument \"" + options.timeout + "\" for \"--timeout\" flag: " +
                        nanos.error().message);
  if (options.args.empty()) return report_usage("required resource not specified");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto objects = objects_of(**api, resolver, TargetArgs{options.args, {}, false, false});
  if (!objects) return report(objects.error());
  for (const auto& object : *objects) {
    auto live = read_object(**api, object);
    if (!live) return report(live.error());
    auto progress = rollout_progress(object.info.kind, *live);
    if (!progress) return report_usage(progress.error().message);
    if (!options.watch || progress->done) {
      std::cout << progress->message << std::flush;
      continue;
    }
    std::optional<std::chrono::milliseconds> limit;
    if (*nanos > 0) limit = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(*nanos));
    if (const int code = follow_rollout(**api, object, limit); code != k_exit_ok) return code;
  }
  return k_exit_ok;
}

}  // namespace

void add_rollout_command(CLI::App& app, int* exit_code) {
  CLI::App* rollout = app.add_subcommand("rollout", "Follow the rollout of deployments, statefulsets and daemonsets");
  rollout->require_subcommand(1);
  auto options = std::make_shared<RolloutStatusOptions>();
  CLI::App* status = rollout->add_subcommand(
      "status", "Print the progress of a rollout until it completes (kubectl rollout status)");
  status->footer(
      "The object is watched, and the watch resumes after a disconnect. Exit status: 0 the rollout completed (or "
      "--watch=false printed its state), 1 a timeout, a failed rollout, or an error (usage, resource type, the "
      "server's answer, a server that cannot be reached).");
  status->add_option("args", options->args, "TYPE NAME or TYPE/NAME (deployment, statefulset, daemonset)");
  status->add_option("-w,--watch", options->watch, "Follow the rollout until it completes (false: print its state once)")
      ->default_str("true");
  status->add_option("--timeout", options->timeout, "How long to follow it (Go duration; 0: no limit)")
      ->default_str("0s");
  add_connection_flags(*status, options->connection);
  status->callback([options, exit_code] { *exit_code = run_rollout_status(*options); });
}

}  // namespace kw::cli
