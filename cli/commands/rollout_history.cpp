// kw rollout history | undo: the revisions of a Deployment (its ReplicaSets) or of a DaemonSet or
// StatefulSet (its ControllerRevisions), and the rollback to one of them, as kubectl's history
// viewers and rollbackers read and write them.
#include "cli/commands/rollout_history.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <memory>

#include "cli/client/discovery.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/targets.hpp"
#include "cli/print/describe.hpp"
#include "cli/print/printers.hpp"
#include "core/api/json_access.hpp"
#include "core/api/selector.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;
using api::at;
using api::str;

constexpr const char* k_change_cause = "kubernetes.io/change-cause";
constexpr const char* k_revision = "deployment.kubernetes.io/revision";

// One revision of an object: its number, the pod template it ran, and where that came from.
struct Revision {
  std::int64_t number = 0;
  json pod_template;
  json source;  // the ReplicaSet or ControllerRevision
};

bool controlled_by(const json& object, const json& owner) {
  const std::string uid = str(at(owner, {"metadata", "uid"}));
  return std::ranges::any_of(api::arr(at(object, {"metadata", "ownerReferences"})), [&](const json& reference) {
    return at(reference, {"controller"}) == true && str(at(reference, {"uid"})) == uid;
  });
}

std::optional<std::int64_t> parse_revision(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// The objects of the apps/v1 resource `plural` in the owner's namespace that its selector
// matches and that it controls, with the apiVersion and kind of their row (a list's items carry
// neither).
VerbResult<std::vector<json>> owned(ApiClient& api, const NamedObject& object, const json& owner, const char* plural) {
  const auto* kind = kinds::builtin_table().find_plural("apps", "v1", plural);
  if (kind == nullptr) return std::unexpected(usage_error(std::string("no built-in resource apps/v1 ") + plural));
  auto selector = api::LabelSelector::from_label_selector_json(at(owner, {"spec", "selector"}));
  if (!selector)
    return std::unexpected(usage_error("failed to create selector for " + object.info.kind + " " + object.name + ": " +
                                       selector.error().message));
  std::string path = object_path(*kind, object.namespace_name, "");
  if (!selector->empty()) path += "?labelSelector=" + url_escape(selector->to_string());
  auto listing = call_json(api, "GET", path, {}, {});
  if (!listing) return std::unexpected(listing.error());
  std::vector<json> out;
  for (auto& item : (*listing)["items"]) {
    if (!controlled_by(item, owner)) continue;
    item["apiVersion"] = kind->api_version();
    item["kind"] = kind->kind;
    out.push_back(std::move(item));
  }
  return out;
}

// Every revision of the object, oldest first; an error for kinds that keep none.
VerbResult<std::vector<Revision>> revisions_of(ApiClient& api, const NamedObject& object, const json& live,
                                               const std::string& unsupported) {
  std::vector<Revision> out;
  if (object.info.group != "apps" ||
      (object.info.kind != "Deployment" && object.info.kind != "DaemonSet" && object.info.kind != "StatefulSet"))
    return std::unexpected(usage_error(unsupported + " " + util::go_quote(object.info.kind + "." + object.info.group)));
  if (object.info.kind == "Deployment") {
    auto sets = owned(api, object, live, "replicasets");
    if (!sets) return std::unexpected(sets.error());
    for (auto& set : *sets) {
      const auto number = parse_revision(str(at(set, {"metadata", "annotations", k_revision})));
      if (!number) continue;
      json pod_template = at(set, {"spec", "template"});
      if (const std::string cause = str(at(set, {"metadata", "annotations", k_change_cause})); !cause.empty())
        pod_template["metadata"]["annotations"][k_change_cause] = cause;
      out.push_back(Revision{*number, std::move(pod_template), std::move(set)});
    }
  } else {
    auto history = owned(api, object, live, "controllerrevisions");
    if (!history) return std::unexpected(history.error());
    for (auto& revision : *history) {
      json pod_template = at(revision, {"data", "spec", "template"});
      if (pod_template.is_object()) pod_template.erase("$patch");
      out.push_back(Revision{api::num(at(revision, {"revision"})), std::move(pod_template), std::move(revision)});
    }
  }
  // One entry per number (the last listed wins, as in kubectl's map), oldest first.
  std::ranges::stable_sort(out, {}, &Revision::number);
  std::vector<Revision> unique;
  for (auto& revision : out) {
    if (!unique.empty() && unique.back().number == revision.number) unique.back() = std::move(revision);
    else unique.push_back(std::move(revision));
  }
  return unique;
}

struct HistoryOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  std::int64_t revision = 0;
  WriteOutput write;  // -o: the revisions' objects instead of the table
};

// A revision as kubectl's -o prints it: a Deployment's ReplicaSet, or the DaemonSet or
// StatefulSet as that revision would leave it (its ControllerRevision holds the patch that
// restores the pod template).
json revision_object(const NamedObject& object, const json& live, const Revision& revision) {
  if (object.info.kind == "Deployment") return revision.source;
  json applied = live;
  applied["spec"]["template"] = revision.pod_template;
  return applied;
}

