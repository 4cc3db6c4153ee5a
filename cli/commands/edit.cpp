// kw edit: objects read from the server, written (YAML, or JSON with -o json) to a temporary
// file for an editor ($KUBE_EDITOR, else $EDITOR, else vi), and patched with what the editor
// changed, as kubectl edit does: a strategic merge patch for the built-in kinds, a JSON merge
// patch for the others. A save the server refuses as invalid, or one that does not parse,
// reopens the file with the reasons as comments; saving it unchanged gives up and keeps it.
#include <CLI/CLI.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/client/discovery.hpp"
#include "cli/client/manifest.hpp"
#include "cli/client/merge.hpp"
#include "cli/client/openapi_schemas.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/create_sources.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "core/api/json_access.hpp"
#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

constexpr std::string_view k_header =
    "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
    "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
    "# reopened with the relevant failures.\n"
    "#\n";

struct EditOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;
  std::vector<std::string> filenames;
  bool recursive = false;
  std::string output;  // "" or yaml: a YAML file, the outcome lines; json: a JSON file; json|yaml print the objects
  bool output_patch = false;
  std::string field_manager = "kubectl-edit";
  std::string subresource;
  bool show_managed_fields = false;
  bool save_config = false;
  bool windows_line_endings = false;
  ValidateFlag validate;
};

// One object being edited: where it lives, as read (without managedFields unless asked), and
// the managedFields taken out, put back before comparing.
struct EditTarget {
  NamedObject object;
  json original;
  json managed_fields;
};

// Why a save was not taken: a line and its details, written into the reopened file's header.
struct Reason {
  std::string head;
  std::vector<std::string> details;
};

// A failed step that ends the edit: the message, and the saved file to point at ("" none).
struct EditFailure {
  std::string message;
  std::string kept_file;
};

// kubectl's hashOnLineBreak: the lines of a multi-line text kept as comments.
std::string commented(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] != '#') out += "\n# ";
    else out += text[i];
  }
  return out;
}

std::string header_of(const std::vector<Reason>& reasons) {
  std::string out(k_header);
  for (const auto& reason : reasons) {
    out += "# " + commented(reason.head) + (reason.details.empty() ? "\n" : ":\n");
    for (const auto& detail : reason.details) out += "# * " + commented(detail) + "\n";
    out += "#\n";
  }
  return out;
}

// kubectl's ManualStrip: the text without its comment lines ("#!" is kept).
std::string without_comments(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const auto first = line.find_first_not_of(" \t\r");
    const bool comment = first != std::string_view::npos && line[first] == '#' && line.substr(first, 2) != "#!";
    if (!comment) {
      out += line;
      if (!last) out += '\n';
    }
    start = end + 1;
  }
  return out;
}

// What two saves are compared by (kubectl's StripComments): the documents as JSON, or the
// text without comments when it does not parse.
std::string compared_form(std::string_view text) {
  auto documents = codec::yaml_to_json(text);
  if (!documents) return without_comments(text);
  return json(*documents).dump();
}

// Whether a line holds something besides blanks and comments.
bool has_content(std::string_view text) {
  for (const auto& line : split_list(text, '\n')) {
    const auto first = line.find_first_not_of(" \t\r\v\f");
    if (first != std::string::npos && line[first] != '#') return true;
  }
  return false;
}

// The editor kubectl starts: $KUBE_EDITOR, else $EDITOR, else vi. A command with spaces is
// split on them, or handed to $SHELL -c (else bash) when it holds quotes or backslashes.
struct Editor {
  std::vector<std::string> args;
  bool shell = false;
};

Editor editor_from_environment() {
  std::string command;
  for (const char* name : {"KUBE_EDITOR", "EDITOR"})
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      command = value;
      break;
    }
  if (command.empty()) command = "vi";
  if (command.find(' ') == std::string::npos) return Editor{{command}, false};
  if (command.find_first_of("\"'\\") == std::string::npos) {
    Editor editor;
    std::size_t start = 0;
    for (auto space = command.find(' '); ; space = command.find(' ', start)) {
      editor.args.push_back(command.substr(start, space - start));
      if (space == std::string::npos) break;
      start = space + 1;
    }
    return editor;
  }
  const char* shell = std::getenv("SHELL");
  return Editor{{shell != nullptr && *shell != '\0' ? shell : "/bin/bash", "-c", command}, true};
}

