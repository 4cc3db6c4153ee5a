// kw rollout: `status` follows the rollout of a Deployment, StatefulSet or DaemonSet through a
// watch, printing each new progress line as kubectl does, until it completes; `pause`, `resume`
// and `restart` patch the objects as kubectl's do; `history` and `undo` live in rollout_history.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <memory>

#include "cli/client/discovery.hpp"
#include "cli/client/object_watch.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/rollout_history.hpp"
#include "cli/commands/rollout_status.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/util/go_time.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct RolloutStatusOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  bool watch = true;
  std::string timeout = "0s";
  std::int64_t revision = 0;  // the Deployment revision to wait for (0: any)
};

// Follows one object: prints each progress line that differs from the one before, until done.
int follow_rollout(ApiClient& api, const NamedObject& object, std::int64_t revision,
                   std::optional<std::chrono::milliseconds> timeout) {
  std::string last;
  std::optional<Error> failure;
  auto judge = [&](const ObjectState& state) {
    if (!state) {
      failure = Error{"object has been deleted"};
      return true;
    }
    auto progress = rollout_progress(object.info.kind, *state, revision);
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
  auto found = rollout_objects(options.connection, options.targets);
  if (!found) return report(found.error());
  ApiClient& api = *found->api;
  if (found->objects.empty())
    std::cerr << "No resources found in " << api.config().namespace_name << " namespace.\n";
  for (const auto& object : found->objects) {
    auto live = read_object(api, object);
    if (!live) return report(live.error());
    auto progress = rollout_progress(object.info.kind, *live, options.revision);
    if (!progress) return report_usage(progress.error().message);
    if (!options.watch || progress->done) {
      std::cout << progress->message << std::flush;
      continue;
    }
    std::optional<std::chrono::milliseconds> limit;
    if (*nanos > 0) limit = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(*nanos));
    if (const int code = follow_rollout(api, object, options.revision, limit); code != k_exit_ok) return code;
  }
  return k_exit_ok;
}

// ---- pause, resume, restart ---------------------------------------------------------------

struct RolloutEditOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  WriteOutput write;  // -o; no --dry-run (kubectl's pause, resume and restart have none)
  std::string field_manager = "kubectl-rollout";
};

// What a verb does to one object: the strategic merge patch (empty: nothing to change), or why
// the object cannot take it (kubectl's words, after the object's name).
struct RolloutEdit {
  std::string done;  // "paused": the outcome line's verb
  std::function<Result<json>(const std::string& kind, const json& live)> patch;
};

const json& spec_paused(const json& live) { return api::at(live, {"spec", "paused"}); }

RolloutEdit pause_edit() {
  return {"paused", [](const std::string& kind, const json& live) -> Result<json> {
            if (kind != "Deployment") return fail("pausing is not supported");
            if (spec_paused(live) == true) return fail("is already paused");
            return json{{"spec", {{"paused", true}}}};
          }};
}

RolloutEdit resume_edit() {
  return {"resumed", [](const std::string& kind, const json& live) -> Result<json> {
            if (kind != "Deployment") return fail("resuming is not supported");
            if (spec_paused(live) != true) return fail("is not paused");
            return json{{"spec", {{"paused", nullptr}}}};
          }};
}

constexpr const char* k_restarted_at = "kubectl.kubernetes.io/restartedAt";

// The pod template gets an annotation with the time, in the local zone as kubectl writes it; a
// second restart within the same second would change nothing.
RolloutEdit restart_edit() {
  return {"restarted", [](const std::string& kind, const json& live) -> Result<json> {
            if (kind != "Deployment" && kind != "DaemonSet" && kind != "StatefulSet")
              return fail("restarting is not supported");
            if (kind == "Deployment" && spec_paused(live) == true)
              return fail("can't restart paused deployment (run rollout resume first)");
            const std::string now = api::print::format_rfc3339_local(std::chrono::system_clock::now());
            if (api::at(live, {"spec", "template", "metadata", "annotations", k_restarted_at}) == now) return json();
            return json{{"spec", {{"template", {{"metadata", {{"annotations", {{k_restarted_at, now}}}}}}}}}};
          }};
}

