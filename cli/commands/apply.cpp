// kw create -f / kw apply -f: objects from manifests, created or brought in line with the
// manifest by client-side apply (three-way patch against the last-applied annotation) or by
// server-side apply (--server-side: the server merges and tracks who owns each field).
// kw diff -f: the same writes as server dry runs, the live and the resulting objects shown
// side by side by diff(1).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <utility>

#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"
#include "cli/client/manifest.hpp"
#include "cli/client/merge.hpp"
#include "cli/client/openapi_schemas.hpp"
#include "core/api/selector.hpp"
#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct ManifestOptions {
  ConnectionFlags connection;
  std::vector<std::string> filenames;
  bool recursive = false;
  bool save_config = false;  // create only
  bool server_side = false;  // apply only
  bool force_conflicts = false;
  std::string field_manager;  // "" = kubectl's default for the verb
  ValidateFlag validate;
  WriteOutput write;
};

// The manager the server records for the write, as kubectl names its own.
std::string manager_of(const ManifestOptions& options, bool apply) {
  if (!options.field_manager.empty()) return options.field_manager;
  if (!apply) return "kubectl-create";
  return options.server_side ? "kubectl" : "kubectl-client-side-apply";
}

// What a verb did to one object: the object to print with -o, and the outcome line.
struct Outcome {
  json object;
  std::string kind_name;  // "pod/web"
  std::string line;       // "pod/web created"
};

// One object ready to send: its resource, namespace and name.
struct Target {
  api::ResourceInfo info;
  std::string namespace_name;
  std::string name;
  json object;
  std::string source;  // the manifest's file
};

VerbResult<Target> target_of(Resolver& resolver, const kubeconfig::RestConfig& config, const Manifest& manifest) {
  Target target;
  target.object = manifest.object;
  target.source = manifest.source;
  auto info = resolver.resolve_manifest(target.object, manifest.source);
  if (!info) return std::unexpected(info.error());
  target.info = std::move(*info);
  json& metadata = target.object["metadata"];
  target.name = metadata.value("name", "");
  if (target.info.namespaced) {
    const std::string own = metadata.value("namespace", "");
    if (!own.empty() && config.namespace_from_flag && own != config.namespace_name)
      return std::unexpected(usage_error("the namespace from the provided object \"" + own +
                                         "\" does not match the namespace \"" + config.namespace_name +
                                         "\". You must pass '--namespace=" + own + "' to perform this operation."));
    target.namespace_name = own.empty() ? config.namespace_name : own;
    metadata["namespace"] = target.namespace_name;
  }
  return target;
}

// kubectl's AddSourceToErr: a server's error names the step and the file ("Error from server
// (BadRequest): error when creating "pod.yaml": ...").
VerbError in_file(VerbError error, const std::string& action, const std::string& source) {
  const std::string prefix = "Error from server";
  if (error.message.starts_with(prefix)) {
    const auto colon = error.message.find(": ");
    if (colon != std::string::npos)
      error.message.insert(colon + 2, "error when " + action + " \"" + source + "\": ");
  }
  return error;
}

// kubectl's Info.String(): the resource, kind, name and namespace of a target.
std::string target_text(const Target& target) {
  const std::string group_version = target.info.group + "/" + target.info.version;
  return "Resource: \"" + group_version + ", Resource=" + target.info.plural + "\", GroupVersionKind: \"" +
         group_version + ", Kind=" + target.info.kind + "\"\nName: " + util::go_quote(target.name) +
         ", Namespace: " + util::go_quote(target.namespace_name);
}

VerbResult<Outcome> create_one(ApiClient& api, const Target& target, const WriteOutput& write,
                               const WriteQuery& query) {
  json created = target.object;
  if (!write.client_dry_run()) {
    auto answer = call_json(api, "POST",
                            query.apply_to(write.with_dry_run(object_path(target.info, target.namespace_name, ""))),
                            std::string(k_json), target.object.dump());
    if (!answer) return std::unexpected(in_file(answer.error(), "creating", target.source));
    created = std::move(*answer);
  }
  std::string name = target.name;
  if (created.contains("metadata") && created["metadata"].is_object()) name = created["metadata"].value("name", name);
  const std::string kind_name = kind_prefix(target.info) + "/" + name;
  return Outcome{std::move(created), kind_name, kind_name + " created"};
}