// kubectl's -o for history: the revision asked for, or every one, oldest first. One printer
// prints them all, so YAML documents after the first (`printed` counts them, over every
// object) start with "---". The exit status: a template that cannot run, or a revision that is
// not there, is a usage error.
int print_revisions(const NamedObject& object, const json& live, const std::vector<Revision>& revisions,
                    const HistoryOptions& options, int& printed) {
  const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
  for (const auto& revision : revisions) {
    if (options.revision > 0 && revision.number != options.revision) continue;
    if (options.write.output == "yaml" && printed++ > 0) std::cout << "---\n";
    if (!options.write.print_typed(revision_object(object, live, revision), kind_name, kind_name)) return k_exit_usage;
    if (options.revision > 0) return k_exit_ok;
  }
  if (options.revision > 0) return report_usage("unable to find the specified revision");
  return k_exit_ok;
}

// The history text kubectl prints after "KIND/NAME ": the table of revisions, or one
// revision's pod template.
VerbResult<std::string> history_text(const std::vector<Revision>& revisions, std::int64_t wanted) {
  if (revisions.empty()) return std::string("No rollout history found.");
  if (wanted > 0) {
    const auto found = std::ranges::find(revisions, wanted, &Revision::number);
    if (found == revisions.end()) return std::unexpected(usage_error("unable to find the specified revision"));
    return describe_pod_template(found->pod_template);
  }
  std::vector<std::vector<std::string>> rows = {{"REVISION", "CHANGE-CAUSE"}};
  for (const auto& revision : revisions) {
    const std::string cause = str(at(revision.pod_template, {"metadata", "annotations", k_change_cause}));
    rows.push_back({std::to_string(revision.number), cause.empty() ? "<none>" : cause});
  }
  return tabulate(rows, 0, 2);
}

int run_history(const HistoryOptions& options) {
  if (options.revision < 0)
    return report_usage("revision must be a positive integer: " + std::to_string(options.revision));
  auto found = rollout_objects(options.connection, options.targets);
  if (!found) return report(found.error());
  ApiClient& api = *found->api;
  int printed = 0;
  for (const auto& object : found->objects) {
    auto live = read_object(api, object);
    if (!live) return report(live.error());
    auto revisions = revisions_of(api, object, *live, "no history viewer has been implemented for");
    if (!revisions) return report(revisions.error());
    if (!options.write.output.empty() || !options.write.template_text.empty()) {
      if (const int code = print_revisions(object, *live, *revisions, options, printed); code != k_exit_ok) return code;
      continue;
    }
    auto text = history_text(*revisions, options.revision);
    if (!text) return report(text.error());
    const std::string heading = options.revision > 0 ? "with revision #" + std::to_string(options.revision) : "";
    std::cout << kind_prefix(object.info) << "/" << object.name << " " << heading << "\n" << *text << "\n";
  }
  std::cout.flush();
  return k_exit_ok;
}

// ---- undo -------------------------------------------------------------------------------------

struct UndoOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  std::int64_t to_revision = 0;
  WriteOutput write;  // --dry-run and -o (which prints the object as it was read)
};

// What kubectl keeps of the Deployment's own annotations over a rollback (and never copies
// from the ReplicaSet).
bool kept_deployment_annotation(std::string_view key) {
  return key == "kubectl.kubernetes.io/last-applied-configuration" || key == k_revision ||
         key == "deployment.kubernetes.io/revision-history" || key == "deployment.kubernetes.io/desired-replicas" ||
         key == "deployment.kubernetes.io/max-replicas" || key == "deprecated.deployment.rollback.to";
}

json without_hash_label(json pod_template) {
  if (auto labels = pod_template.find("metadata"); labels != pod_template.end() && labels->is_object())
    if (auto found = labels->find("labels"); found != labels->end() && found->is_object())
      found->erase("pod-template-hash");
  return pod_template;
}

VerbError revision_not_found(std::int64_t revision) {
  return usage_error("unable to find specified revision " + std::to_string(revision) + " in history");
}

// The revision to go back to: the one asked for, or the newest before the newest.
VerbResult<const Revision*> chosen_revision(const std::vector<Revision>& revisions, std::int64_t to_revision,
                                            const std::string& kind, const std::string& name) {
  if (to_revision > 0) {
    const auto found = std::ranges::find(revisions, to_revision, &Revision::number);
    if (found == revisions.end())
      return std::unexpected(revision_not_found(to_revision));
    return &*found;
  }
  if (revisions.size() < 2) {
    if (kind == "Deployment")
      return std::unexpected(usage_error("no rollout history found for deployment " + util::go_quote(name)));
    return std::unexpected(usage_error("no last revision to roll back to"));
  }
  return &revisions[revisions.size() - 2];
}