int run_rollout_edit(const RolloutEditOptions& options, const RolloutEdit& edit) {
  auto targets = rollout_objects(options.connection, options.targets);
  if (!targets) return report(targets.error());
  ApiClient& api = *targets->api;
  // Every object is read before any is changed: one that cannot be read stops the command.
  std::vector<std::pair<NamedObject, json>> found;
  for (const auto& object : targets->objects) {
    auto live = read_object(api, object);
    if (!live) return report(live.error());
    found.emplace_back(object, std::move(*live));
  }
  const WriteOutput& printer = options.write;
  std::vector<std::string> errors;
  for (const auto& [object, live] : found) {
    const std::string resource = qualified_resource(object.info);
    auto patch = edit.patch(object.info.kind, live);
    if (!patch) {
      errors.push_back("error: " + resource + " " + util::go_quote(object.name) + " " + patch.error().message);
      continue;
    }
    if (patch->is_null()) {
      errors.push_back("failed to create patch for " + object.name +
                       ": if restart has already been triggered within the past second, please wait before "
                       "attempting to trigger another");
      continue;
    }
    const WriteQuery query{.field_manager = options.field_manager, .field_validation = {}};
    auto patched = call_json(api, "PATCH", query.apply_to(object_path(object.info, object.namespace_name, object.name)),
                             "application/strategic-merge-patch+json", patch->dump());
    if (!patched) {
      errors.push_back(patched.error().message);
      continue;
    }
    const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
    if (!printer.print(*patched, kind_name, kind_name + " " + edit.done, false)) return k_exit_usage;
  }
  if (errors.empty()) return k_exit_ok;
  std::cout.flush();
  // One error is printed as kubectl prints any ("error: " first); several line by line as given.
  if (errors.size() == 1 && !errors[0].starts_with("error: ") && !errors[0].starts_with("Error from server"))
    errors[0] = "error: " + errors[0];
  for (const auto& error : errors) std::cerr << error << "\n";
  return k_exit_usage;
}

void add_rollout_edit(CLI::App& rollout, const char* name, const char* description, RolloutEdit edit,
                      int* exit_code) {
  auto options = std::make_shared<RolloutEditOptions>();
  CLI::App* command = rollout.add_subcommand(name, description);
  command->footer(std::string(k_client_exit_codes));
  add_rollout_target_flags(*command, options->targets);
  add_object_output_flags(*command, options->write);
  command->add_option("--field-manager", options->field_manager, "The manager the server records the change under")
      ->default_str("kubectl-rollout");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code, edit = std::move(edit)] { *exit_code = run_rollout_edit(*options, edit); });
}

}  // namespace

void add_rollout_command(CLI::App& app, int* exit_code) {
  CLI::App* rollout =
      app.add_subcommand("rollout", "Follow, pause, resume, restart or undo the rollout of deployments, statefulsets and "
                                    "daemonsets, and list their revisions");
  rollout->require_subcommand(1);
  auto options = std::make_shared<RolloutStatusOptions>();
  CLI::App* status = rollout->add_subcommand(
      "status", "Print the progress of a rollout until it completes (kubectl rollout status)");
  status->footer(
      "The object is watched, and the watch resumes after a disconnect. Exit status: 0 the rollout completed (or "
      "--watch=false printed its state), 1 a timeout, a failed rollout, or an error (usage, resource type, the "
      "server's answer, a server that cannot be reached).");
  add_rollout_target_flags(*status, options->targets);
  status->add_option("-w,--watch", options->watch, "Follow the rollout until it completes (false: print its state once)")
      ->default_str("true");
  status->add_option("--timeout", options->timeout, "How long to follow it (Go duration; 0: no limit)")
      ->default_str("0s");
  status->add_option("--revision", options->revision,
                     "Wait for this revision of a deployment; another one running is an error (0: any)")
      ->default_str("0");
  add_connection_flags(*status, options->connection);
  status->callback([options, exit_code] { *exit_code = run_rollout_status(*options); });
  add_rollout_edit(*rollout, "pause", "Pause deployments: changes to their pod template start no rollout (kubectl rollout pause)",
                   pause_edit(), exit_code);
  add_rollout_edit(*rollout, "restart",
                   "Restart the pods of deployments, daemonsets and statefulsets with a new rollout (kubectl rollout "
                   "restart)",
                   restart_edit(), exit_code);
  add_rollout_edit(*rollout, "resume", "Resume paused deployments (kubectl rollout resume)", resume_edit(), exit_code);
  add_rollout_history_commands(*rollout, exit_code);
}

}  // namespace kw::cli