VerbResult<Outcome> apply_one(ApiClient& api, Resolver& resolver, Target& target, const WriteOutput& write,
                              const WriteQuery& query) {
  const json modified = with_last_applied(target.object);
  const std::string path = object_path(target.info, target.namespace_name, target.name);
  auto live = call_json(api, "GET", path, {}, {});
  if (!live && live.error().http_status == 404) {
    target.object = modified;
    return create_one(api, target, write, query);
  }
  if (!live)
    return std::unexpected(in_file(
        live.error(), "retrieving current configuration of:\n" + target_text(target) + "\nfrom server for:",
        target.source));
  const json original = last_applied_of(*live);
  if (original.is_null())
    std::cerr << "Warning: resource " << target.info.plural << "/" << target.name
              << " is missing the " << k_last_applied_annotation
              << " annotation which is required by kw apply. kw apply should only be used on resources created "
                 "declaratively by either kw create --save-config or kw apply. The missing annotation will be "
                 "patched automatically.\n";
  const PatchStrategy strategy = resolver.is_builtin(target.info) ? PatchStrategy::strategic : PatchStrategy::merge;
  const json patch = three_way_patch(original, modified, *live, strategy);
  const std::string prefix = kind_prefix(target.info) + "/" + target.name;
  if (patch.empty()) return Outcome{std::move(*live), prefix, prefix + " unchanged"};
  // A client dry run sends nothing: it shows the manifest as it would be applied.
  if (write.client_dry_run()) return Outcome{modified, prefix, prefix + " configured"};
  const std::string content_type = strategy == PatchStrategy::strategic ? "application/strategic-merge-patch+json"
                                                                        : "application/merge-patch+json";
  auto patched = call_json(api, "PATCH", query.apply_to(write.with_dry_run(path)), content_type, patch.dump());
  if (!patched) {
    std::string text = go_json(patch);
    text.pop_back();
    return std::unexpected(in_file(in_file(patched.error(), "patching", target.source),
                                   "applying patch:\n" + text + "\nto:\n" + target_text(target) + "\nfor:",
                                   target.source));
  }
  return Outcome{std::move(*patched), prefix, prefix + " configured"};
}

// Server-side apply: the manifest itself is the patch; the server merges it and answers with
// the object (created when missing). Conflicts come back as 409 unless forced.
VerbResult<Outcome> server_side_apply_one(ApiClient& api, const Target& target, const WriteOutput& write,
                                          const WriteQuery& query, bool force) {
  std::string path = query.apply_to(write.with_dry_run(object_path(target.info, target.namespace_name, target.name)));
  if (force) path = with_query(std::move(path), "force", "true");
  auto applied = call_json(api, "PATCH", path, "application/apply-patch+yaml", target.object.dump());
  if (!applied) {
    VerbError error = applied.error();
    if (error.http_status == 409 && error.message.find("Apply failed with") != std::string::npos)
      error.message +=
          "\nThese fields have other managers. Take them over with --force-conflicts, leave them out of the "
          "manifest, or set them to their current values to share them.";
    return std::unexpected(std::move(error));
  }
  const std::string prefix = kind_prefix(target.info) + "/" + target.name;
  return Outcome{std::move(*applied), prefix, prefix + " serverside-applied"};
}

// kubectl's client-side validation of the List documents of the manifests, which the server's
// fieldValidation does not see: their items' unknown fields refuse the whole run.
Result<void> check_list_items(ApiClient& api, const std::vector<Manifest>& manifests) {
  for (auto start = manifests.begin(); start != manifests.end();) {
    const auto end = std::find_if(start, manifests.end(), [&](const Manifest& m) { return m.source != start->source; });
    std::vector<json> items;
    for (auto it = start; it != end; ++it)
      if (it->in_list) items.push_back(it->object);
    if (const std::string problem = items.empty() ? std::string() : unknown_fields_problem(api, items); !problem.empty())
      return fail("error validating " + util::go_quote(start->source) + ": error validating data: " + problem +
                  "; if you choose to ignore these errors, turn validation off with --validate=false");
    start = end;
  }
  return {};
}

