// kw wait: blocks until objects are deleted, reach a status condition, or show a JSONPath
// value, watching each object (cli/client/object_watch.hpp) rather than polling it.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <thread>

#include "cli/client/object_watch.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/commands/wait_condition.hpp"
#include "core/util/go_time.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

constexpr std::chrono::hours k_week{24 * 7};

struct WaitOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  std::string for_text;
  std::string timeout = "30s";
};

// kubectl's words when waiting for objects to be created runs out of time.
constexpr std::string_view k_wait_timeout = "timed out waiting for the condition";

// What waiting for one object came to: printed "met" line, or an error to report.
VerbResult<std::string> wait_one(ApiClient& api, const NamedObject& object, const WaitCondition& condition,
                                 std::chrono::nanoseconds timeout) {
  const bool for_delete = condition.kind == WaitCondition::Kind::Delete;
  const bool for_create = condition.kind == WaitCondition::Kind::Create;
  const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
  // kubectl 1.32 words a finished delete wait as "condition met" too.
  const std::string met_line = kind_name + " condition met";
  const std::string on = object.info.plural + "/" + object.name;
  auto live = call_json(api, "GET", object_path(object.info, object.namespace_name, object.name), {}, {});
  if (!live && !((for_delete || for_create) && live.error().http_status == 404)) return std::unexpected(live.error());
  if (!live && for_delete) return std::string();  // nothing to wait for: already gone
  const ObjectState initial = live ? ObjectState(std::move(*live)) : std::nullopt;
  std::optional<VerbError> judge_error;
  auto judge = [&](const ObjectState& state) {
    if (for_delete) return !state.has_value();
    if (!state) return false;
    auto met = condition_met(condition, *state);
    if (!met) judge_error = usage_error(met.error().message);
    return !met || *met;
  };
  // kubectl waits for every object to exist first, and says only that time ran out.
  const std::string timed_out = for_create ? std::string(k_wait_timeout) : std::string(k_wait_timeout) + " on " + on;
  if (timeout.count() == 0) {
    if (judge(initial) && !judge_error) return met_line;
    if (judge_error) return std::unexpected(*judge_error);
    if (for_create) return std::unexpected(usage_error(timed_out));
    return std::unexpected(usage_error("condition not met for " + on));
  }
  const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  const auto result = watch_object(api, object.info, object.namespace_name, object.name, limit, judge);
  if (judge_error) return std::unexpected(*judge_error);
  switch (result.end) {
    case WatchEnd::Satisfied: return met_line;
    case WatchEnd::TimedOut:
      return std::unexpected(usage_error(timed_out));
    case WatchEnd::Failed: break;
  }
  return std::unexpected(VerbError{0, "error: the watch of " + on + " failed", result.exit_code});
}

// --for=create with -l or --all when nothing matches yet: waits for the first object of the
// type to appear (kubectl polls its listing; kw watches it), then lists again.
VerbResult<std::vector<NamedObject>> wait_until_listed(ApiClient& api, Resolver& resolver, const TargetArgs& targets,
                                                       std::chrono::nanoseconds timeout) {
  auto parsed = parse_resource_args(targets.args);
  if (!parsed) return std::unexpected(usage_error(parsed.error().message));
  std::vector<api::ResourceInfo> infos;
  for (const auto& group : *parsed) {
    auto resolved = resolver.resolve_types(group.type);
    if (!resolved) return std::unexpected(resolved.error());
    infos.insert(infos.end(), resolved->begin(), resolved->end());
  }
  const auto exists = [](const ObjectState& state) { return state.has_value(); };
  // A category names several types: kubectl's half-second listing of all of them.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (infos.size() == 1 && left.count() > 0) {
      const auto& info = infos.front();
      const std::string namespace_name =
          targets.all_namespaces || !info.namespaced ? std::string() : api.config().namespace_name;
      const auto result = watch_selection(api, info, namespace_name, targets.selector, left, exists);
      if (result.end == WatchEnd::TimedOut) return std::unexpected(usage_error(std::string(k_wait_timeout)));
      if (result.end == WatchEnd::Failed)
        return std::unexpected(VerbError{0, "error: the watch of " + info.plural + " failed", result.exit_code});
    }
    auto objects = objects_of(api, resolver, targets);
    if (!objects || !objects->empty()) return objects;
    if (std::chrono::steady_clock::now() >= deadline) return std::unexpected(usage_error(std::string(k_wait_timeout)));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