// The outcome after "KIND/NAME ", or an error; sends the patch unless told not to.
VerbResult<std::string> roll_back(ApiClient& api, const NamedObject& object, const json& live,
                                  const UndoOptions& options) {
  if (options.to_revision < 0)
    return std::unexpected(revision_not_found(options.to_revision));
  auto revisions = revisions_of(api, object, live, "no rollbacker has been implemented for");
  if (!revisions) return std::unexpected(revisions.error());
  auto chosen = chosen_revision(*revisions, options.to_revision, object.info.kind, object.name);
  if (!chosen) return std::unexpected(chosen.error());
  const Revision& revision = **chosen;
  const std::string number = std::to_string(options.to_revision);
  // kubectl's outcome for a client dry run: the pod template it would restore.
  if (options.write.client_dry_run()) return describe_pod_template(revision.pod_template);
  std::string content_type;
  json patch;
  if (object.info.kind == "Deployment") {
    if (at(live, {"spec", "paused"}) == true)
      return std::unexpected(usage_error("you cannot rollback a paused deployment; resume it first with 'kubectl "
                                         "rollout resume deployment/" + object.name + "' and try again"));
    json restored = without_hash_label(at(revision.source, {"spec", "template"}));
    if (restored == without_hash_label(at(live, {"spec", "template"})))
      return "skipped rollback (current template already matches revision " + number + ")";
    json annotations = json::object();
    for (const auto& [key, value] : at(live, {"metadata", "annotations"}).items())
      if (kept_deployment_annotation(key)) annotations[key] = value;
    for (const auto& [key, value] : at(revision.source, {"metadata", "annotations"}).items())
      if (!kept_deployment_annotation(key)) annotations[key] = value;
    content_type = "application/json-patch+json";
    patch = json::array({{{"op", "replace"}, {"path", "/spec/template"}, {"value", std::move(restored)}},
                         {{"op", "replace"}, {"path", "/metadata/annotations"}, {"value", std::move(annotations)}}});
  } else {
    // The ControllerRevision's data is the strategic merge patch that restores it.
    patch = at(revision.source, {"data"});
    json current = {{"spec", {{"template", at(live, {"spec", "template"})}}}};
    current["spec"]["template"]["$patch"] = "replace";
    if (current == patch) return "skipped rollback (current template already matches revision " + number + ")";
    content_type = "application/strategic-merge-patch+json";
  }
  const std::string path = options.write.with_dry_run(object_path(object.info, object.namespace_name, object.name));
  auto sent = api.send("PATCH", path, std::string(k_json), content_type, patch.dump());
  if (!sent) return std::unexpected(VerbError{0, "error: " + sent.error().message, k_exit_unreachable});
  if (sent->head.status < 200 || sent->head.status >= 300)
    return std::unexpected(VerbError{sent->head.status,
                                     "error: failed restoring revision " + number + ": " + error_message(*sent),
                                     k_exit_server});
  return std::string("rolled back");
}

int run_undo(const UndoOptions& options) {
  auto found = rollout_objects(options.connection, options.targets);
  if (!found) return report(found.error());
  ApiClient& api = *found->api;
  int code = k_exit_ok;
  for (const auto& object : found->objects) {
    auto live = read_object(api, object);
    if (!live) {
      code = report(live.error());
      continue;
    }
    auto outcome = roll_back(api, object, *live, options);
    if (!outcome) {
      code = report(outcome.error());
      continue;
    }
    // kubectl prints the object as it read it, before the rollback, with the outcome as the line.
    const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
    if (!options.write.print_typed(*live, kind_name, kind_name + " " + *outcome)) code = k_exit_usage;
  }
  std::cout.flush();
  return code;
}

}  // namespace

void add_rollout_history_commands(CLI::App& rollout, int* exit_code) {
  auto history = std::make_shared<HistoryOptions>();
  CLI::App* command = rollout.add_subcommand(
      "history",
      "List the revisions of deployments, daemonsets and statefulsets, or show one (kubectl rollout history)");
  command->footer(std::string(k_client_exit_codes));
  add_rollout_target_flags(*command, history->targets);
  command->add_option("--revision", history->revision, "Show the pod template of this revision");
  add_object_output_flags(*command, history->write);
  add_connection_flags(*command, history->connection);
  command->callback([history, exit_code] { *exit_code = run_history(*history); });

  auto undo = std::make_shared<UndoOptions>();
  command = rollout.add_subcommand(
      "undo", "Roll deployments, daemonsets and statefulsets back to an earlier revision (kubectl rollout undo)");
  command->footer(std::string(k_client_exit_codes));
  add_rollout_target_flags(*command, undo->targets);
  command->add_option("--to-revision", undo->to_revision, "The revision to go back to (0: the one before the current)");
  add_write_output_flags(*command, undo->write);
  add_connection_flags(*command, undo->connection);
  command->callback([undo, exit_code] { *exit_code = run_undo(*undo); });
}

}  // namespace kw::cli