int run_manifests(ManifestOptions& options, bool apply) {
  const std::string verb = apply ? "apply" : "create";
  auto validation = options.validate.field_validation();
  if (!validation) return report_usage(validation.error().message);
  auto manifests = load_manifests(options.filenames, options.recursive, std::cin, !apply);
  if (!manifests) return report_usage(manifests.error().message);
  if (manifests->empty()) return report_usage("no objects passed to " + verb);
  if (apply && options.server_side && options.write.client_dry_run())
    return report_usage("--dry-run=client does not work with --server-side: use --dry-run=server");
  if (options.force_conflicts && !options.server_side)
    return report_usage("--force-conflicts only works with --server-side");
  const WriteQuery query{manager_of(options, apply), std::move(*validation)};
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  if (query.field_validation == "Strict")
    if (auto refused = check_list_items(**api, *manifests); !refused) return report_usage(refused.error().message);
  Resolver resolver(**api);
  // As kubectl does, the objects that fail are reported after all the others were written.
  std::vector<VerbError> failures;
  bool unprinted = false;  // a template that could not be run on an object
  for (const auto& manifest : *manifests) {
    auto target = target_of(resolver, (*api)->config(), manifest);
    if (!target) {
      failures.push_back(target.error());
      continue;
    }
    if (!apply && options.save_config) target->object = with_last_applied(target->object);
    auto done = !apply                ? create_one(**api, *target, options.write, query)
                : options.server_side ? server_side_apply_one(**api, *target, options.write, query,
                                                              options.force_conflicts)
                                      : apply_one(**api, resolver, *target, options.write, query);
    if (!done) {
      failures.push_back(done.error());
      continue;
    }
    if (!options.write.print(done->object, done->kind_name, done->line)) unprinted = true;
  }
  std::cout.flush();
  int code = unprinted ? k_exit_usage : k_exit_ok;
  for (const auto& failure : failures) code = report(failure);
  return code;
}

CLI::App* manifest_command(CLI::App& app, const std::string& name, const std::string& description,
                           std::shared_ptr<ManifestOptions> options) {
  CLI::App* command = app.add_subcommand(name, description);
  command->footer(std::string(k_client_exit_codes));
  add_manifest_flags(*command, options->filenames, options->recursive,
                     "Files, directories or - (stdin) holding the manifests (YAML or JSON)")
      ->required();
  command->add_option("--field-manager", options->field_manager,
                      "Who the server records as the writer of the fields (default: kubectl's name for the verb)");
  add_validate_flag(*command, options->validate);
  add_write_output_flags(*command, options->write);
  add_connection_flags(*command, options->connection);
  return command;
}


// ---- kw diff ----

// kubectl diff exits 1 when it finds differences, so its errors exit 2.
constexpr int k_exit_diff_error = 2;

struct DiffOptions {
  ConnectionFlags connection;
  std::vector<std::string> filenames;
  bool recursive = false;
  bool server_side = false;
  bool force_conflicts = false;
  bool show_managed_fields = false;
  std::string field_manager;  // "" = kubectl's default
  std::string selector;
};

// A temporary directory ($TMPDIR/PREFIX-XXXXXX), removed with everything in it.
class TempDir {
 public:
  static Result<TempDir> create(const std::string& prefix) {
    std::string pattern = temp_root() + "/" + prefix + "XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return fail("cannot create a directory like " + pattern);
    return TempDir(std::move(pattern));
  }
  TempDir(TempDir&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!m_path.empty()) std::filesystem::remove_all(m_path, ignored);
  }
  const std::string& path() const { return m_path; }

 private:
  explicit TempDir(std::string path) : m_path(std::move(path)) {}
  std::string m_path;
};

// kubectl diff's file for an object: [GROUP.]VERSION.KIND.NAMESPACE.NAME.
std::string diff_file_name(const Target& target) {
  return (target.info.group.empty() ? "" : target.info.group + ".") + target.info.version + "." + target.info.kind +
         "." + target.namespace_name + "." + target.name;
}