Result<void> launch(const Editor& editor, const std::string& path) {
  std::vector<std::string> args = editor.args;
  if (editor.shell) args.back() += " " + util::go_quote(path);
  else args.push_back(path);
  std::string joined;
  for (const auto& arg : editor.args) joined += (joined.empty() ? "" : " ") + arg;
  // Go's exec reports a program missing from $PATH apart from any other failure.
  const bool by_path = editor.args.front().find('/') != std::string::npos;
  auto status = run_program(std::move(args));
  if (!status && !by_path) return fail("unable to launch the editor " + util::go_quote(joined));
  if (!status || *status != 0) return fail("there was a problem with the editor " + util::go_quote(joined));
  return {};
}

// Every "\n" written as "\r\n" (kubectl's crlf writer, for --windows-line-endings).
std::string with_crlf(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// A new file $TMPDIR/kw-edit-XXXXXX.EXT holding `text`; its path.
Result<std::string> write_temp_file(const std::string& extension, const std::string& text) {
  std::string path = temp_root() + "/kw-edit-XXXXXX." + extension;
  const int fd = ::mkstemps(path.data(), static_cast<int>(extension.size() + 1));
  if (fd < 0) return fail("cannot create a file like " + path);
  ::close(fd);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return fail("cannot write " + path);
  return path;
}

// The objects the arguments or -f name, each read from the server (its subresource with
// --subresource).
VerbResult<std::vector<EditTarget>> read_targets(ApiClient& api, Resolver& resolver, const EditOptions& options) {
  std::vector<NamedObject> named;
  if (!options.filenames.empty()) {
    auto manifests = load_manifests(options.filenames, options.recursive, std::cin);
    if (!manifests) return std::unexpected(usage_error(manifests.error().message));
    for (const auto& manifest : *manifests) {
      auto info = resolver.resolve_manifest(manifest.object, manifest.source);
      if (!info) return std::unexpected(info.error());
      const std::string own = api::str(api::at(manifest.object, {"metadata", "namespace"}));
      const std::string namespace_name = !info->namespaced ? "" : own.empty() ? api.config().namespace_name : own;
      named.push_back(NamedObject{*info, namespace_name, api::str(api::at(manifest.object, {"metadata", "name"}))});
    }
  } else {
    // A bare TYPE edits every object of it in the namespace, as kubectl does.
    const bool every = options.args.size() == 1 && options.args.front().find('/') == std::string::npos;
    TargetArgs targets;
    targets.args = options.args;
    targets.all = every;
    auto listed = objects_of(api, resolver, targets);
    if (!listed) return std::unexpected(listed.error());
    named = std::move(*listed);
  }
  std::vector<EditTarget> out;
  for (auto& object : named) {
    auto live = read_object(api, object, options.subresource);
    if (!live) return std::unexpected(live.error());
    EditTarget target{std::move(object), std::move(*live), nullptr};
    json& metadata = target.original["metadata"];
    if (!options.show_managed_fields && metadata.is_object() && metadata.contains("managedFields")) {
      target.managed_fields = metadata["managedFields"];
      metadata.erase("managedFields");
    }
    out.push_back(std::move(target));
  }
  return out;
}

// The file's body: the one object, or a v1 List of them.
std::string printed(const std::vector<EditTarget>& targets, const std::string& output) {
  json document;
  if (targets.size() == 1) {
    document = targets.front().original;
  } else {
    document = {{"apiVersion", "v1"}, {"kind", "List"}, {"metadata", json::object()}, {"items", json::array()}};
    for (const auto& target : targets) document["items"].push_back(target.original);
  }
  return output == "json" ? to_kubectl_json(document) + "\n" : codec::json_to_yaml(document);
}

// kubectl's check of a saved file before anything else (its validator, unless --validate=
// ignore): the first document must be an object naming its apiVersion and kind. The problem,
// or "" when there is none.
std::string file_problem(std::string_view text) {
  auto documents = codec::yaml_to_json(without_comments(text));
  if (!documents) return "error converting YAML to JSON: " + documents.error().message;
  const json object = documents->empty() ? json() : documents->front();
  if (!object.is_object()) return "error getting object kind";
  std::vector<std::string> problems;
  for (const char* field : {"apiVersion", "kind"}) {
    const auto found = object.find(field);
    if (found == object.end() || found->is_null()) problems.push_back(std::string(field) + " not set");
    else if (!found->is_string()) problems.push_back(std::string(field) + " isn't string type");
  }
  if (problems.size() == 1) return problems.front();
  if (problems.empty()) return {};
  return "[" + problems[0] + ", " + problems[1] + "]";
}

// kubectl's client-side check of a saved List under --validate=strict (the server's
// fieldValidation does not cover a List): "" when its items have no unknown fields.
std::string list_problem(ApiClient& api, std::string_view text) {
  auto documents = codec::yaml_to_json(without_comments(text));
  if (!documents || documents->empty()) return {};
  const json& list = documents->front();
  if (api::str(api::at(list, {"kind"})) != "List" || api::str(api::at(list, {"apiVersion"})) != "v1") return {};
  const json& items = api::arr(api::at(list, {"items"}));
  return unknown_fields_problem(api, std::vector<json>(items.begin(), items.end()));
}

// What one pass of saving did, as kubectl's editResults counts it.
struct SaveResults {
  std::vector<Reason> reasons;  // invalid objects and syntax errors: the file is reopened
  int retryable = 0;            // other refusals
  int not_found = 0;            // objects deleted meanwhile
};

// `pods "web"`: how kubectl names an object in edit's errors.
std::string object_words(const EditTarget& target) {
  return qualified_resource(target.object.info) + " " + util::go_quote(target.object.name);
}

// kubectl's editResults.addError: the line printed for a refused patch, and the tally.
std::string add_error(SaveResults& results, const net::client::Response& response, const EditTarget& target) {
  const std::string what = object_words(target);
  if (response.head.status == 422) {
    Reason reason{what + " was not valid", {}};
    const auto status = json::parse(response.body, nullptr, false);
    for (const auto& cause : api::arr(api::at(status, {"details", "causes"})))
      reason.details.push_back(api::str(api::at(cause, {"field"})) + ": " + api::str(api::at(cause, {"message"})));
    results.reasons.push_back(std::move(reason));
    return "error: " + what + " is invalid";
  }
  if (response.head.status == 404) {
    ++results.not_found;
    return "error: " + what + " could not be found on the server";
  }
  ++results.retryable;
  return "error: " + what + " could not be patched: " + error_message(response);
}

// A saved file the check refused, as kubectl reports it: the first object's invalid line.
std::string refused_file(SaveResults& results, const EditTarget& first, const std::string& problem) {
  const std::string what = object_words(first);
  results.reasons.push_back(
      Reason{what + " was not valid", {"<nil>: Invalid value: \"The edited file failed validation\": " + problem}});
  return "error: " + what + " is invalid";
}

// "pod/web edited", or with -o json|yaml the object (without managedFields unless asked).
void print_outcome(const EditOptions& options, json object, const std::string& kind_name, const std::string& verb) {
  if (!options.show_managed_fields && object.is_object() && object.contains("metadata") && object["metadata"].is_object())
    object["metadata"].erase("managedFields");
  WriteOutput printer;
  printer.output = options.output;
  static_cast<void>(printer.print(object, kind_name, kind_name + " " + verb));  // json or yaml: nothing to run
}

// The edit of one object that parsed: matched to what was read by uid, compared, and patched
// when it changed ("pod/web edited", "pod/web skipped"). A refusal is printed and tallied.
Result<void> save_one(ApiClient& api, Resolver& resolver, const EditOptions& options, const WriteQuery& query,
                      const std::vector<EditTarget>& targets, json edited, SaveResults& results) {
  const json& uid = api::at(edited, {"metadata", "uid"});
  const EditTarget* target = nullptr;
  for (const auto& candidate : targets)
    if (api::at(candidate.original, {"metadata", "uid"}) == uid) target = &candidate;
  if (target == nullptr) return fail("no original object found for " + edited.dump());
  const NamedObject& object = target->object;
  const auto& config = api.config();
  if (object.info.namespaced) {
    const std::string own = api::str(api::at(edited, {"metadata", "namespace"}));
    if (!own.empty() && own != config.namespace_name)
      return fail("the namespace from the provided object " + util::go_quote(own) + " does not match the namespace " +
                  util::go_quote(config.namespace_name) + ". You must pass '--namespace=" + own +
                  "' to perform this operation.");
  }
  json original = target->original;
  if (!target->managed_fields.is_null()) {
    original["metadata"]["managedFields"] = target->managed_fields;
    edited["metadata"]["managedFields"] = target->managed_fields;
  }
  // As in kubectl, the annotation is written after managedFields are back, so it holds them.
  if (options.save_config) edited = with_last_applied(edited);
  const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
  if (original == edited) {
    print_outcome(options, edited, kind_name, "skipped");
    return {};
  }
  const PatchStrategy strategy = resolver.is_builtin(object.info) ? PatchStrategy::strategic : PatchStrategy::merge;
  const json patch = two_way_patch(original, edited, strategy);
  if (patch.contains("apiVersion") || patch.contains("kind") || !api::at(patch, {"metadata", "name"}).is_null())
    return fail("At least one of apiVersion, kind and name was changed");
  if (options.output_patch) std::cout << "Patch: " << go_json(patch);
  std::string path = object_path(object.info, object.namespace_name, object.name);
  if (!options.subresource.empty()) path += "/" + options.subresource;
  const std::string content_type = strategy == PatchStrategy::strategic ? "application/strategic-merge-patch+json"
                                                                        : "application/merge-patch+json";
  auto response = api.send("PATCH", query.apply_to(path), std::string(k_json), content_type, patch.dump());
  if (!response) return fail(response.error().message);
  if (response->head.status < 200 || response->head.status >= 300) {
    std::cout.flush();
    std::cerr << add_error(results, *response, *target) << '\n';
    return {};
  }
  auto patched = json::parse(response->body, nullptr, false);
  print_outcome(options, patched.is_discarded() ? edited : patched, kind_name, "edited");
  return {};
}

// "A copy of your changes has been stored to FILE" when the file is still there, then the error.
int kept(const EditFailure& failure) {
  std::cout.flush();
  if (!failure.kept_file.empty() && ::access(failure.kept_file.c_str(), F_OK) == 0)
    std::cerr << "A copy of your changes has been stored to " << util::go_quote(failure.kept_file) << '\n';
  return report_usage(failure.message);
}

// What saving one file led to: the exit code, or nothing and the reasons to reopen it with.
struct Saved {
  std::optional<int> exit_code;
  std::vector<Reason> reasons;
};

// The second half of kubectl's editFn pass: parse the saved file, patch each object, and
// decide on the tally.
Saved save_file(ApiClient& api, Resolver& resolver, const EditOptions& options, const WriteQuery& query,
                const std::vector<EditTarget>& targets, const std::string& edited, const std::string& file) {
  auto objects = parse_manifests(edited, file);
  if (!objects) return Saved{{}, {Reason{"The edited file had a syntax error: " + objects.error().message, {}}}};
  SaveResults results;
  for (auto& object : *objects)
    if (auto saved = save_one(api, resolver, options, query, targets, std::move(object), results); !saved)
      return Saved{kept({saved.error().message, file}), {}};
  std::cout.flush();
  if (results.retryable > 0) {
    std::cerr << "You can run `kubectl replace -f " << file << "` to try this update again.\n";
    return Saved{k_exit_usage, {}};
  }
  if (results.not_found > 0) {
    std::cerr << "The edits you made on deleted resources have been saved to " << util::go_quote(file) << '\n';
    return Saved{k_exit_usage, {}};
  }
  if (!results.reasons.empty()) return Saved{{}, std::move(results.reasons)};
  std::remove(file.c_str());
  return Saved{k_exit_ok, {}};
}

// The editor loop of kubectl's editFn: write, edit, check, compare, save; again with the
// reasons as comments while the file does not parse or the server refuses objects as invalid.
int edit_loop(ApiClient& api, Resolver& resolver, const EditOptions& options, const WriteQuery& query,
              const std::vector<EditTarget>& targets) {
  const Editor editor = editor_from_environment();
  const bool checked = query.field_validation != "Ignore";
  const bool json_file = options.output == "json";
  const std::string original = (json_file ? std::string() : header_of({})) + printed(targets, options.output);
  std::string edited;  // the last file saved
  std::string file;    // and its path
  std::vector<Reason> reasons;
  while (true) {
    const bool reopened = !file.empty();
    // JSON has no comments: kubectl writes no header there.
    std::string text =
        reopened ? (json_file ? std::string() : header_of(reasons)) + without_comments(edited) : original;
    if (options.windows_line_endings) text = with_crlf(text);
    auto path = write_temp_file(json_file ? "json" : "yaml", text);
    if (!path) return kept({path.error().message, file});
    if (auto launched = launch(editor, *path); !launched) return kept({launched.error().message, file});
    auto saved = read_whole_file(*path);
    if (!saved) return kept({"open " + *path + ": " + saved.error().message, file});
    if (reopened && compared_form(edited) == compared_form(*saved))
      return kept({"Edit cancelled, no valid changes were saved.", *path});
    if (reopened) std::remove(file.c_str());
    edited = std::move(*saved);
    file = std::move(*path);
    std::string problem = checked ? file_problem(edited) : std::string();
    if (problem.empty() && query.field_validation == "Strict") problem = list_problem(api, edited);
    if (!problem.empty()) {
      SaveResults results;
      std::cerr << refused_file(results, targets.front(), problem) << '\n';
      reasons = std::move(results.reasons);
      continue;
    }
    if (compared_form(original) == compared_form(edited) || !has_content(edited)) {
      std::remove(file.c_str());
      std::cerr << (has_content(edited) ? "Edit cancelled, no changes made.\n" : "Edit cancelled, saved file was empty.\n");
      return k_exit_ok;
    }
    Saved outcome = save_file(api, resolver, options, query, targets, edited, file);
    if (outcome.exit_code) return *outcome.exit_code;
    reasons = std::move(outcome.reasons);
  }
}

int run_edit(const EditOptions& options) {
  if (options.args.empty() && options.filenames.empty()) return report_usage(no_resources_message());
  auto validation = options.validate.field_validation();
  if (!validation) return report_usage(validation.error().message);
  if (!options.output.empty() && options.output != "yaml" && options.output != "json")
    return report_usage("unable to match a printer suitable for the output format " + util::go_quote(options.output) +
                        ", allowed formats are: json,yaml");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto targets = read_targets(**api, resolver, options);
  if (!targets) return report(targets.error());
  if (targets->empty()) return report_usage("no objects passed to edit");
  return edit_loop(**api, resolver, options, WriteQuery{options.field_manager, std::move(*validation)}, *targets);
}

}  // namespace