Result<std::chrono::nanoseconds> parse_timeout(const std::string& text) {
  auto nanos = util::parse_go_duration(text);
  if (!nanos)
    return fail("invalid argument \"" + text + "\" for \"--timeout\" flag: " + nanos.error().message);
  if (*nanos < 0) return std::chrono::duration_cast<std::chrono::nanoseconds>(k_week);
  return std::chrono::nanoseconds(*nanos);
}

int run_wait(const WaitOptions& options) {
  auto timeout = parse_timeout(options.timeout);
  if (!timeout) return report_usage(timeout.error().message);
  auto condition = parse_wait_condition(options.for_text);
  if (!condition) return report_usage(condition.error().message);
  if (options.targets.args.empty() && options.targets.filenames.empty()) return report_usage(no_resources_message());
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto objects = objects_of(**api, resolver, options.targets);
  if (!objects) return report(objects.error());
  if (objects->empty() && condition->kind == WaitCondition::Kind::Create)
    objects = wait_until_listed(**api, resolver, options.targets, *timeout);
  if (!objects) return report(objects.error());
  if (objects->empty()) {
    if (condition->kind == WaitCondition::Kind::Delete) return k_exit_ok;
    return report_usage("no matching resources found");
  }
  // For create, kubectl says nothing until every object exists.
  const bool all_first = condition->kind == WaitCondition::Kind::Create;
  std::vector<std::string> lines;
  for (const auto& object : *objects) {
    auto line = wait_one(**api, object, *condition, *timeout);
    if (!line) return report(line.error());
    if (line->empty()) continue;
    if (all_first)
      lines.push_back(std::move(*line));
    else
      std::cout << *line << std::endl;
  }
  for (const auto& line : lines) std::cout << line << '\n';
  return k_exit_ok;
}

}  // namespace

void add_wait_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<WaitOptions>();
  CLI::App* command = app.add_subcommand(
      "wait",
      "Wait until objects are created or deleted, meet a status condition or show a JSONPath value (kubectl wait)");
  command->footer(
      "--for takes create, delete, condition=NAME[=VALUE] (VALUE true unless given, compared without case) or "
      "jsonpath=EXPR[=VALUE] (without VALUE: until EXPR finds anything). Each object is watched, and the watch "
      "resumes after a disconnect. Exit status: 0 every object met the condition, 1 a timeout, an unmet condition, "
      "or an error (usage, resource type, the server's answer, a server that cannot be reached).");
  command->add_option("args", options->targets.args, "TYPE NAME..., TYPE/NAME..., or TYPE with -l or --all");
  add_target_file_flags(*command, options->targets, "wait for");
  command->add_option("--for", options->for_text,
                      "What to wait for: create, delete, condition=NAME[=VALUE], jsonpath=EXPR[=VALUE]");
  command->add_option("--timeout", options->timeout,
                      "How long to wait for each object (Go duration: 30s, 5m, 1h; 0 checks once, negative is a week)")
      ->default_str("30s");
  command->add_option("-l,--selector", options->targets.selector, "Wait for every object matching this label selector");
  command->add_flag("--all", options->targets.all, "Wait for every object of the type in the namespace");
  command->add_flag("-A,--all-namespaces", options->targets.all_namespaces, "With -l or --all: look in every namespace");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_wait(*options); });
}

}  // namespace kw::cli