// The object client-side apply would leave, as a server dry run answers it: created when it is
// missing, else patched by the three-way patch (the manifest without a new last-applied
// annotation, as kubectl diff computes it), on the live resourceVersion unless `force`.
VerbResult<json> client_side_result(ApiClient& api, Resolver& resolver, const Target& target, const json& live,
                                    const WriteQuery& query, bool force) {
  if (live.is_null())
    return call_json(api, "POST",
                     query.apply_to(object_path(target.info, target.namespace_name, "") + "?dryRun=All"),
                     std::string(k_json), target.object.dump());
  json modified = target.object;
  json& annotations = modified["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  annotations.erase(std::string(k_last_applied_annotation));
  const PatchStrategy strategy = resolver.is_builtin(target.info) ? PatchStrategy::strategic : PatchStrategy::merge;
  json patch = three_way_patch(last_applied_of(live), modified, live, strategy);
  if (patch.empty()) return live;
  if (!force) patch["metadata"]["resourceVersion"] = live["metadata"].value("resourceVersion", "");
  const std::string content_type = strategy == PatchStrategy::strategic ? "application/strategic-merge-patch+json"
                                                                        : "application/merge-patch+json";
  return call_json(api, "PATCH",
                   query.apply_to(object_path(target.info, target.namespace_name, target.name) + "?dryRun=All"),
                   content_type, patch.dump());
}

// A Secret's data values hidden as kubectl diff hides them: "***", or "*** (before)" and
// "*** (after)" for a key whose value changes.
void mask_secret_data(json& from, json& to) {
  auto data_of = [](json& object) -> json* {
    if (!object.is_object() || !object.contains("data") || !object["data"].is_object()) return nullptr;
    return &object["data"];
  };
  json* before = data_of(from);
  json* after = data_of(to);
  if (before != nullptr)
    for (auto& [key, value] : before->items()) {
      if (after != nullptr && after->contains(key)) {
        if ((*after)[key] != value) {
          value = "*** (before)";
          (*after)[key] = "*** (after)";
          continue;
        }
        (*after)[key] = "***";
      }
      value = "***";
    }
  if (after != nullptr)
    for (auto& [key, value] : after->items())
      if (before == nullptr || !before->contains(key)) value = "***";
}

// Writes `object` as YAML to DIR/NAME: an empty file for no object, but "null" for a missing
// Secret (kubectl's masking turns it into an empty object, written as null).
Result<void> write_version(const std::string& dir, const std::string& name, json object, bool show_managed_fields,
                           bool masked) {
  if (!show_managed_fields && object.is_object() && object.contains("metadata") && object["metadata"].is_object())
    object["metadata"].erase("managedFields");
  std::ofstream out(dir + "/" + name, std::ios::binary);
  if (!object.is_null() || masked) out << codec::json_to_yaml(object);
  out.close();
  if (!out) return fail("cannot write " + dir + "/" + name);
  return {};
}

// diff -u -N FROM TO, or $KUBECTL_EXTERNAL_DIFF: its first word is the program and its other
// words, kept only when made of letters, digits, '-' and '=', come after the directories, as
// kubectl runs it. Returns the program's exit status.
int run_diff_program(const std::string& from, const std::string& to) {
  std::vector<std::string> args;
  const char* external = std::getenv("KUBECTL_EXTERNAL_DIFF");
  if (external != nullptr && *external != '\0') {
    std::vector<std::string> words(1);
    for (const char* c = external; *c != '\0'; ++c) {
      if (*c == ' ') words.emplace_back();
      else words.back() += *c;
    }
    args = {words[0], from, to};
    for (std::size_t i = 1; i < words.size(); ++i)
      if (!words[i].empty() && std::ranges::all_of(words[i], [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '=';
          }))
        args.push_back(words[i]);
  } else {
    args = {"diff", "-u", "-N", from, to};
  }
  const std::string program = args[0];
  auto status = run_program(std::move(args));
  if (!status) {
    std::cerr << "error: failed to run \"" << program << "\": executable file not found in $PATH\n";
    return k_exit_diff_error;
  }
  return *status > 128 ? k_exit_diff_error : *status;
}

int run_diff(DiffOptions& options) {
  auto usage = [](const std::string& message) {
    report_usage(message);
    return k_exit_diff_error;
  };
  auto failed = [](const VerbError& error) {
    report(error);
    return k_exit_diff_error;
  };
  auto manifests = load_manifests(options.filenames, options.recursive, std::cin, false);
  if (!manifests) return usage(manifests.error().message);
  if (manifests->empty()) return usage("no objects passed to diff");
  if (options.force_conflicts && !options.server_side)
    return usage("--force-conflicts only works with --server-side");
  auto selector = api::LabelSelector::parse(options.selector);
  if (!selector) return usage(selector.error().message);
  WriteQuery query{options.field_manager, {}};
  if (query.field_manager.empty()) query.field_manager = options.server_side ? "kubectl" : "kubectl-client-side-apply";
  auto api = ApiClient::create(options.connection);
  if (!api) return usage(api.error().message);
  Resolver resolver(**api);
  auto live_dir = TempDir::create("LIVE-");
  if (!live_dir) return usage(live_dir.error().message);
  auto merged_dir = TempDir::create("MERGED-");
  if (!merged_dir) return usage(merged_dir.error().message);
  for (const auto& manifest : *manifests) {
    if (!selector->matches(api::labels_of(manifest.object))) continue;
    auto target = target_of(resolver, (*api)->config(), manifest);
    if (!target) return failed(target.error());
    const std::string path = object_path(target->info, target->namespace_name, target->name);
    // A write that meets a newer resourceVersion is tried again on the new object, the last time
    // without the precondition, as kubectl does.
    constexpr int k_attempts = 4;
    json live;
    VerbResult<json> merged = json();
    for (int attempt = 1; attempt <= k_attempts; ++attempt) {
      auto got = call_json(**api, "GET", path, {}, {});
      if (!got && got.error().http_status != 404) return failed(got.error());
      live = got ? std::move(*got) : json();
      if (options.server_side) {
        WriteOutput dry_run{.dry_run = "server"};
        auto applied = server_side_apply_one(**api, *target, dry_run, query, options.force_conflicts);
        merged = applied ? VerbResult<json>(std::move(applied->object)) : std::unexpected(applied.error());
      } else {
        merged = client_side_result(**api, resolver, *target, live, query, attempt == k_attempts);
      }
      if (merged || merged.error().http_status != 409 || options.server_side) break;
    }
    if (!merged) return failed(in_file(merged.error(), "diffing", manifest.source));
    json to = std::move(*merged);
    const bool secret = target->info.group.empty() && target->info.version == "v1" && target->info.kind == "Secret";
    if (secret) mask_secret_data(live, to);
    const std::string name = diff_file_name(*target);
    for (auto& [dir, object] : {std::pair{&*live_dir, &live}, std::pair{&*merged_dir, &to}})
      if (auto written = write_version(dir->path(), name, std::move(*object), options.show_managed_fields, secret);
          !written)
        return usage(written.error().message);
  }
  return run_diff_program(live_dir->path(), merged_dir->path());
}

}  // namespace