void add_edit_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<EditOptions>();
  CLI::App* command = app.add_subcommand("edit", "Edit objects in an editor and patch what changed (kubectl edit)");
  command->footer(
      "The objects are written to a temporary file kw-edit-*.yaml (or .json) and opened in $KUBE_EDITOR, else "
      "$EDITOR, else vi. What the editor changed is sent as a strategic merge patch (a JSON merge patch for "
      "custom resources). When the server refuses an object as invalid, the file is opened again with the "
      "reasons as comments; saving it unchanged gives up and keeps the file. " +
      std::string(k_client_exit_codes));
  command->add_option("args", options->args, "TYPE NAME..., TYPE/NAME... or TYPE (every object of it)");
  add_manifest_flags(*command, options->filenames, options->recursive,
                     "Files, directories or - (stdin) whose objects to edit (read again from the server)");
  command->add_option("-o,--output", options->output,
                      "The format of the file to edit: yaml (the default) or json; given, it also prints the edited objects");
  command->add_flag("--output-patch", options->output_patch, "Print the patch sent for each edited object");
  command->add_option("--field-manager", options->field_manager, "Who the server records as the writer of the fields")
      ->default_str("kubectl-edit");
  command->add_option("--subresource", options->subresource,
                      "Edit this subresource of the objects (status, scale, or any the server serves)");
  command->add_flag("--show-managed-fields", options->show_managed_fields, "Keep metadata.managedFields in the file");
  command->add_flag("--save-config", options->save_config,
                    "Store the edited object in the last-applied-configuration annotation, so kw apply can follow");
  command->add_flag("--windows-line-endings", options->windows_line_endings, "Write the file with CRLF line endings");
  add_validate_flag(*command, options->validate);
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_edit(*options); });
}

}  // namespace kw::cli