void add_create_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ManifestOptions>();
  CLI::App* command = manifest_command(
      app, "create", "Create objects from files or stdin (kubectl create -f), or a ServiceAccount token", options);
  command->add_flag("--save-config", options->save_config,
                    "Store the manifest in the last-applied-configuration annotation, so kw apply can follow");
  // `create token NAME` takes no -f; plain `create` needs one.
  command->get_option("--filename")->required(false);
  add_create_token_command(*command, exit_code);
  add_create_rbac_commands(*command, exit_code);
  add_create_generated_commands(*command, exit_code);
  command->callback([command, options, exit_code] {
    if (!command->get_subcommands().empty()) return;
    if (options->filenames.empty()) {
      *exit_code = report_usage("must specify one of -f and -k");
      return;
    }
    *exit_code = run_manifests(*options, false);
  });
}

void add_apply_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ManifestOptions>();
  CLI::App* command = manifest_command(
      app, "apply", "Create or update objects to match files or stdin (kubectl apply -f)", options);
  command->add_flag("--server-side", options->server_side,
                    "Let the server merge the manifest and track which fields each manager owns");
  command->add_flag("--force-conflicts", options->force_conflicts,
                    "With --server-side: take over fields other managers own instead of failing");
  command->callback([options, exit_code] { *exit_code = run_manifests(*options, true); });
}

void add_diff_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* command = app.add_subcommand("diff", "Show what apply -f would change (kubectl diff)");
  command->footer(
      "The live object and the one apply would leave (as the server answers a dry run) are written as YAML to "
      "two temporary directories, LIVE-* and MERGED-*, and compared by `diff -u -N`, or by the program "
      "KUBECTL_EXTERNAL_DIFF names. managedFields are left out and a Secret's data values are masked. Exit "
      "status: 0 no differences, 1 differences found (the program's own status otherwise), or an error.");
  add_manifest_flags(*command, options->filenames, options->recursive,
                     "Files, directories or - (stdin) holding the manifests (YAML or JSON)")
      ->required();
  command->add_option("-l,--selector", options->selector, "Only the manifests' objects whose labels match this selector");
  command->add_flag("--server-side", options->server_side,
                    "Compare with what server-side apply would leave instead of client-side apply");
  command->add_flag("--force-conflicts", options->force_conflicts,
                    "With --server-side: show the result of taking over fields other managers own");
  command->add_option("--field-manager", options->field_manager,
                      "Who the server would record as the writer of the fields (default: kubectl's name)");
  command->add_flag("--show-managed-fields", options->show_managed_fields, "Keep metadata.managedFields in the objects");
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_diff(*options); });
}

}  // namespace kw::cli
